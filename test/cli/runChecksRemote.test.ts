import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { SLOW_VIEWS_SQL } from '../datasource/sourceFixture.js';
import { BIN, runCli } from '../helpers/cli.js';
import { writeSourceConnection } from '../helpers/sourceRepo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { freePort, getJson, serve, type Served } from './reconcileSupport.js';

/**
 * `dqctl run checks --server`: the run is a job of a running `dqctl serve` (real bin, embedded store), on the
 * server's data sources with the server's secrets: the CLI needs a URL and an operator token, no database
 * credentials. The report and the exit codes are those of a local run.
 */
describe('run checks --server through a running dqctl serve (real bin)', { timeout: 180_000 }, () => {
  let source: TestDatabase;
  let dir: string;
  let server: Served;
  const user = () => decodeURIComponent(new URL(source.url).username) || 'postgres';
  // the CLI's environment holds no secret and no server URL of its own
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(['run', 'checks', ...args], { cwd: dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '', DQ_USER: '', ...env } });
  const asOperator = () => ['--server', server.url, '--token', 'operator-token'];

  beforeAll(async () => {
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query('create table public."Orders" (id int, amount numeric); create table public.doomed (id int)');
    await client.query(SLOW_VIEWS_SQL);
    await client.query('insert into public."Orders" select g, case when g % 4 = 0 then null else g end from generate_series(1, 40) g');
    await client.end();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-run-remote-'));
    await writeSourceConnection(join(dir, 'repo'), 'db', source.url);
    await writeFile(
      join(dir, 'repo/sources/db/public.Orders.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: 1\n  columns:\n    amount:\n      monitoring_checks:\n        daily:\n          nulls:\n            daily_nulls_count:\n              warning:\n                max_count: 5\n',
    );
    await writeFile(
      join(dir, 'repo/sources/db/public.doomed.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count: {}\n',
    );
    const applied = await runCli(['apply', join(dir, 'repo'), '--auto-approve', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    await writeFile(join(dir, 'tokens.yaml'), '- {name: reader, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n');
    server = await serve(['--state-dir', join(dir, 'state'), '--tokens', join(dir, 'tokens.yaml'), '--no-schedules'], dir, {
      env: { DQ_USER: user() },
      readyText: 'is serving',
    });
  }, 60_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await source.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs on the server with the server's secrets; the report and exit codes are a local run's", async () => {
    const run = await cli(['--table', 'public.Orders', ...asOperator()]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Ran 2 checks in \d+\.\d s: 1 valid, 1 warning, 0 errors, 0 fatal, 0 execution errors; highest severity: warning\.\n/);
    expect(run.stdout).toContain(`See them through the results overview endpoints of ${server.url}/api/docs\n`);
    expect(run.code).toBe(0);
    const strict = await cli(['--table', 'public.Orders', '--fail-at', 'warning', '--format', 'json', ...asOperator()]);
    expect(strict.code).toBe(5); // a warning: 5 (was 1, which also meant "dqctl failed")
    expect(JSON.parse(strict.stdout)).toEqual({ highest_severity: 'warning', executed_checks: 2, valid_results: 1, warnings: 1, errors: 0, fatals: 0, execution_errors: 0 });
    // the results are the server's: its overview of the table shows them
    const table = '/api/connections/db/schemas/public/tables/Orders';
    const asViewer = { authorization: 'Bearer viewer-token' };
    const overview = await getJson(`${server.url}${table}/monitoring/daily/overview`, asViewer);
    expect(overview.body.map((c: any) => c.checkName)).toEqual(['daily_row_count']);
    const column = await getJson(`${server.url}${table}/columns/amount/monitoring/daily/overview`, asViewer);
    expect(column.body.map((c: any) => [c.checkName, c.statuses[0]])).toEqual([['daily_nulls_count', 'warning']]);
  });

  it('a table its data source fails: FAILED with the reason, the counts, exit 4', async () => {
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query('drop table public.doomed');
    await client.end();
    const run = await cli(asOperator());
    expect(run.stdout).toMatch(/ {2}FAILED {2}db\/public\.doomed {2}.*does not exist/);
    expect(run.stdout).toContain('Ran 3 checks');
    expect(run.stdout).toContain('1 execution error');
    expect(run.stdout).toContain('The data source failed 1 of 2 tables');
    expect(run.code).toBe(4);
    const json = JSON.parse((await cli(['--format', 'json', ...asOperator()])).stdout);
    expect(json.failed_tables).toEqual([{ table: 'db/public.doomed', code: 'DATASOURCE_QUERY_FAILED', error: expect.stringContaining('does not exist') }]);
  });

  it('refuses a missing or viewer token, local secret flags, and says when the server cannot be reached', async () => {
    const anonymous = await cli(['--server', server.url]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/^Error: .*\(pass --token, or set DQCTL_TOKEN\)\n$/);
    const viewer = await cli(['--server', server.url, '--token', 'viewer-token']);
    expect(viewer.code).toBe(1);
    expect(viewer.stderr).toMatch(/operator/);
    const secrets = await cli([...asOperator(), '--credentials-dir', dir]);
    expect(secrets.code).toBe(1);
    expect(secrets.stderr).toBe('Error: --credentials-dir has no effect with --server: the server runs the checks with its own secrets; drop it\n');
    const nowhere = await cli(['--server', `http://127.0.0.1:${await freePort()}`, '--token', 'operator-token']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/^Error: cannot reach the dqctl server at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
    // the embedded store is the server's: a local run says to go through it
    const local = await cli(['--state-dir', join(dir, 'state')], { DQ_USER: user() });
    expect(local.code).toBe(1);
    expect(local.stderr).toContain(`use \`dqctl run checks --server ${server.url}\`, or stop the server`);
    // every read takes --server now, so the lock names it (it said "read it through the server's API": issue 26)
    const results = await runCli(['results', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(results.code).toBe(1);
    expect(results.stderr).toContain(`use \`dqctl results --server ${server.url}\`, or stop the server`);
    const preview = await runCli(['preview', '--base', 'HEAD', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(preview.code).toBe(1);
    expect(preview.stderr).toContain(`use \`dqctl preview --server ${server.url}\`, or stop the server`);
  });

  it('the reads work through the server while it holds the store: state list, results, statistics', async () => {
    const viewer = ['--server', server.url, '--token', 'viewer-token'];
    const state = await runCli(['state', 'list', '--format', 'json', ...viewer], { cwd: dir });
    expect(state.code, state.stderr).toBe(0);
    const listing = JSON.parse(state.stdout);
    expect(listing.objects.map((o: { kind: string; name: string }) => `${o.kind}:${o.name}`)).toContain('table:db/public.Orders');
    const tables = await runCli(['state', 'list', '--kind', 'table', ...viewer], { cwd: dir });
    expect(tables.stdout).toMatch(/objects?\n\n/);
    expect(tables.stdout).not.toContain('source ');
    const results = await runCli(['results', '--table', 'public.Orders', '--format', 'json', ...viewer], { cwd: dir });
    expect(results.code, results.stderr).toBe(0);
    const rows = JSON.parse(results.stdout).results as Array<{ tableName: string; checkName: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.tableName))).toEqual(new Set(['Orders']));
    const text = await runCli(['results', '--table', 'public.Orders', ...viewer], { cwd: dir });
    expect(text.stdout).toContain('db/public.Orders');
    const typo = await runCli(['results', '--table', 'public.Order', ...viewer], { cwd: dir });
    expect([typo.code, typo.stderr]).toEqual([1, 'Error: --table: no table named "public.Order"; did you mean "public.Orders"?\n']);
    const statistics = await runCli(['statistics', ...viewer], { cwd: dir });
    expect([statistics.code, statistics.stdout]).toEqual([0, 'No statistics. Collect them first: dqctl collect statistics\n']);
  });

  it('DQCTL_SERVER_URL and DQCTL_TOKEN stand for the flags', async () => {
    const run = await cli(['--table', 'public.Orders'], { DQCTL_SERVER_URL: server.url, DQCTL_TOKEN: 'operator-token' });
    expect(run.stdout).toContain('Ran 2 checks');
    expect(run.code).toBe(0);
  });

  it('Ctrl-C cancels the job on the server: its query stops on the data source, the job ends cancelled', async () => {
    const created = await fetch(`${server.url}/api/connections/db/schemas/slowpoke/tables/very_slow`, {
      method: 'POST',
      headers: { authorization: 'Bearer operator-token', 'content-type': 'application/json' },
      body: JSON.stringify({ monitoring_checks: { daily: { volume: { daily_row_count: {} } } } }),
    });
    expect(created.status).toBe(201);
    const child = spawn(process.execPath, [BIN, 'run', 'checks', '--table', 'slowpoke.very_slow', ...asOperator()], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', DQCTL_SERVER_URL: '', DQCTL_TOKEN: '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const sleeping = async () => {
      const client = new pg.Client({ connectionString: source.url });
      await client.connect();
      try {
        const rows = await client.query("select 1 from pg_stat_activity where application_name = 'dqctl' and query like '%very_slow%' and state = 'active'");
        return rows.rowCount ?? 0;
      } finally {
        await client.end();
      }
    };
    // the source database tells nobody when a query starts: polling its activity is the only way to know
    const untilTheSlowQueryRuns = async () => {
      const deadline = Date.now() + 20_000;
      while ((await sleeping()) === 0) expect(Date.now()).toBeLessThan(deadline);
    };
    await untilTheSlowQueryRuns();
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(/Error: the run was cancelled \(job (\d+) on http:\/\/127\.0\.0\.1:\d+\)/);
    expect(await sleeping()).toBe(0);
    const jobId = /job (\d+) on/.exec(stderr)![1];
    const job = await getJson(`${server.url}/api/jobs/jobs/${jobId}`, { authorization: 'Bearer viewer-token' });
    expect(job.body.status).toBe('cancelled');
  });
});
