/**
 * The check runner end to end on a DuckDB connection over local CSV files (the store is PGlite):
 * `landing.orders` is a folder of two CSV files holding 6 rows, 2 of them with an empty (NULL) amount and 1
 * negative amount, counted by hand; a table of a schema without a folder fails its checks with the reason and
 * leaves the other table's results intact.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { runChecksExecutor } from '../../src/jobs/executors/runChecks.js';
import { runningJob } from '../helpers/jobs.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

describe('run checks on DuckDB files', () => {
  let fx: StoreFixture;
  let folder: string;
  let objects: LiveObjects;
  const dataSources = new DataSources({ env: {} });

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    folder = await mkdtemp(join(tmpdir(), 'dqctl-duckdb-run-'));
    await mkdir(join(folder, 'orders'));
    await writeFile(join(folder, 'orders', 'a.csv'), 'id,amount\n1,10\n2,\n3,-1\n');
    await writeFile(join(folder, 'orders', 'b.csv'), 'id,amount\n4,5\n5,\n6,7\n');
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const ctx = { caller: 'test' };
    await objects.create('source', 'files', { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'csv', directories: { landing: folder }, csv: { header: true } } }, ctx);
    const checks = {
      monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 10 } } } } },
      columns: { amount: { monitoring_checks: { daily: { nulls: { daily_nulls_count: { warning: { max_count: 0 } } }, numeric: { daily_negative_values: { error: { max_count: 0 } } } } } } },
    };
    await objects.create('table', 'files/landing.orders', checks, ctx);
    await objects.create('table', 'files/nowhere.orders', checks, ctx);
  });
  afterAll(async () => {
    await dataSources.close();
    await fx.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  it('measures the files, judges and stores the results; a table without a folder fails only its own checks', async () => {
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    const result = await run(runningJob('run_checks', { check_search_filters: { connection: 'files' } }), new AbortController().signal).catch((error: Error) => error);
    const rows = await fx.store.checkResults({ connectionName: 'files', schemaName: 'landing', tableName: 'orders' });
    const byCheck = Object.fromEntries(rows.map((r) => [`${r.columnName ?? ''}:${r.checkName}`, [r.actualValue, r.severity]]));
    expect(byCheck).toEqual({ ':daily_row_count': [6, 2], 'amount:daily_nulls_count': [2, 1], 'amount:daily_negative_values': [1, 2] });
    const failed = await fx.store.checkResults({ connectionName: 'files', schemaName: 'nowhere', tableName: 'orders' });
    expect(failed).toHaveLength(3);
    for (const row of failed) expect(row.errorMessage).toMatch(/the schema "nowhere" has no folder in duckdb.directories/);
    expect(result).toEqual({ highest_severity: 'error', executed_checks: 6, valid_results: 0, warnings: 1, errors: 2, fatals: 0, execution_errors: 3 });
  });
});
