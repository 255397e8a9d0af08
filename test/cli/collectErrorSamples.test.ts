import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import { runCli } from '../helpers/cli.js';
import { writeSourceConnection } from '../helpers/sourceRepo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * `dqctl collect error-samples` through the real bin, on a real data source. The table has no primary key; its
 * table file marks "Line Nº" and "Région" as `id: true`, which wins over the column named id.
 */
describe('collect error-samples (real bin)', () => {
  let source: TestDatabase;
  let storeDb: TestDatabase;
  let dir: string;
  let store: string[];
  const env = () => ({ DQ_USER: decodeURIComponent(new URL(source.url).username) || 'postgres' });

  beforeAll(async () => {
    [source, storeDb] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query('create schema "Shop"');
    await client.query('create table "Shop"."Order Lines" (id int, "Région" text, "Line Nº" int, "Amount €" numeric, email text)');
    await client.query(`insert into "Shop"."Order Lines" values
      (100, 'EU', 1, 10, 'a@example.com'), (101, 'EU', 2, -3, 'not an address'), (102, 'US', 1, null, 'b@example.com'),
      (103, 'US', 2, -8, 'x@y'), (104, 'US', 3, -1, 'c@example.com')`);
    await client.end();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-samples-'));
    await writeSourceConnection(join(dir, 'repo'), 'db', source.url);
    await writeFile(
      join(dir, 'repo/sources/db/Shop.Order Lines.dqotable.yaml'),
      [
        'apiVersion: dqo/v1',
        'kind: table',
        'spec:',
        '  columns:',
        '    "Région":',
        '      id: true',
        '    "Line Nº":',
        '      id: true',
        '    "Amount €":',
        '      monitoring_checks:',
        '        daily:',
        '          numeric:',
        '            daily_negative_values:',
        '              error:',
        '                max_count: 0',
        '          nulls:',
        '            daily_nulls_count:',
        '              error:',
        '                max_count: 0',
        '    email:',
        '      monitoring_checks:',
        '        daily:',
        '          patterns:',
        '            daily_invalid_email_format_found:',
        '              error:',
        '                max_count: 0',
        '',
      ].join('\n'),
    );
    store = ['--database', storeDb.url];
    const applied = await runCli(['apply', join(dir, 'repo'), '--auto-approve', ...store], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([source.drop(), storeDb.drop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('collects and stores the samples with the id: true columns as row ids; a summary; --check, --limit and JSON', async () => {
    const run = await runCli(['collect', 'error-samples', '--connection', 'db', '--table', 'Shop.Order*', ...store], { cwd: dir, env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ok      db/Shop.Order Lines  3 checks, 6 samples');
    expect(run.stdout).toContain('Amount €: daily_negative_values: 3 samples');
    expect(run.stdout).toContain('3 samplers on 2 columns (2 fully analyzed), 6 samples stored, 0 samplers failed.');

    const opened = await openStore({ databaseUrl: storeDb.url });
    try {
      const samples = await opened.errorSamples({ connectionName: 'db', schemaName: 'Shop', tableName: 'Order Lines', columnName: 'Amount €', checkName: 'daily_negative_values' });
      expect(samples.map((s) => [s.result, s.resultDataType, s.rowId1, s.rowId2, s.rowId3])).toEqual([
        ['-3', 'float', 'EU', '2', null],
        ['-8', 'float', 'US', '2', null],
        ['-1', 'float', 'US', '3', null],
      ]);
      const emails = await opened.errorSamples({ connectionName: 'db', schemaName: 'Shop', tableName: 'Order Lines', columnName: 'email' });
      expect(emails.map((s) => s.result)).toEqual(['not an address', 'x@y']);
    } finally {
      await opened.close();
    }

    const json = await runCli(['collect', 'error-samples', '--check', 'daily_negative_values', '--limit', '1', '--format', 'json', ...store], { cwd: dir, env: env() });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.result).toEqual({ executed_error_samplers: 1, columns_analyzed: 1, columns_successfully_analyzed: 1, total_error_samplers_failed: 0, total_error_samples_collected: 1 });
    expect(report.tables[0].samplers).toEqual([{ check: 'daily_negative_values', column: 'Amount €', samples: 1 }]);
  }, 120_000);

  it('a sampler that cannot run: its reason, exit 4; an unknown check: exit 1', async () => {
    const failed = await runCli(['collect', 'error-samples', '--column', 'email', ...store], { cwd: dir });
    expect(failed.code).toBe(4); // part of the work failed on the data source (was 1, which also meant "dqctl failed")
    expect(failed.stdout).toContain('FAILED  db/Shop.Order Lines');
    expect(failed.stderr).toContain('Error: error sampling failed: all 1 error sampler failed: db/Shop.Order Lines:');
    expect(failed.stderr).toContain('DQ_USER');
    // a check name that exists nowhere is a typo, refused (it was exit 0, "nothing collected": the defect of issue 26)
    const none = await runCli(['collect', 'error-samples', '--check', 'no_such_check', ...store], { cwd: dir, env: env() });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('Error: --check: no check named "no_such_check"');
    const bad = await runCli(['collect', 'error-samples', '--limit', '0', ...store], { cwd: dir, env: env() });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--limit must be an integer');
  }, 120_000);
});
