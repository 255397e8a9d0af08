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

  it('a missing secret variable is an execution error naming the variable, exit 4', async () => {
    const run = await runCli(['run', 'checks', ...store], { cwd: dir });
    expect(run.code).toBe(4);
    const text = await runCli(['results', ...store], { cwd: dir });
    expect(text.stdout).toContain('EXECUTION ERROR');
    expect(text.stdout).toContain('DQ_USER');
  });
});
