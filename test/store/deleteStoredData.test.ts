import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResultInput, DeleteStoredDataRequest, ErrorSampleInput, StatisticsInput } from '../../src/store/store.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { rowCountResult } from '../helpers/checkResults.js';

/**
 * Delete stored data, filter by filter, on both engines: each filter narrows what goes and never widens it; the
 * check filters narrow the check rows only (statistics belong to no check), the collector filters statistics only.
 */
const result = rowCountResult;

const sample = (overrides: Partial<ErrorSampleInput>): ErrorSampleInput => ({
  connectionName: 'shop',
  schemaName: 'public',
  tableName: 'orders',
  columnName: 'email',
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'patterns',
  checkName: 'daily_invalid_email_format_found',
  checkHash: 2,
  sampleIndex: 0,
  result: 'x(at)y',
  collectedAt: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

const statistic = (overrides: Partial<StatisticsInput>): StatisticsInput => ({
  connectionName: 'shop',
  schemaName: 'public',
  tableName: 'orders',
  collectorCategory: 'volume',
  collectorName: 'row_count',
  resultDouble: 10,
  collectedAt: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

const NOTHING = { checkResults: false, errors: false, errorSamples: false, statistics: false };
const EVERYTHING = { checkResults: true, errors: true, errorSamples: true, statistics: true };

describe.each(STORE_ENGINES)('delete stored data ($engine)', (engine) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await engine.setup();
  });
  afterAll(async () => fx.dispose());

  beforeEach(async () => {
    await fx.reset();
    await fx.store.insertCheckResults([
      result({}),
      result({ checkName: 'daily_row_count_anomaly', checkCategory: 'volume', timePeriod: '2026-11-18T00:00:00.000Z' }),
      result({ checkType: 'profiling', timeGradient: 'month', checkName: 'profile_row_count', timePeriod: '2026-11-01T00:00:00.000Z' }),
      result({ columnName: 'email', checkCategory: 'nulls', checkName: 'daily_nulls_count', dataGroup: 'PL' }),
      result({ columnName: 'email', checkCategory: 'nulls', checkName: 'daily_nulls_count', dataGroup: 'DE' }),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', tableComparison: 'vs_dwh' }),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', tableComparison: 'vs_crm' }),
      result({ severity: null, errorMessage: 'sensor failed', checkName: 'daily_row_count' }),
      result({ tableName: 'customers' }),
    ]);
    await fx.store.insertErrorSamples([sample({}), sample({ collectedAt: '2026-11-10T10:00:00.000Z' }), sample({ checkName: 'daily_nulls_count', checkCategory: 'nulls' })]);
    await fx.store.insertStatistics([
      statistic({}),
      statistic({ columnName: 'email', collectorCategory: 'nulls', collectorName: 'nulls_count', resultDouble: 2 }),
      statistic({ columnName: 'email', collectorCategory: 'uniqueness', collectorName: 'distinct_count', resultDouble: 5, collectedAt: '2026-11-01T10:00:00.000Z' }),
    ]);
  });

  const remove = (request: Partial<DeleteStoredDataRequest>) => fx.store.deleteStoredData({ connection: 'shop', ...NOTHING, ...request });

  it('each check filter narrows the check rows (statistics belong to no check: they are not filtered by them)', async () => {
    expect(await remove({ checkResults: true, errors: true, errorSamples: true, check: { checkName: 'daily_row_count' } })).toEqual({ check_results: 2, errors: 1, error_samples: 0, statistics: 0 });
    expect(await remove({ checkResults: true, check: { tableComparisonName: 'vs_dwh' } })).toMatchObject({ check_results: 1 });
    expect(await remove({ checkResults: true, check: { checkType: 'profiling' } })).toMatchObject({ check_results: 1 });
    expect(await remove({ checkResults: true, errorSamples: true, check: { checkCategory: 'nulls' } })).toMatchObject({ check_results: 2, error_samples: 1 });
    expect(await remove({ checkResults: true, check: { timeGradient: 'week' } })).toMatchObject({ check_results: 0 });
    // what is left: the anomaly check and the other comparison
    const left = await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' });
    expect(left.map((r) => `${r.checkName}:${r.tableComparison ?? ''}`).sort()).toEqual(['daily_row_count_anomaly:', 'daily_row_count_match:vs_crm']);
    expect(await fx.store.latestStatistics({ connectionName: 'shop' })).toHaveLength(3);
    expect(await remove({ statistics: true, check: { checkName: 'daily_row_count' } })).toMatchObject({ statistics: 3 });
  });

  it('days, data groups, columns and tables narrow every kind', async () => {
    expect(await remove({ ...EVERYTHING, dateStart: '2026-11-19', dateEnd: '2026-11-20', fullTableName: 'public.orders', dataGroup: 'PL' })).toEqual({
      check_results: 1,
      errors: 0,
      error_samples: 0,
      statistics: 0,
    });
    // samples and statistics are dated by their collection
    expect(await remove({ errorSamples: true, statistics: true, dateEnd: '2026-11-15' })).toMatchObject({ error_samples: 1, statistics: 1 });
    expect(await remove({ checkResults: true, columnNames: ['email'] })).toMatchObject({ check_results: 1 });
    expect(await remove({ checkResults: true, fullTableName: 'public.cust*' })).toMatchObject({ check_results: 1 });
  });

  it('the collector filters narrow statistics only', async () => {
    expect(await remove({ ...EVERYTHING, collector: { collectorTarget: 'column' }, check: { checkName: 'nothing like this' } })).toEqual({
      check_results: 0,
      errors: 0,
      error_samples: 0,
      statistics: 2,
    });
    expect(await remove({ statistics: true, collector: { collectorName: 'row_count', collectorCategory: 'volume' } })).toMatchObject({ statistics: 1 });
    expect(await fx.store.latestStatistics({ connectionName: 'shop' })).toEqual([]);
  });

  it('hostile values are only values', async () => {
    expect(await remove({ ...EVERYTHING, check: { checkName: "x' or '1'='1" }, fullTableName: "public.o'; drop table dqctl.check_results; --" })).toEqual({
      check_results: 0,
      errors: 0,
      error_samples: 0,
      statistics: 0,
    });
    expect(await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' })).toHaveLength(8);
  });
});
