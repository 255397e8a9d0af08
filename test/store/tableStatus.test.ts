/**
 * Each table's quality kept as results are written (src/store/tableStatus.ts, migration 0015): after every kind of
 * write (a run, a later run of the same check, an execution error, a readout without a verdict, a deletion of
 * stored data, an import of DQOps's history) the rows read are the hand-computed fold, and the same as a rebuild
 * from every stored result.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { stagedColumns } from '../../src/store/dqopsDataRows.js';
import { REBUILD_TABLE_STATUS } from '../../src/store/tableStatus.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

function result(table: string, checkName: string, severity: 0 | 1 | 2 | 3 | null, executedAt: string, extra: Partial<CheckResultInput> = {}): CheckResultInput {
  return {
    connectionName: 'c',
    schemaName: 'public',
    tableName: table,
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'volume',
    checkName,
    checkHash: 1,
    timePeriod: '2026-11-20T00:00:00.000Z',
    actualValue: 1,
    severity,
    executedAt,
    ...(severity === null ? { errorMessage: 'the sensor failed' } : {}),
    ...extra,
  };
}

const RUN1 = '2026-11-20T06:00:00.000Z';
const RUN2 = '2026-11-21T06:00:00.000Z';

describe.each(STORE_ENGINES)('$engine store: the status of each table, kept as results are written', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx?.dispose());
  beforeEach(() => fx.reset());

  /** The rows read, after checking they are what a rebuild from every stored result gives. */
  async function status() {
    const kept = await fx.store.tableSeverities();
    await fx.sql.exec(`begin; ${REBUILD_TABLE_STATUS} commit;`);
    expect(await fx.store.tableSeverities()).toEqual(kept);
    return kept.map((r) => ({ table: r.tableName, severity: r.severity, valid: r.valid, warnings: r.warnings, errors: r.errors, fatals: r.fatals, executionErrors: r.executionErrors, last: r.lastExecutedAt }));
  }

  it('folds the newest run of each check: a later run replaces, an execution error counts, a readout without verdict does not', async () => {
    await fx.store.insertCheckResults([result('t', 'row_count', 2, RUN1), result('t', 'nulls', 1, RUN1), result('u', 'row_count', 0, RUN1)]);
    expect(await status()).toEqual([
      { table: 't', severity: 2, valid: 0, warnings: 1, errors: 1, fatals: 0, executionErrors: 0, last: RUN1 },
      { table: 'u', severity: 0, valid: 1, warnings: 0, errors: 0, fatals: 0, executionErrors: 0, last: RUN1 },
    ]);
    // row_count runs again on t (another period, newer): its newest run is valid now; nulls keeps its warning
    await fx.store.insertCheckResults([result('t', 'row_count', 0, RUN2, { timePeriod: '2026-11-21T00:00:00.000Z' })]);
    // an execution error of a third check, and a readout without a verdict of a fourth (no result: not counted)
    await fx.store.insertCheckResults([result('t', 'freshness', null, RUN2), result('t', 'mean', 3, RUN2, { verdict: false })]);
    expect(await status()).toEqual([
      { table: 't', severity: 1, valid: 1, warnings: 1, errors: 0, fatals: 0, executionErrors: 1, last: RUN2 },
      { table: 'u', severity: 0, valid: 1, warnings: 0, errors: 0, fatals: 0, executionErrors: 0, last: RUN1 },
    ]);
    // u only had execution errors in its newest run: no severity, one error
    await fx.store.insertCheckResults([result('u', 'row_count', null, RUN2, { timePeriod: '2026-11-21T00:00:00.000Z' })]);
    expect((await status()).find((r) => r.table === 'u')).toEqual({ table: 'u', severity: null, valid: 0, warnings: 0, errors: 0, fatals: 0, executionErrors: 1, last: RUN2 });
  });

  it('a deletion of stored results refreshes the tables it touched: a table left without results has no row', async () => {
    await fx.store.insertCheckResults([result('t', 'row_count', 2, RUN1), result('t', 'nulls', 1, RUN2), result('u', 'row_count', 3, RUN1)]);
    await fx.store.deleteStoredData({ connection: 'c', table: { schema: 'public', table: 't' }, check: { checkName: 'nulls' }, checkResults: true, errors: false, errorSamples: false });
    expect(await status()).toEqual([
      { table: 't', severity: 2, valid: 0, warnings: 0, errors: 1, fatals: 0, executionErrors: 0, last: RUN1 },
      { table: 'u', severity: 3, valid: 0, warnings: 0, errors: 0, fatals: 1, executionErrors: 0, last: RUN1 },
    ]);
    await fx.store.deleteStoredData({ connection: 'c', fullTableName: 'public.u', checkResults: true, errors: true, errorSamples: false });
    expect((await status()).map((r) => r.table)).toEqual(['t']);
  });

  it('an import of DQOps history refreshes the tables it wrote, in its transaction', async () => {
    await fx.store.insertCheckResults([result('t', 'row_count', 0, RUN1)]);
    const row = {
      id: 'dqops-1', connection_name: 'c', schema_name: 'public', table_name: 't', column_name: null, check_type: 'monitoring', time_gradient: 'day',
      check_category: 'volume', check_name: 'nulls', check_hash: '2', sensor_name: null, quality_dimension: null, table_comparison: null,
      time_period: '2026-11-21 00:00:00', data_group_name: 'all data', actual_value: '5', expected_value: null, duration_ms: '1',
      executed_at: '2026-11-21 06:00:00', severity: '3',
    };
    // one staged CSV line: the kind's DQOps columns in stagedColumns order (empty: null), then its other columns
    const line = [...stagedColumns('check_results').map((column) => (row as Record<string, string | null>)[column] ?? ''), '{}'].map((v) => `"${v.replace(/"/g, '""')}"`.replace(/^""$/, '')).join(',');
    await fx.store.importDqopsData(async (tx) => {
      await tx.stage('check_results', `${line}\n`);
      await tx.merge();
    }, { dryRun: false });
    expect(await status()).toEqual([{ table: 't', severity: 3, valid: 1, warnings: 0, errors: 0, fatals: 1, executionErrors: 0, last: '2026-11-21T06:00:00.000Z' }]);
  });
});
