import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, workspace } from '../helpers/cli.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The real bin's `serve` on an embedded store, with tokens; resolves once it listens. */
async function serve(args: string[], cwd: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '' } });
  child.stdout!.resume();
  let err = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (c) => {
      err += c;
      if (err.includes('is serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`serve exited: ${err}`)));
  });
  return child;
}

/** Every file under `dir`, relative and `/`-separated, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

const q = (text: string) => `'${text.replace(/'/g, "''")}'`;
const HOSTILE = 'my conn/α&b';

/**
 * A DQOps home written here with DuckDB: readouts and results of two months of one table (in a connection whose
 * name needs DQOps's folder encoding) and one incident; one kind per partition level (incidents have no `t=`).
 */
async function makeHome(home: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  const copyTo = async (select: string, file: string) => {
    await mkdir(join(file, '..'), { recursive: true });
    await duck.run(`copy (${select}) to ${q(file)} (format parquet)`);
  };
  const readout = `'r-' || strftime(d, '%Y%m%d') as id, (100.0 + extract(day from d))::double as actual_value, null::double as expected_value,
    d::timestamp as time_period, d::timestamptz as time_period_utc, 'day' as time_gradient, 'all data' as data_group_name, 0::bigint as data_group_hash,
    1234567890123456789::bigint as connection_hash, ${q(HOSTILE)} as connection_name, 'postgresql' as provider, 'public' as schema_name,
    'orders' as table_name, null::varchar as column_name, 8070450532247928833::bigint as check_hash, 'daily_row_count' as check_name,
    'monitoring' as check_type, 'volume' as check_category, 'Completeness' as quality_dimension, 'table/volume/row_count' as sensor_name,
    3::integer as table_priority, (d + interval 1 hour)::timestamptz as executed_at, 12::integer as duration_ms, 'dqops-user' as created_by`;
  const data = join(home, '.data');
  const c = 'c=my+conn%2Fα%26b';
  for (const [month, folder] of [[1, 'm=2024-01-01'], [2, 'm=2024-02-01']] as const) {
    const days = `from generate_series(timestamp '2024-01-01', timestamp '2024-02-29', interval 1 day) g(d) where month(d) = ${month}`;
    await copyTo(`select ${readout} ${days}`, join(data, 'sensor_readouts', c, 't=public.orders', folder, 'sensor_readout.0.parquet'));
    await copyTo(
      `select ${readout}, case when day(d) = 15 then 2 else 0 end::integer as severity, 9223372036854775806::bigint as incident_hash,
         true as include_in_kpi, 50.0::double as error_lower_bound ${days}`,
      join(data, 'check_results', c, 't=public.orders', folder, 'check_results.0.parquet'),
    );
  }
  await copyTo(
    `select 'i-open' as id, 9223372036854775806::bigint as incident_hash, 'public' as schema_name, 'orders' as table_name, 2::integer as table_priority,
       'Completeness' as quality_dimension, 'volume' as check_category, 'monitoring' as check_type, 'daily_row_count' as check_name,
       2::integer as highest_severity, 1::integer as minimum_severity, timestamptz '2024-02-15 01:00:00+00' as first_seen,
       timestamptz '2024-02-15 01:00:00+00' as last_seen, timestamptz '2024-03-16 01:00:00+00' as incident_until, 1::integer as failed_checks_count,
       'open' as status, timestamptz '2024-02-15 02:00:00+00' as updated_at, 'ann' as updated_by`,
    join(data, 'incidents', c, 'm=2024-02-01', 'incidents.0.parquet'),
  );
  duck.closeSync();
  instance.closeSync();
}

/**
 * `export dqops-data --server` against a real `dqctl serve` holding a store with imported DQOps history: the
 * same files, byte for byte, as a local export of that store made before it was served; a wrong token and a
 * path that leaves `.data/` are refused.
 */
describe('export dqops-data --server (real bin, PGlite)', { timeout: 240_000 }, () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let server: ChildProcess | undefined;
  let url: string;
  const store = () => join(ws.dir, 'store');
  const cli = (args: string[]) => runCli(args, { cwd: ws.dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '' } });

  beforeAll(async () => {
    ws = await workspace();
    await makeHome(join(ws.dir, 'home'));
    const imported = await cli(['import', 'dqops-data', join(ws.dir, 'home'), '--state-dir', store()]);
    expect(imported.code, imported.stderr).toBe(0);
    const local = await cli(['export', 'dqops-data', '--state-dir', store(), '--out', join(ws.dir, 'local')]);
    expect(local.code, local.stderr).toBe(0);
    await writeFile(join(ws.dir, 'tokens.yaml'), '- {name: reader, role: viewer, token: viewer-token}\n');
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await serve(['--port', String(port), '--state-dir', store(), '--tokens', join(ws.dir, 'tokens.yaml')], ws.dir);
  }, 120_000);
  afterAll(async () => {
    server?.kill('SIGKILL');
    await ws?.cleanup();
  });

  it('writes the same files, byte for byte, and the same summary as the local export', async () => {
    const remote = await cli(['export', 'dqops-data', '--server', url, '--token', 'viewer-token', '--out', join(ws.dir, 'remote')]);
    expect(remote.code, remote.stderr).toBe(0);
    // 31 + 29 readouts and results in two month files each, one incident in one file
    expect(remote.stdout).toBe(
      [
        `Exported DQOps history to ${join(ws.dir, 'remote')}/.data:`,
        '  sensor_readouts         60 rows in 2 files',
        '  check_results           60 rows in 2 files',
        '  errors                   0 rows in 0 files',
        '  statistics               0 rows in 0 files',
        '  error_samples            0 rows in 0 files',
        '  incidents                1 rows in 1 files',
        '',
      ].join('\n'),
    );
    const localFiles = await filesUnder(join(ws.dir, 'local'));
    expect(localFiles).toEqual([
      '.data/check_results/c=my+conn%2Fα%26b/t=public.orders/m=2024-01-01/check_results.0.parquet',
      '.data/check_results/c=my+conn%2Fα%26b/t=public.orders/m=2024-02-01/check_results.0.parquet',
      '.data/incidents/c=my+conn%2Fα%26b/m=2024-02-01/incidents.0.parquet',
      '.data/sensor_readouts/c=my+conn%2Fα%26b/t=public.orders/m=2024-01-01/sensor_readout.0.parquet',
      '.data/sensor_readouts/c=my+conn%2Fα%26b/t=public.orders/m=2024-02-01/sensor_readout.0.parquet',
    ]);
    expect(await filesUnder(join(ws.dir, 'remote'))).toEqual(localFiles);
    for (const file of localFiles) {
      const [a, b] = await Promise.all([readFile(join(ws.dir, 'local', file)), readFile(join(ws.dir, 'remote', file))]);
      expect(b.equals(a), file).toBe(true);
    }
    const json = await cli(['export', 'dqops-data', '--server', url, '--token', 'viewer-token', '--out', join(ws.dir, 'remote2'), '--format', 'json']);
    expect(JSON.parse(json.stdout).kinds.check_results).toEqual({ rows: 60, files: 2 });
  });

  it('lists the files with their kind and rows', async () => {
    const answer = await fetch(`${url}/api/gitops/dqops-data`, { headers: { authorization: 'Bearer viewer-token' } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { files: unknown }).files).toEqual([
      { kind: 'sensor_readouts', path: 'sensor_readouts/c=my+conn%2Fα%26b/t=public.orders/m=2024-01-01/sensor_readout.0.parquet', rows: 31 },
      { kind: 'sensor_readouts', path: 'sensor_readouts/c=my+conn%2Fα%26b/t=public.orders/m=2024-02-01/sensor_readout.0.parquet', rows: 29 },
      { kind: 'check_results', path: 'check_results/c=my+conn%2Fα%26b/t=public.orders/m=2024-01-01/check_results.0.parquet', rows: 31 },
      { kind: 'check_results', path: 'check_results/c=my+conn%2Fα%26b/t=public.orders/m=2024-02-01/check_results.0.parquet', rows: 29 },
      { kind: 'incidents', path: 'incidents/c=my+conn%2Fα%26b/m=2024-02-01/incidents.0.parquet', rows: 1 },
    ]);
  });

  it('a local export of the served store fails at once and names --server', async () => {
    const local = await cli(['export', 'dqops-data', '--state-dir', store(), '--out', join(ws.dir, 'blocked')]);
    expect(local.code).toBe(1);
    expect(local.stderr).toContain('is open in `dqctl serve`');
    expect(local.stderr).toContain(`--server ${url}`);
  });

  it('a wrong token: exit 1, saying the server does not know it, and nothing written', async () => {
    const result = await cli(['export', 'dqops-data', '--server', url, '--token', 'not-a-token', '--out', join(ws.dir, 'refused')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: the token is not valid\n');
    await expect(readdir(join(ws.dir, 'refused'))).rejects.toThrow(/ENOENT/);
    const anonymous = await cli(['export', 'dqops-data', '--server', url, '--out', join(ws.dir, 'refused')]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('(pass --token, or set DQCTL_TOKEN)');
  });

  it('a path that leaves .data/ is 400; a well-formed path of no stored partition is 404', async () => {
    const get = (path: string) =>
      fetch(`${url}/api/gitops/dqops-data/file?${new URLSearchParams({ path })}`, { headers: { authorization: 'Bearer viewer-token' } });
    for (const path of [
      '../../../etc/passwd',
      'check_results/../../../etc/passwd',
      'check_results/c=x/t=a.b/m=2024-01-01/../../../../check_results.0.parquet',
      '/etc/passwd',
      'check_results/c=x/t=a.b/m=2024-01-01/other.parquet',
      'check_results\\c=x\\t=a.b\\m=2024-01-01\\check_results.0.parquet',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(400);
      expect(((await answer.json()) as { code: string }).code, path).toBe('INVALID_ARGUMENT');
    }
    const missing = await get('check_results/c=nobody/t=public.orders/m=2024-01-01/check_results.0.parquet');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('NOT_FOUND');
    const file = await get('incidents/c=my+conn%2Fα%26b/m=2024-02-01/incidents.0.parquet');
    expect(file.status).toBe(200);
    expect(file.headers.get('x-dqctl-rows')).toBe('1');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.equals(await readFile(join(ws.dir, 'local', '.data/incidents/c=my+conn%2Fα%26b/m=2024-02-01/incidents.0.parquet')))).toBe(true);
    const anonymous = await fetch(`${url}/api/gitops/dqops-data`);
    expect(anonymous.status).toBe(401);
  });
});
