import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { csvField } from '../../src/app/results/errorSamplesCsv.js';
import { monthBound } from '../../src/app/results/resultsQuery.js';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import type { CheckResultInput, ErrorSampleInput } from '../../src/store/store.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Results: the store's check_results / error_samples reads on both engines, and every results route on a store
 * the examples were applied to, with rows inserted through the store.
 */
const ajv = new Ajv({ strict: false, allErrors: true });
for (const schema of apiSchemas()) ajv.addSchema(schema);
function expectValid(model: string, body: unknown): void {
  const validate = ajv.getSchema(model)!;
  const items = Array.isArray(body) ? body : [body];
  for (const item of items) {
    const ok = validate(item);
    expect(ok ? [] : validate.errors, `${model}: ${JSON.stringify(item)}`).toEqual([]);
  }
}

const ORDERS = { connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders' };

function result(over: Partial<CheckResultInput> = {}): CheckResultInput {
  return {
    ...ORDERS,
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'volume',
    checkName: 'daily_row_count',
    checkHash: 101,
    sensorName: 'table/volume/row_count',
    qualityDimension: 'Completeness',
    timePeriod: '2024-01-01T00:00:00.000Z',
    executedAt: '2024-01-02T03:00:00.000Z',
    severity: 0,
    actualValue: 10,
    ...over,
  };
}

function sample(over: Partial<ErrorSampleInput> = {}): ErrorSampleInput {
  return {
    ...ORDERS,
    columnName: 'order_status',
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'accepted_values',
    checkName: 'daily_text_found_in_set_percent',
    checkHash: 202,
    sensorName: 'column/accepted_values/text_found_in_set_percent',
    qualityDimension: 'Validity',
    sampleIndex: 0,
    result: 'x',
    resultDataType: 'string',
    collectedAt: '2024-01-05T00:00:00.000Z',
    executedAt: '2024-01-05T00:00:01.000Z',
    ...over,
  };
}

const day = (n: number, month = 1) => `2024-${String(month).padStart(2, '0')}-${String(n).padStart(2, '0')}T00:00:00.000Z`;

describe.each(STORE_ENGINES)('$engine store: check results and error samples', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.sql.exec('truncate dqctl.check_results, dqctl.error_samples, dqctl.table_status restart identity');
  });

  it('writes rows and reads them back with every field, defaults filled in', async () => {
    expect(await fx.store.insertCheckResults([result({ dataGroup: undefined, expectedValue: 5.5, durationMs: 12, tableComparison: 'cmp' })])).toBe(1);
    const [row] = await fx.store.checkResults(ORDERS);
    expect(row).toEqual({
      id: 1,
      ...ORDERS,
      columnName: null,
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'volume',
      checkName: 'daily_row_count',
      checkHash: 101,
      sensorName: 'table/volume/row_count',
      qualityDimension: 'Completeness',
      timePeriod: '2024-01-01T00:00:00.000Z',
      dataGroup: 'all data',
      actualValue: 10,
      expectedValue: 5.5,
      severity: 0,
      durationMs: 12,
      executedAt: '2024-01-02T03:00:00.000Z',
      tableComparison: 'cmp',
      errorMessage: null,
      verdict: true,
    });
    await fx.store.insertErrorSamples([sample({ executedAt: null, rowId1: '7' })]);
    const [s] = await fx.store.errorSamples(ORDERS);
    expect(s).toMatchObject({ id: 1, columnName: 'order_status', dataGroup: 'all data', sampleIndex: 0, result: 'x', rowId1: '7', rowId2: null, executedAt: null, collectedAt: '2024-01-05T00:00:00.000Z' });
  });

  it('filters by column scope, check, data group and months, and keeps the newest periods, rows or runs per check', async () => {
    await fx.store.insertCheckResults([
      ...[1, 2, 3, 4].map((n) => result({ timePeriod: day(n), executedAt: day(n + 1) })),
      result({ timePeriod: day(4), executedAt: day(6), dataGroup: 'eu', severity: 2 }),
      result({ columnName: 'order_id', checkCategory: 'nulls', checkName: 'daily_nulls_count', checkHash: 102, timePeriod: day(4) }),
      result({ timePeriod: day(3, 2), executedAt: day(4, 2), severity: null, errorMessage: 'boom' }),
      result({ tableName: 'customers', timePeriod: day(9) }),
    ]);
    const all = await fx.store.checkResults(ORDERS);
    expect(all).toHaveLength(7);
    // grouped by check (table-level first), newest period first, newest execution first
    expect(all.map((r) => [r.columnName, r.timePeriod.slice(0, 10), r.dataGroup])).toEqual([
      [null, '2024-02-03', 'all data'],
      [null, '2024-01-04', 'eu'],
      [null, '2024-01-04', 'all data'],
      [null, '2024-01-03', 'all data'],
      [null, '2024-01-02', 'all data'],
      [null, '2024-01-01', 'all data'],
      ['order_id', '2024-01-04', 'all data'],
    ]);
    expect(await fx.store.checkResults({ ...ORDERS, columnName: null })).toHaveLength(6);
    expect((await fx.store.checkResults({ ...ORDERS, columnName: 'order_id' })).map((r) => r.checkName)).toEqual(['daily_nulls_count']);
    expect(await fx.store.checkResults({ ...ORDERS, checkName: 'daily_nulls_count', columnName: null })).toEqual([]);
    expect(await fx.store.checkResults({ ...ORDERS, checkType: 'profiling' })).toEqual([]);
    expect(await fx.store.checkResults({ ...ORDERS, dataGroup: 'eu' })).toHaveLength(1);
    const january = await fx.store.checkResults({ ...ORDERS, timePeriodFrom: '2024-01-02T00:00:00Z', timePeriodTo: '2024-02-01T00:00:00Z', columnName: null });
    expect(january.map((r) => r.timePeriod.slice(0, 10))).toEqual(['2024-01-04', '2024-01-04', '2024-01-03', '2024-01-02']);
    expect((await fx.store.checkResults({ ...ORDERS, executionErrors: 'only' })).map((r) => r.errorMessage)).toEqual(['boom']);
    expect(await fx.store.checkResults({ ...ORDERS, executionErrors: 'exclude' })).toHaveLength(6);

    const periods = await fx.store.checkResults({ ...ORDERS, columnName: null, newest: { of: 'periods', count: 2 } });
    expect(periods.map((r) => [r.timePeriod.slice(0, 10), r.dataGroup])).toEqual([
      ['2024-02-03', 'all data'],
      ['2024-01-04', 'eu'],
      ['2024-01-04', 'all data'],
    ]);
    const rows = await fx.store.checkResults({ ...ORDERS, newest: { of: 'rows', count: 2 } });
    expect(rows.map((r) => [r.checkName, r.executedAt.slice(0, 10)])).toEqual([
      ['daily_row_count', '2024-02-04'],
      ['daily_row_count', '2024-01-06'],
      ['daily_nulls_count', '2024-01-02'],
    ]);
    const runs = await fx.store.checkResults({ ...ORDERS, executionErrors: 'exclude', newest: { of: 'runs', count: 1 } });
    expect(runs.map((r) => [r.checkName, r.dataGroup, r.executedAt.slice(0, 10)])).toEqual([
      ['daily_row_count', 'eu', '2024-01-06'],
      ['daily_nulls_count', 'all data', '2024-01-02'],
    ]);
  });

  it('keeps one result per check, time period and data group: a later run replaces it, an execution error is added', async () => {
    const at = (hour: number) => `2024-01-05T${String(hour).padStart(2, '0')}:00:00.000Z`;
    // the first run of the day: a failure and a readout the rules gave no verdict on, in two data groups
    await fx.store.insertCheckResults([
      result({ timePeriod: day(5), executedAt: at(8), dataGroup: 'eu', severity: 2, actualValue: 1, expectedValue: 10, durationMs: 80 }),
      result({ timePeriod: day(5), executedAt: at(8), dataGroup: 'us', severity: 0, actualValue: 2, verdict: false }),
      result({ timePeriod: day(4), executedAt: at(8), dataGroup: 'eu', severity: 0, actualValue: 40 }),
    ]);
    const [first] = await fx.store.checkResults({ ...ORDERS, dataGroup: 'eu', timePeriodFrom: day(5) });
    // the second run of the same day: every row of the first is replaced, in place
    await fx.store.insertCheckResults([
      result({ timePeriod: day(5), executedAt: at(10), dataGroup: 'eu', severity: 0, actualValue: 9, expectedValue: null, durationMs: 12, ruleActualValue: 4 }),
      result({ timePeriod: day(5), executedAt: at(10), dataGroup: 'us', severity: 1, actualValue: 3 }),
    ]);
    const results = await fx.store.checkResults(ORDERS);
    expect(results.map((r) => [r.timePeriod.slice(0, 10), r.dataGroup, r.executedAt, r.severity, r.actualValue, r.expectedValue, r.durationMs, r.verdict])).toEqual([
      ['2024-01-05', 'us', at(10), 1, 3, null, null, true],
      ['2024-01-05', 'eu', at(10), 0, 4, null, 12, true],
      ['2024-01-04', 'eu', at(8), 0, 40, null, null, true],
    ]);
    expect(results.find((r) => r.dataGroup === 'eu' && r.timePeriod === day(5))!.id).toBe(first.id);
    // the rules' history (readouts) sees one readout per period and data group: the sensor's newest value
    const history = await fx.store.checkResults({ ...ORDERS, dataGroup: 'eu', executionErrors: 'exclude', read: 'readouts' });
    expect(history.map((r) => [r.timePeriod.slice(0, 10), r.actualValue])).toEqual([['2024-01-05', 9], ['2024-01-04', 40]]);
    expect((await fx.store.backtestReadouts('monitoring', [{ ...ORDERS, columnName: null, timeGradient: 'day', checkName: 'daily_row_count', tableComparison: null }], day(1))).map((r) => [r.timePeriod.slice(0, 10), r.dataGroup, r.actualValue, r.severity])).toEqual([
      ['2024-01-04', 'eu', 40, 0],
      ['2024-01-05', 'eu', 9, 0],
      ['2024-01-05', 'us', 3, 1],
    ]);

    // a run older than the stored row (a slow run finishing late) replaces nothing
    await fx.store.insertCheckResults([result({ timePeriod: day(5), executedAt: at(9), dataGroup: 'us', severity: 3, actualValue: 99 })]);
    // an execution error is a row of its own, every time, and replaces no result
    await fx.store.insertCheckResults([result({ timePeriod: day(5), executedAt: at(11), dataGroup: 'us', severity: null, errorMessage: 'timeout' })]);
    await fx.store.insertCheckResults([result({ timePeriod: day(5), executedAt: at(12), dataGroup: 'us', severity: null, errorMessage: 'timeout' })]);
    const us = await fx.store.checkResults({ ...ORDERS, dataGroup: 'us' });
    expect(us.map((r) => [r.executedAt, r.severity, r.errorMessage])).toEqual([
      [at(12), null, 'timeout'],
      [at(11), null, 'timeout'],
      [at(10), 1, null],
    ]);
    // one batch naming a key twice stores its newest row (the later one on a tie)
    await fx.store.insertCheckResults([
      result({ timePeriod: day(6), executedAt: at(14), severity: 2, actualValue: 1 }),
      result({ timePeriod: day(6), executedAt: at(13), severity: 3, actualValue: 2 }),
      result({ timePeriod: day(7), executedAt: at(13), severity: 1, actualValue: 3 }),
      result({ timePeriod: day(7), executedAt: at(13), severity: 0, actualValue: 4 }),
    ]);
    const batch = await fx.store.checkResults({ ...ORDERS, timePeriodFrom: day(6) });
    expect(batch.map((r) => [r.timePeriod.slice(0, 10), r.actualValue])).toEqual([['2024-01-07', 4], ['2024-01-06', 1]]);
  });

  it('reads error samples newest collection first, in sample order, at most N per check', async () => {
    await fx.store.insertErrorSamples([
      ...[0, 1, 2].map((i) => sample({ sampleIndex: i, result: `old${i}`, collectedAt: day(1) })),
      ...[0, 1, 2].map((i) => sample({ sampleIndex: i, result: `new${i}`, collectedAt: day(2) })),
      sample({ columnName: null, checkName: 'daily_row_count', checkCategory: 'volume', checkHash: 9, result: 'table' }),
    ]);
    const newest = await fx.store.errorSamples({ ...ORDERS, columnName: 'order_status', newestPerCheck: 4 });
    expect(newest.map((r) => r.result)).toEqual(['new0', 'new1', 'new2', 'old0']);
    expect((await fx.store.errorSamples({ ...ORDERS, columnName: null })).map((r) => r.result)).toEqual(['table']);
    const firstDay = await fx.store.errorSamples({ ...ORDERS, collectedFrom: day(1), collectedTo: day(2) });
    expect(firstDay.map((r) => r.result)).toEqual(['old0', 'old1', 'old2']);
  });

  it('refuses rows it could not give back intact, and writes all rows of an insert or none', async () => {
    await expect(fx.store.insertCheckResults([result({ checkHash: 2 ** 60 })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(fx.store.insertCheckResults([result({ severity: 4 as never })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(fx.store.insertCheckResults([result({ severity: null })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(fx.store.insertCheckResults([result(), result({ checkType: 'weekly' as never })])).rejects.toThrow();
    expect(await fx.store.checkResults(ORDERS)).toEqual([]);
    await expect(fx.store.checkResults({ ...ORDERS, newest: { of: 'rows', count: 0 } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // values are bound, never spliced: a hostile name is just a name
    await fx.store.insertCheckResults([result({ tableName: "x'; drop table dqctl.check_results; --" })]);
    expect(await fx.store.checkResults({ ...ORDERS, tableName: "x'; drop table dqctl.check_results; --" })).toHaveLength(1);
  });
});

describe('results API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const TABLE = '/api/connections/shop_oltp/schemas/public/tables/orders';
  const COLUMN = `${TABLE}/columns/order_status`;

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    await fx.store.insertCheckResults([
      // daily_row_count: 7 days; day 5 only an execution error; day 6 re-run (fatal, then valid); day 7 two data groups
      ...[1, 2, 3, 4].map((n) => result({ timePeriod: day(n), executedAt: day(n + 1), actualValue: n * 100, severity: n === 4 ? 1 : 0 })),
      result({ timePeriod: day(5), executedAt: day(6), severity: null, actualValue: null, errorMessage: 'connection refused' }),
      result({ timePeriod: day(6), executedAt: '2024-01-07T01:00:00.000Z', severity: 3, actualValue: 0 }),
      result({ timePeriod: day(6), executedAt: '2024-01-07T02:00:00.000Z', severity: 0, actualValue: 600 }),
      result({ timePeriod: day(7), executedAt: day(8), dataGroup: 'eu', severity: 0, actualValue: 350 }),
      result({ timePeriod: day(7), executedAt: day(8), dataGroup: 'us', severity: 2, actualValue: 3 }),
      // another table check, its category and display name from the table file
      result({ checkCategory: 'custom_sql', checkName: 'daily_sql_condition_failed_on_table', checkHash: 103, timePeriod: day(7), executedAt: day(8), severity: 1, actualValue: 2 }),
      // execution errors over two months
      ...[10, 11, 12].map((n) =>
        result({ checkCategory: 'custom_sql', checkName: 'daily_sql_condition_failed_on_table', checkHash: 103, timePeriod: day(n), executedAt: day(n), severity: null, errorMessage: `syntax error ${n}` }),
      ),
      result({ checkCategory: 'custom_sql', checkName: 'daily_sql_condition_failed_on_table', checkHash: 103, timePeriod: day(3, 2), executedAt: day(3, 2), severity: null, errorMessage: 'february', dataGroup: 'eu' }),
      // a monthly, a profiling, a partitioned and a column result
      result({ timeGradient: 'month', checkName: 'monthly_row_count', checkHash: 104, timePeriod: day(1) }),
      result({ checkType: 'profiling', timeGradient: 'month', checkName: 'profile_row_count', checkHash: 105, timePeriod: day(1) }),
      result({ checkType: 'partitioned', checkName: 'daily_partition_row_count', checkHash: 106, timePeriod: day(1) }),
      result({ columnName: 'order_status', checkCategory: 'accepted_values', checkName: 'daily_text_found_in_set_percent', checkHash: 202, timePeriod: day(1), actualValue: 99.5, severity: 2 }),
      // a table comparison: an old run, then the newest one
      ...['eu', 'us'].map((g) => result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', checkHash: 301, tableComparison: 'vs_dwh', dataGroup: g, timePeriod: day(1), executedAt: day(2), severity: 3 })),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', checkHash: 301, tableComparison: 'vs_dwh', dataGroup: 'eu', timePeriod: day(2), executedAt: day(3), severity: 0 }),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', checkHash: 301, tableComparison: 'vs_dwh', dataGroup: 'us', timePeriod: day(2), executedAt: day(3), severity: 2 }),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', checkHash: 301, tableComparison: 'vs_dwh', dataGroup: 'asia', timePeriod: day(2), executedAt: day(3), severity: null, errorMessage: 'timeout' }),
      result({ columnName: 'order_total', checkCategory: 'comparisons', checkName: 'daily_sum_match', checkHash: 302, tableComparison: 'vs_dwh', dataGroup: 'us', timePeriod: day(2), executedAt: day(3), severity: 3 }),
      result({ checkCategory: 'comparisons', checkName: 'daily_row_count_match', checkHash: 303, tableComparison: 'other', timePeriod: day(2), executedAt: day(3), severity: 1 }),
    ]);
    await fx.store.insertErrorSamples([
      ...['=cmd|"/c calc"!A1', 'a,b', 'say "hi"', 'line\nbreak', '-5', '@SUM(A1)', '+1.5e3', '-2+3'].map((value, i) =>
        sample({ sampleIndex: i, result: value, rowId1: String(1000 + i) }),
      ),
      ...[0, 1].map((i) => sample({ sampleIndex: i, result: `older ${i}`, collectedAt: '2023-12-05T00:00:00.000Z', dataGroup: 'eu' })),
      sample({ columnName: null, checkCategory: 'volume', checkName: 'daily_row_count', checkHash: 101, result: 'table-level' }),
      sample({ checkType: 'profiling', timeGradient: 'month', checkName: 'profile_text_found_in_set_percent', checkHash: 203, result: 'profiled' }),
    ]);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  describe('overview', () => {
    it('shows the newest 5 periods of each table check, oldest first, the worst data group of each', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview` });
      expect(status).toBe(200);
      expectValid('CheckResultsOverviewDataModel', body);
      const rowCount = body.find((c: any) => c.checkName === 'daily_row_count');
      expect(rowCount).toEqual({
        checkHash: 101,
        checkCategory: 'volume',
        checkName: 'daily_row_count',
        timePeriods: [3, 4, 5, 6, 7].map((n) => day(n).slice(0, 19)),
        timePeriodsUtc: [3, 4, 5, 6, 7].map((n) => Date.parse(day(n))),
        executedAtTimestamps: [day(4), day(5), day(6), '2024-01-07T02:00:00.000Z', day(8)].map(Date.parse),
        timePeriodDisplayTexts: ['2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'],
        statuses: ['valid', 'warning', 'execution_error', 'valid', 'error'],
        dataGroups: ['all data', 'all data', 'all data', 'all data', 'us'],
        results: [300, 400, null, 600, 3],
      });
      // table-level checks only, of this time scale and type; comparisons carry their name
      const names = body.map((c: any) => c.checkName).sort();
      expect(names).toEqual(['daily_row_count', 'daily_row_count_match', 'daily_row_count_match', 'daily_sql_condition_failed_on_table']);
      expect(body.filter((c: any) => c.checkName === 'daily_row_count_match').map((c: any) => c.comparisonName).sort()).toEqual(['other', 'vs_dwh']);
    });

    it('filters by category, check name and results count in both spellings', async () => {
      const two = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview?check_name=daily_row_count&results_count=2` });
      expect(two.body).toHaveLength(1);
      expect(two.body[0].statuses).toEqual(['valid', 'error']);
      const camel = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview?checkName=daily_row_count&resultsCount=1` });
      expect(camel.body[0].timePeriodDisplayTexts).toEqual(['2024-01-07']);
      const category = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview?category=custom_sql` });
      expect(category.body.map((c: any) => c.checkName)).toEqual(['daily_sql_condition_failed_on_table']);
      const disagree = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview?results_count=2&resultsCount=3` });
      expect(disagree.status).toBe(400);
      for (const bad of ['results_count=0', 'results_count=abc', 'resultsCount=-1']) {
        const response = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/overview?${bad}` });
        expect(response.status, bad).toBe(400);
        expect(response.body.code).toBe('BODY_INVALID');
      }
    });

    it('keeps monthly, profiling, partitioned and column results apart', async () => {
      const monthly = await call(app, { method: 'GET', url: `${TABLE}/monitoring/monthly/overview` });
      expect(monthly.body.map((c: any) => c.checkName)).toEqual(['monthly_row_count']);
      expect(monthly.body[0].timePeriodDisplayTexts).toEqual(['2024-01']);
      const profiling = await call(app, { method: 'GET', url: `${TABLE}/profiling/overview` });
      expect(profiling.body.map((c: any) => c.checkName)).toEqual(['profile_row_count']);
      const partitioned = await call(app, { method: 'GET', url: `${TABLE}/partitioned/daily/overview` });
      expect(partitioned.body.map((c: any) => c.checkName)).toEqual(['daily_partition_row_count']);
      const column = await call(app, { method: 'GET', url: `${COLUMN}/monitoring/daily/overview` });
      expect(column.status).toBe(200);
      expectValid('CheckResultsOverviewDataModel', column.body);
      expect(column.body).toEqual([expect.objectContaining({ checkName: 'daily_text_found_in_set_percent', statuses: ['error'], results: [99.5] })]);
      for (const url of [`${COLUMN}/profiling/overview`, `${COLUMN}/partitioned/monthly/overview`, `${TABLE}/columns/order_id/monitoring/daily/overview`]) {
        expect((await call(app, { method: 'GET', url })).body, url).toEqual([]);
      }
    });
  });

  describe('execution errors', () => {
    const ERRORS = `${TABLE}/monitoring/daily/errors`;

    it('lists the execution errors of each check, newest first, with the check display name and provider', async () => {
      const { status, body } = await call(app, { method: 'GET', url: ERRORS });
      expect(status).toBe(200);
      expectValid('ErrorsListModel', body);
      const sql = body.find((c: any) => c.checkName === 'daily_sql_condition_failed_on_table');
      expect(sql).toMatchObject({
        checkDisplayName: 'shipped orders must have been paid',
        checkType: 'monitoring',
        checkHash: 103,
        checkCategory: 'custom_sql',
        dataGroupsNames: ['all data', 'eu'],
      });
      expect(sql.dataGroup).toBeUndefined();
      expect(sql.errorEntries.map((e: any) => e.errorMessage)).toEqual(['february', 'syntax error 12', 'syntax error 11', 'syntax error 10']);
      expect(sql.errorEntries[0]).toEqual({
        dataGroup: 'eu',
        checkType: 'monitoring',
        executedAt: Date.parse(day(3, 2)),
        timeGradient: 'day',
        timePeriod: '2024-02-03T00:00:00',
        provider: 'postgresql',
        qualityDimension: 'Completeness',
        sensorName: 'table/volume/row_count',
        readoutId: expect.any(String),
        errorMessage: 'february',
        errorTimestamp: day(3, 2),
        actualValue: 10,
      });
      const rowCount = body.find((c: any) => c.checkName === 'daily_row_count');
      expect(rowCount.errorEntries.map((e: any) => e.errorMessage)).toEqual(['connection refused']);
      expect(rowCount.checkDisplayName).toBeUndefined();
      // the comparison's execution error is there too, named by its comparison
      expect(body.find((c: any) => c.checkName === 'daily_row_count_match').errorEntries[0]).toMatchObject({ tableComparison: 'vs_dwh', dataGroup: 'asia' });
    });

    it('bounds months, data group, check, category, comparison and the count per check', async () => {
      const messages = async (query: string) => {
        const { status, body } = await call(app, { method: 'GET', url: `${ERRORS}?${query}` });
        expect(status, query).toBe(200);
        return body.flatMap((c: any) => c.errorEntries.map((e: any) => e.errorMessage));
      };
      const sqlOnly = 'check_name=daily_sql_condition_failed_on_table';
      expect(await messages(`${sqlOnly}&month_start=2024-02`)).toEqual(['february']);
      expect(await messages(`${sqlOnly}&monthStart=2024-02-15`)).toEqual(['february']);
      expect(await messages(`${sqlOnly}&month_end=2024-01-31`)).toEqual(['syntax error 12', 'syntax error 11', 'syntax error 10']);
      expect(await messages(`${sqlOnly}&month_start=2024-01&month_end=2024-01`)).toHaveLength(3);
      expect(await messages(`${sqlOnly}&month_start=2023-01&month_end=2023-12`)).toEqual([]);
      expect(await messages(`${sqlOnly}&max_results_per_check=2`)).toEqual(['february', 'syntax error 12']);
      expect(await messages(`${sqlOnly}&maxResultsPerCheck=1`)).toEqual(['february']);
      expect(await messages('data_group=eu')).toEqual(['february']);
      expect(await messages('dataGroup=asia')).toEqual(['timeout']);
      expect(await messages('category=volume')).toEqual(['connection refused']);
      expect(await messages('checkName=daily_row_count')).toEqual(['connection refused']);
      expect(await messages('table_comparison=vs_dwh')).toEqual(['timeout']);
      expect(await messages('tableComparison=nothing')).toEqual([]);
      const filtered = await call(app, { method: 'GET', url: `${ERRORS}?data_group=eu` });
      expect(filtered.body[0]).toMatchObject({ dataGroup: 'eu', dataGroupsNames: ['eu'] });
      // other types and levels have their own errors
      expect((await call(app, { method: 'GET', url: `${TABLE}/profiling/errors` })).body).toEqual([]);
      expect((await call(app, { method: 'GET', url: `${TABLE}/partitioned/daily/errors` })).body).toEqual([]);
      expect((await call(app, { method: 'GET', url: `${COLUMN}/monitoring/daily/errors` })).body).toEqual([]);
    });

    it('refuses month bounds that are not YYYY-MM or YYYY-MM-DD, or the wrong way round', async () => {
      for (const query of ['month_start=2024-13', 'month_start=2024-1', 'month_end=abc', 'month_end=2024-02-30', 'monthStart=2024-01-01T00:00', 'month_start=2024-03&month_end=2024-02']) {
        const { status, body } = await call(app, { method: 'GET', url: `${ERRORS}?${query}` });
        expect(status, query).toBe(400);
        expect(body.code).toBe('INVALID_ARGUMENT');
      }
      expect(monthBound('2024-02-29', 'm', false)).toBe('2024-02-01T00:00:00.000Z');
      expect(monthBound('2024-12', 'm', true)).toBe('2025-01-01T00:00:00.000Z');
      expect(() => monthBound('2023-02-29', 'm', false)).toThrow(/YYYY-MM/);
    });
  });

  describe('error samples', () => {
    it('lists the samples of each check, newest collection first, at most max_results_per_check', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${COLUMN}/monitoring/daily/errorsamples` });
      expect(status).toBe(200);
      expectValid('ErrorSamplesListModel', body);
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({
        checkName: 'daily_text_found_in_set_percent',
        checkType: 'monitoring',
        checkHash: 202,
        checkCategory: 'accepted_values',
        dataGroupsNames: ['all data', 'eu'],
      });
      expect(body[0].errorSamplesEntries).toHaveLength(10);
      expect(body[0].errorSamplesEntries[0]).toEqual({
        id: expect.any(String),
        result: '=cmd|"/c calc"!A1',
        resultDataType: 'string',
        collectedAt: '2024-01-05T00:00:00',
        sampleIndex: 0,
        checkType: 'monitoring',
        timeGradient: 'day',
        executedAt: Date.parse('2024-01-05T00:00:01.000Z'),
        rowId1: '1000',
        columnName: 'order_status',
        dataGroup: 'all data',
        provider: 'postgresql',
        qualityDimension: 'Validity',
        sensorName: 'column/accepted_values/text_found_in_set_percent',
      });
      const limited = await call(app, { method: 'GET', url: `${COLUMN}/monitoring/daily/errorsamples?max_results_per_check=3` });
      expect(limited.body[0].errorSamplesEntries.map((e: any) => e.sampleIndex)).toEqual([0, 1, 2]);
      const february = await call(app, { method: 'GET', url: `${COLUMN}/monitoring/daily/errorsamples?monthEnd=2023-12&dataGroup=eu` });
      expect(february.body[0].errorSamplesEntries.map((e: any) => e.result)).toEqual(['older 0', 'older 1']);
      const table = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/errorsamples` });
      expect(table.body.map((c: any) => c.errorSamplesEntries.map((e: any) => e.result))).toEqual([['table-level']]);
      const profiling = await call(app, { method: 'GET', url: `${COLUMN}/profiling/errorsamples` });
      expect(profiling.body[0].errorSamplesEntries.map((e: any) => e.result)).toEqual(['profiled']);
      expect((await call(app, { method: 'GET', url: `${COLUMN}/partitioned/daily/errorsamples` })).body).toEqual([]);
    });

    it('downloads the samples as CSV with RFC 4180 quoting and a spreadsheet formula guard', async () => {
      const response = await app.inject({ method: 'GET', url: `${COLUMN}/monitoring/daily/errorsamples/download?month_start=2024-01` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toBe('attachment; filename="shop_oltp_public_orders_order_status_error_samples.csv"');
      const lines = response.body.split('\r\n');
      expect(lines[0]).toBe(
        'checkName,checkCategory,checkType,timeGradient,columnName,dataGroup,sampleIndex,result,resultDataType,rowId1,rowId2,rowId3,rowId4,rowId5,collectedAt,executedAt,sensorName,qualityDimension,tableComparison',
      );
      const prefix = 'daily_text_found_in_set_percent,accepted_values,monitoring,day,order_status,all data,';
      const suffix = (i: number) => `,string,${1000 + i},,,,,2024-01-05T00:00:00.000Z,2024-01-05T00:00:01.000Z,column/accepted_values/text_found_in_set_percent,Validity,`;
      expect(lines[1]).toBe(`${prefix}0,"'=cmd|""/c calc""!A1"${suffix(0)}`);
      expect(lines[2]).toBe(`${prefix}1,"a,b"${suffix(1)}`);
      expect(lines[3]).toBe(`${prefix}2,"say ""hi"""${suffix(2)}`);
      expect(lines[4]).toBe(`${prefix}3,"line\nbreak"${suffix(3)}`);
      expect(lines[5]).toBe(`${prefix}4,-5${suffix(4)}`);
      expect(lines[6]).toBe(`${prefix}5,'@SUM(A1)${suffix(5)}`);
      expect(lines[7]).toBe(`${prefix}6,+1.5e3${suffix(6)}`);
      expect(lines[8]).toBe(`${prefix}7,'-2+3${suffix(7)}`);
      expect(lines[9]).toBe('');
      expect(lines).toHaveLength(10);
    });

    it('serves the CSV for tables and every check type', async () => {
      for (const url of [`${TABLE}/profiling/errorsamples/download`, `${TABLE}/monitoring/daily/errorsamples/download`, `${TABLE}/partitioned/monthly/errorsamples/download`, `${COLUMN}/profiling/errorsamples/download`, `${COLUMN}/partitioned/daily/errorsamples/download`]) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.body.startsWith('checkName,checkCategory,'), url).toBe(true);
      }
      const table = await app.inject({ method: 'GET', url: `${TABLE}/monitoring/daily/errorsamples/download` });
      expect(table.body.split('\r\n')[1]).toContain(',table-level,');
      expect(table.headers['content-disposition']).toBe('attachment; filename="shop_oltp_public_orders_error_samples.csv"');
    });

    it('guards fields as documented', () => {
      expect(csvField(null)).toBe('');
      expect(csvField(3)).toBe('3');
      expect(csvField('plain')).toBe('plain');
      expect(csvField('=1+1')).toBe("'=1+1");
      expect(csvField('\tcmd')).toBe("'\tcmd");
      expect(csvField('-1.5')).toBe('-1.5');
      expect(csvField('+x,y')).toBe(`"'+x,y"`);
      expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    });
  });

  describe('table comparison results', () => {
    it('counts the newest run of each comparison check, for the table and its columns', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/comparisons/vs_dwh/results` });
      expect(status).toBe(200);
      expectValid('TableComparisonResultsModel', body);
      expect(body).toEqual({
        table_comparison_results: {
          daily_row_count_match: {
            check_name: 'daily_row_count_match',
            executed_at: Date.parse(day(3)),
            valid_results: 1,
            warnings: 0,
            errors: 1,
            fatals: 0,
            execution_errors: 1,
            not_matching_data_groups: ['us'],
          },
        },
        column_comparison_results: {
          order_total: {
            column_name: 'order_total',
            column_comparison_results: {
              daily_sum_match: {
                check_name: 'daily_sum_match',
                executed_at: Date.parse(day(3)),
                valid_results: 0,
                warnings: 0,
                errors: 0,
                fatals: 1,
                execution_errors: 0,
                not_matching_data_groups: ['us'],
              },
            },
          },
        },
      });
      const other = await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily/comparisons/other/results` });
      expect(other.body.table_comparison_results.daily_row_count_match).toMatchObject({ warnings: 1, not_matching_data_groups: ['all data'] });
      for (const url of [`${TABLE}/profiling/comparisons/vs_dwh/results`, `${TABLE}/partitioned/daily/comparisons/vs_dwh/results`, `${TABLE}/monitoring/monthly/comparisons/vs_dwh/results`, `${TABLE}/monitoring/daily/comparisons/none/results`]) {
        const empty = await call(app, { method: 'GET', url });
        expect(empty.status, url).toBe(200);
        expect(empty.body, url).toEqual({ table_comparison_results: {}, column_comparison_results: {} });
      }
    });
  });

  describe('errors of the request', () => {
    const suffixes = ['profiling/overview', 'monitoring/daily/errors', 'partitioned/monthly/errorsamples', 'profiling/errorsamples/download'];

    it('answers 404 for an unknown connection, table or column, naming it', async () => {
      for (const suffix of suffixes) {
        const connection = await call(app, { method: 'GET', url: `/api/connections/nope/schemas/public/tables/orders/${suffix}` });
        expect(connection.status, suffix).toBe(404);
        expect(connection.body.message).toContain('connection "nope"');
        const table = await call(app, { method: 'GET', url: `/api/connections/shop_oltp/schemas/public/tables/nope/${suffix}` });
        expect(table.status, suffix).toBe(404);
        expect(table.body.message).toContain('table "public.nope"');
        const schema = await call(app, { method: 'GET', url: `/api/connections/shop_oltp/schemas/nope/tables/orders/${suffix}` });
        expect(schema.status, suffix).toBe(404);
        const column = await call(app, { method: 'GET', url: `${TABLE}/columns/nope/${suffix}` });
        expect(column.status, suffix).toBe(404);
        expect(column.body.message).toContain('column "nope"');
      }
      expect((await call(app, { method: 'GET', url: '/api/connections/nope/schemas/public/tables/orders/profiling/comparisons/vs_dwh/results' })).status).toBe(404);
    });

    it('answers 400 for hostile names and a time scale that is not daily or monthly', async () => {
      const long = 'x'.repeat(1100);
      for (const url of [
        `/api/connections/..%2F..%2Fetc/schemas/public/tables/orders/profiling/overview`,
        `/api/connections/shop_oltp/schemas/public/tables/a%00b/profiling/overview`,
        `/api/connections/shop_oltp/schemas/public/tables/${long}/profiling/errors`,
        `/api/connections/shop_oltp/schemas/pub.lic/tables/orders/profiling/errors`,
        `${TABLE}/columns/..%2Fx/profiling/errorsamples`,
        `${TABLE}/profiling/comparisons/..%2Fx/results`,
      ]) {
        const response = await call(app, { method: 'GET', url });
        expect(response.status, url).toBe(400);
        expect(response.body.code).toBe('INVALID_ARGUMENT');
      }
      for (const url of [`${TABLE}/monitoring/weekly/overview`, `${COLUMN}/partitioned/hourly/errors`, `${TABLE}/monitoring/yearly/comparisons/vs_dwh/results`]) {
        const response = await call(app, { method: 'GET', url });
        expect(response.status, url).toBe(400);
        expect(response.raw).not.toMatch(/\bat \//);
      }
    });
  });
});
