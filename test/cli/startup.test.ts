/**
 * What a one-shot `dqctl run checks` process loads and leaves behind, through the real bin: dqctl's bundled modules
 * (dist/bundle, scripts/bundle-cli.mjs) and, with DQCTL_BUNDLE=off, dist/'s modules, with the same output and exit
 * code; on a PostgreSQL store with a DuckDB connection it loads DuckDB's package (its JavaScript from the build's
 * one-file bundle when bundled) but neither PGlite (the embedded
 * store's engine), nor mysql2, nor Node.js's fetch (which pg's Cloudflare Workers test loads without a `navigator`);
 * its results are in the store when it has exited. A preload given by NODE_OPTIONS lists the modules the process
 * loaded: the ES modules through a load hook, the CommonJS ones and Node.js's internal ones when it exits.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

describe('run checks as a one-shot process (real bin)', () => {
  let dir: string;
  let database: TestDatabase;
  let preload: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-startup-'));
    database = await createTestDatabase();
    // a CSV folder of 3 rows, one amount empty: row count 3 (an error below 10), 1 null (a warning above 0)
    await mkdir(join(dir, 'files', 'orders'), { recursive: true });
    await writeFile(join(dir, 'files', 'orders', 'a.csv'), 'id,amount\n1,10\n2,\n3,5\n');
    await mkdir(join(dir, 'repo', 'sources', 'files'), { recursive: true });
    await writeFile(
      join(dir, 'repo', 'sources', 'files', 'connection.dqoconnection.yaml'),
      `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: duckdb\n  duckdb:\n    read_mode: files\n    files_format_type: csv\n    directories:\n      landing: ${JSON.stringify(join(dir, 'files'))}\n    csv:\n      header: true\n`,
    );
    await writeFile(
      join(dir, 'repo', 'sources', 'files', 'landing.orders.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: 10\n  columns:\n    amount:\n      monitoring_checks:\n        daily:\n          nulls:\n            daily_nulls_count:\n              warning:\n                max_count: 0\n',
    );
    const applied = await runCli(['apply', join(dir, 'repo'), '--auto-approve', '--database', database.url], { cwd: dir, timeoutMs: 120_000 });
    expect(applied.code, applied.stderr).toBe(0);
    preload = join(dir, 'modules.mjs');
    await writeFile(
      preload,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { createRequire, register } from 'node:module';",
        'const out = process.env.DQCTL_TEST_MODULES;',
        'const hook = `import { appendFileSync } from "node:fs"; export async function load(url, context, next) { appendFileSync(${JSON.stringify(out)}, url + "\\\\n"); return next(url, context); }`;',
        "register('data:text/javascript,' + encodeURIComponent(hook));",
        "process.on('exit', () => appendFileSync(out, [...Object.keys(createRequire(import.meta.url).cache), ...process.moduleLoadList].join('\\n') + '\\n'));",
      ].join('\n'),
    );
  }, 180_000);
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function runChecks(name: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string; modules: string[] }> {
    const list = join(dir, `${name}.txt`);
    const run = await runCli(['run', 'checks', '--connection', 'files', '--database', database.url], {
      cwd: dir,
      env: { NODE_OPTIONS: `--import=${preload}`, DQCTL_TEST_MODULES: list, ...env },
      timeoutMs: 120_000,
    });
    return { ...run, modules: (await readFile(list, 'utf8')).split('\n') };
  }

  const loaded = (modules: string[], part: string): boolean => modules.some((m) => m.includes(part));

  it('loads the bundle, DuckDB, and neither PGlite, mysql2 nor fetch; exits 6 (an error) with its results stored', async () => {
    const run = await runChecks('bundled');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Ran 2 checks');
    expect(run.stdout).toContain('0 valid, 1 warning, 1 error');
    expect(run.code).toBe(6);
    expect(loaded(run.modules, '/dist/bundle/main.js')).toBe(true);
    expect(loaded(run.modules, '/dist/cli/main.js')).toBe(false);
    // DuckDB's JavaScript API from its one-file bundle of the build, its native bindings from node_modules
    expect(loaded(run.modules, '/dist/bundle/duckdb-node-api-')).toBe(true);
    expect(loaded(run.modules, '/node_modules/@duckdb/node-api/lib/')).toBe(false);
    expect(loaded(run.modules, '/node_modules/@duckdb/node-bindings')).toBe(true);
    expect(loaded(run.modules, '/node_modules/pg/')).toBe(true);
    expect(loaded(run.modules, '@electric-sql/pglite')).toBe(false);
    expect(loaded(run.modules, '/node_modules/mysql2/')).toBe(false);
    expect(loaded(run.modules, 'internal/deps/undici/undici')).toBe(false);

    // durable: another process reads both results from the store after this one has exited
    const results = await runCli(['results', '--format', 'json', '--database', database.url], { cwd: dir, timeoutMs: 120_000 });
    expect(results.code, results.stderr).toBe(0);
    const rows = JSON.parse(results.stdout).results as Array<{ checkName: string; actualValue: number; severity: number }>;
    expect(rows.map((r) => [r.checkName, r.actualValue, r.severity]).sort()).toEqual([
      ['daily_nulls_count', 1, 1],
      ['daily_row_count', 3, 2],
    ]);
  }, 240_000);

  it('DQCTL_BUNDLE=off runs the unbundled modules of dist/ with the same report and exit code', async () => {
    const run = await runChecks('unbundled', { DQCTL_BUNDLE: 'off' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('0 valid, 1 warning, 1 error');
    expect(run.code).toBe(6);
    expect(loaded(run.modules, '/dist/cli/main.js')).toBe(true);
    expect(loaded(run.modules, '/dist/bundle/')).toBe(false);
    expect(loaded(run.modules, '/node_modules/@duckdb/node-api/lib/')).toBe(true);
    expect(loaded(run.modules, '@electric-sql/pglite')).toBe(false);
    // --fail-at fatal: the same results are below it, exit 0
    const lenient = await runCli(['run', 'checks', '--connection', 'files', '--fail-at', 'fatal', '--database', database.url], { cwd: dir, timeoutMs: 120_000 });
    expect(lenient.code, lenient.stderr).toBe(0);
  }, 240_000);
});
