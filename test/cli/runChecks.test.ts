import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createOrdersSource, writeSourceConnection } from '../helpers/sourceRepo.js';
import type { TestDatabase } from '../helpers/testDatabase.js';

/** `dqctl run checks` and `dqctl results` through the real bin, on a real data source. */
describe('run checks and results (real bin)', () => {
  let source: TestDatabase;
  let dir: string;
  let store: string[];
  beforeAll(async () => {
    source = await createOrdersSource();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-run-'));
    await writeSourceConnection(join(dir, 'repo'), 'db', source.url);
    await writeFile(
      join(dir, 'repo/sources/db/public.Orders.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: 1\n  columns:\n    amount:\n      monitoring_checks:\n        daily:\n          nulls:\n            daily_nulls_count:\n              warning:\n                max_count: 5\n              error:\n                max_count: 50\n',
    );
    store = ['--state-dir', join(dir, 'state')];
    const applied = await runCli(['apply', join(dir, 'repo'), '--auto-approve', ...store], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    await source.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the checks, stores the results, and exits by --fail-at', async () => {
    const env = { DQ_USER: decodeURIComponent(new URL(source.url).username) || 'postgres' };
    const run = await runCli(['run', 'checks', '--connection', 'db', ...store], { cwd: dir, env });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Ran 2 checks');
    expect(run.stdout).toContain('1 valid, 1 warning, 0 errors');
    expect(run.code).toBe(0); // the highest is a warning, below the default --fail-at error
    const strict = await runCli(['run', 'checks', '--connection', 'db', '--fail-at', 'warning', ...store], { cwd: dir, env });
    expect(strict.code).toBe(5); // a warning: 5 (was 1, which also meant "dqctl failed")
    const results = await runCli(['results', '--format', 'json', ...store], { cwd: dir });
    const rows = JSON.parse(results.stdout).results as Array<{ checkName: string; actualValue: number; severity: number }>;
    expect(rows.map((r) => [r.checkName, r.actualValue, r.severity]).sort()).toEqual([
      ['daily_nulls_count', 10, 1],
      ['daily_row_count', 40, 0],
    ]);
  });

  it('a typo in a filter is refused with a did-you-mean and exit 1, not "no check matched" and 0', async () => {
    const check = await runCli(['run', 'checks', '--check', 'daily_row_cuont', ...store], { cwd: dir });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('Error: --check: no check named "daily_row_cuont"; did you mean "daily_row_count"?');
    expect(check.stdout).toBe('');
    const connection = await runCli(['run', 'checks', '--connection', 'dv', ...store], { cwd: dir });
    expect([connection.code, connection.stderr]).toEqual([1, 'Error: --connection: no connection named "dv"; did you mean "db"?\n']);
    const table = await runCli(['run', 'checks', '--table', 'public.Order', ...store], { cwd: dir });
    expect([table.code, table.stderr]).toEqual([1, 'Error: --table: no table named "public.Order"; did you mean "public.Orders"?\n']);
    const wildcard = await runCli(['run', 'checks', '--table', 'sales.*', ...store], { cwd: dir });
    expect([wildcard.code, wildcard.stderr]).toEqual([1, 'Error: --table "sales.*" matches no table\n']);
    const column = await runCli(['run', 'checks', '--column', 'amont', ...store], { cwd: dir });
    expect([column.code, column.stderr]).toEqual([1, 'Error: --column: no column named "amont" in the selected tables; did you mean "amount"?\n']);
    // the same names in the reads and the other runs
    const results = await runCli(['results', '--check', 'daily_row_cuont', ...store], { cwd: dir });
    expect([results.code, results.stderr]).toEqual([1, 'Error: --check: no check named "daily_row_cuont"; did you mean "daily_row_count"?\n']);
    const statistics = await runCli(['statistics', '--connection', 'dv', ...store], { cwd: dir });
    expect([statistics.code, statistics.stderr]).toEqual([1, 'Error: --connection: no connection named "dv"; did you mean "db"?\n']);
    const collect = await runCli(['collect', 'statistics', '--table', 'public.Order', ...store], { cwd: dir });
    expect([collect.code, collect.stderr]).toEqual([1, 'Error: --table: no table named "public.Order"; did you mean "public.Orders"?\n']);
    const samples = await runCli(['collect', 'error-samples', '--check', 'daily_nulls_cuont', ...store], { cwd: dir });
    expect([samples.code, samples.stderr]).toEqual([1, 'Error: --check: no check named "daily_nulls_cuont"; did you mean "daily_nulls_count"?\n']);
    // a known check that no selected table has configured is no typo: nothing matched, exit 0
    const none = await runCli(['run', 'checks', '--check', 'daily_duplicate_count', ...store], { cwd: dir });
    expect([none.code, none.stdout]).toEqual([0, expect.stringContaining('No check matched the filters.')]);
  }, 180_000); // eleven processes of the real bin

  it("a daily period is the run's UTC date, whatever the process's time zone (as DQOps with DQO_DEFAULT_TIME_ZONE=UTC)", async () => {
    const env = { DQ_USER: decodeURIComponent(new URL(source.url).username) || 'postgres', TZ: 'Pacific/Kiritimati' }; // UTC+14
    const before = new Date().toISOString().slice(0, 10);
    const run = await runCli(['run', 'checks', '--check', 'daily_row_count', ...store], { cwd: dir, env });
    const after = new Date().toISOString().slice(0, 10);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse((await runCli(['results', '--check', 'daily_row_count', '--format', 'json', ...store], { cwd: dir })).stdout).results as Array<{ timePeriod: string }>;
    expect(rows).toHaveLength(1);
    expect([`${before}T00:00:00.000Z`, `${after}T00:00:00.000Z`]).toContain(new Date(rows[0].timePeriod).toISOString());
  });

  it('run checks on a store where nothing was applied says so and exits 1', async () => {
    const empty = ['--state-dir', join(dir, 'empty-state')];
    const run = await runCli(['run', 'checks', ...empty], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: the live store holds no connection and no table: nothing was applied to it. Apply a repository first: dqctl apply <dir>\n');
    const collect = await runCli(['collect', 'statistics', ...empty], { cwd: dir });
    expect(collect.code).toBe(1);
    expect(collect.stderr).toContain('nothing was applied');
    // reads of an empty store are not errors
    expect((await runCli(['results', ...empty], { cwd: dir })).code).toBe(0);
  });

  it('a missing secret variable is an execution error naming the variable, exit 4', async () => {
    const run = await runCli(['run', 'checks', ...store], { cwd: dir });
    expect(run.code).toBe(4);
    const text = await runCli(['results', ...store], { cwd: dir });
    expect(text.stdout).toContain('EXECUTION ERROR');
    expect(text.stdout).toContain('DQ_USER');
  });
});
