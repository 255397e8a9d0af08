import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
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
  let localExport: Awaited<ReturnType<typeof runCli>>;

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
    // a literal password (the test database trusts local connections and ignores it): an export replaces it
    await appendFile(join(dir, 'repo/sources/db/connection.dqoconnection.yaml'), '    password: literal-hunter2\n');
    const applied = await runCli(['apply', join(dir, 'repo'), '--auto-approve', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    // what the store exports read locally, before the server holds it: `export --server` must write the same
    localExport = await runCli(['export', '--out', join(dir, 'local-export'), '--state-dir', join(dir, 'state'), '--format', 'json'], { cwd: dir });
    expect(localExport.code, localExport.stderr).toBe(0);
    await writeFile(join(dir, 'tokens.yaml'), '- {name: reader, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n');
    server = await serve(['--state-dir', join(dir, 'state'), '--tokens', join(dir, 'tokens.yaml'), '--no-schedules'], dir, {
      env: { DQ_USER: user() },
      readyText: 'is serving',
    });
  }, 120_000);
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

  it('export --server writes what a local export of the same store writes, and never receives a secret', async () => {
    const viewer = ['--server', server.url, '--token', 'viewer-token'];
    const out = join(dir, 'remote-export');
    const remote = await runCli(['export', '--out', out, '--format', 'json', ...viewer], { cwd: dir });
    expect(remote.code, remote.stderr).toBe(0);
    // the same report (but the folder) and the same warnings on stderr
    const { folder: localFolder, ...local } = JSON.parse(localExport.stdout);
    const { folder, ...answer } = JSON.parse(remote.stdout);
    expect([localFolder, folder]).toEqual([join(dir, 'local-export'), out]);
    expect(answer).toEqual(local);
    expect(answer.replaced_secrets).toEqual([{ object: 'source "db"', path: 'postgresql.password', variable: 'DQCTL_SECRET_DB_PASSWORD' }]);
    expect(remote.stderr).toBe(localExport.stderr.replace('(or export with', '(or export from the store directly, not through a server, with'));
    // the same files, byte for byte
    const files = async (root: string) => (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length)).sort();
    const written = await files(out);
    expect(written).toEqual(await files(join(dir, 'local-export')));
    expect(written).toContain('/sources/db/public.Orders.dqotable.yaml');
    for (const file of written) expect(await readFile(join(out, file), 'utf8'), file).toBe(await readFile(join(dir, 'local-export', file), 'utf8'));
    expect(await readFile(join(out, 'sources/db/connection.dqoconnection.yaml'), 'utf8')).toContain('password: ${DQCTL_SECRET_DB_PASSWORD}');
    // the server's answer itself holds no secret
    const answered = await fetch(`${server.url}/api/gitops/export`, { headers: { authorization: 'Bearer viewer-token' } });
    expect(answered.status).toBe(200);
    expect(await answered.text()).not.toContain('literal-hunter2');

    // a second export finds every file as it is; --dry-run through the server writes nothing and says so
    const again = await runCli(['export', '--out', out, '--kind', 'table', ...viewer], { cwd: dir });
    expect([again.code, again.stdout]).toEqual([0, 'Exported 2 objects to ' + out + ': 0 files written, 2 unchanged.\n']);
    const dry = await runCli(['export', '--out', join(dir, 'nowhere'), '--kind', 'table', '--dry-run', ...viewer], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('+++ b/sources/db/public.Orders.dqotable.yaml');
    expect(dry.stderr).toContain('Dry run: 2 files would be written, 0 unchanged; nothing was written.');
    expect(await readdir(dir)).not.toContain('nowhere');
    // a server never sends a secret: --include-secrets is refused before anything is asked
    const secrets = await runCli(['export', '--out', join(dir, 'secrets'), '--include-secrets', ...viewer], { cwd: dir });
    expect(secrets.code).toBe(1);
    expect(secrets.stderr).toMatch(/^Error: --include-secrets cannot be used with --server: a dqctl server never sends a secret/);
    const anonymous = await runCli(['export', '--out', join(dir, 'secrets'), '--server', server.url], { cwd: dir, env: { DQCTL_TOKEN: '' } });
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/\(pass --token, or set DQCTL_TOKEN\)\n$/);
  });

  it('lock list --server lists the locks of the server\'s store as a local lock list does', async () => {
    const viewer = ['--server', server.url, '--token', 'viewer-token'];
    const remote = await runCli(['lock', 'list', '--format', 'json', ...viewer], { cwd: dir });
    expect(remote.code, remote.stderr).toBe(0);
    const local = await runCli(['lock', 'list', '--format', 'json', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(local.code, local.stderr).toBe(0);
    const withoutAge = (document: any) => ({ ...document, locks: document.locks.map(({ age_ms, ...lock }: any) => lock) });
    const listed = JSON.parse(remote.stdout);
    expect(withoutAge(listed)).toEqual(withoutAge(JSON.parse(local.stdout)));
    expect(listed.store).toEqual({ engine: 'pglite', location: `pglite:${join(dir, 'state', 'pglite')}` });
    expect(listed.locks).toEqual([expect.objectContaining({ id: 'state-dir', operation: `serve ${server.url}`, server: server.url, alive: true, releasable: false })]);
    const text = await runCli(['lock', 'list', ...viewer], { cwd: dir });
    expect(text.stdout).toContain(`Locks of pglite:${join(dir, 'state', 'pglite')} (TTL 15m00s):\n`);
    expect(text.stdout).toContain(`state-dir: `);
    const ttl = await runCli(['lock', 'list', '--lock-ttl', '1m', ...viewer], { cwd: dir });
    expect([ttl.code, ttl.stderr]).toEqual([1, "Error: --lock-ttl has no effect with --server: the server judges its store's locks with its own --lock-ttl; drop it\n"]);
  });

  it("diff --server counts a policy's reach on the tables of the server's store", async () => {
    const repo = join(dir, 'diff-repo');
    await cp(join(dir, 'repo'), repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'base');
    await mkdir(join(repo, 'patterns'), { recursive: true });
    await writeFile(
      join(repo, 'patterns/orders_volume.dqotablepattern.yaml'),
      'apiVersion: dqo/v1\nkind: default_table_checks\nspec:\n  priority: 100\n  target:\n    table: Orders\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count: {}\n',
    );
    git('add', '-A');
    git('commit', '-qm', 'a policy on Orders');
    const viewer = ['--server', server.url, '--token', 'viewer-token'];
    const diff = await runCli(['diff', '--base', 'HEAD~1', '--head', 'HEAD', repo, '--format', 'json', ...viewer], { cwd: dir });
    expect(diff.code, diff.stderr).toBe(0);
    const document = JSON.parse(diff.stdout);
    expect(document.live).toMatchObject({ engine: 'pglite', location: expect.stringContaining(join(dir, 'state')) });
    expect(document.blast_radius).toHaveLength(1);
    // the store holds Orders and doomed: the new policy reaches one of them, as it does in the repository
    expect(document.blast_radius[0].live).toMatchObject({ before: null, after: { tables: 1 } });
    expect(JSON.stringify(document.blast_radius[0].live.tables_gained)).toContain('db/public.Orders');
    expect(document.blast_radius[0].repository.after).toEqual(document.blast_radius[0].live.after);
    const contradiction = await runCli(['diff', '--base', 'HEAD~1', repo, '--no-store', ...viewer], { cwd: dir });
    expect([contradiction.code, contradiction.stderr]).toEqual([1, 'Error: --no-store and --server contradict each other; drop one\n']);
    // without --server nor a store flag, no store is read
    const offline = JSON.parse((await runCli(['diff', '--base', 'HEAD~1', repo, '--format', 'json'], { cwd: dir, env: { DQCTL_SERVER_URL: '', DQCTL_STATE_DIR: '' } })).stdout);
    expect(offline.live).toBeNull();
  });

  it('run checks --server refuses a filter naming nothing the store holds, as a local run does (exit 1, did-you-mean)', async () => {
    const refusals: Array<[string[], string]> = [
      [['--check', 'daily_row_cuont'], 'Error: --check: no check named "daily_row_cuont"; did you mean "daily_row_count"?\n'],
      [['--connection', 'dbb'], 'Error: --connection: no connection named "dbb"; did you mean "db"?\n'],
      [['--table', 'public.Order'], 'Error: --table: no table named "public.Order"; did you mean "public.Orders"?\n'],
      [['--table', 'public.Orders', '--column', 'amonut'], 'Error: --column: no column named "amonut" in the selected tables; did you mean "amount"?\n'],
    ];
    for (const [filter, message] of refusals) {
      const run = await cli([...filter, ...asOperator()]);
      expect([run.code, run.stdout, run.stderr], filter.join(' ')).toEqual([1, '', message]);
    }
    // nothing was queued for them: no job on the server names any of the typos
    const jobs = await getJson(`${server.url}/api/jobs/jobs`, { authorization: 'Bearer viewer-token' });
    const filters = (jobs.body.jobs as Array<{ parameters?: { runChecksParameters?: { check_search_filters?: object } } }>).map((job) => JSON.stringify(job.parameters?.runChecksParameters?.check_search_filters ?? {}));
    for (const typo of ['daily_row_cuont', 'dbb', 'public.Order"', 'amonut']) expect(filters.filter((f) => f.includes(typo))).toEqual([]);
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
