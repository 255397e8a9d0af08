import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import type { CheckResultInput, ErrorSampleInput, StatisticsInput } from '../../src/store/store.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * A DELETE of a connection, table or column answers 200 with the id of a job (DqoQueueJobId, as DQOps) that
 * deletes the stored data of exactly what was deleted: check results, execution errors, error samples and
 * statistics. Names holding `*`, `.` and quotes are matched exactly, never as patterns.
 */
const TABLES = [
  ['shop', 'public', 'a*'],
  ['shop', 'public', 'ab'],
  ['shop', 'sales eu', 'orders.v2 "x"'],
  ['shop_other', 'public', 'a*'],
] as const;

const result = (connectionName: string, schemaName: string, tableName: string, columnName?: string): CheckResultInput => ({
  connectionName,
  schemaName,
  tableName,
  ...(columnName ? { columnName } : {}),
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'volume',
  checkName: columnName ? 'daily_nulls_count' : 'daily_row_count',
  checkHash: 7,
  timePeriod: '2026-11-20T00:00:00.000Z',
  actualValue: 1,
  severity: 0,
});
const failure = (c: string, s: string, t: string): CheckResultInput => ({ ...result(c, s, t), checkName: 'daily_row_count_change', severity: null, errorMessage: 'sensor failed' });
const sample = (connectionName: string, schemaName: string, tableName: string, columnName: string): ErrorSampleInput => ({
  connectionName,
  schemaName,
  tableName,
  columnName,
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'nulls',
  checkName: 'daily_nulls_count',
  checkHash: 8,
  sampleIndex: 0,
  result: 'null',
  collectedAt: '2026-11-20T10:00:00.000Z',
});
const statistic = (connectionName: string, schemaName: string, tableName: string, columnName?: string): StatisticsInput => ({
  connectionName,
  schemaName,
  tableName,
  ...(columnName ? { columnName } : {}),
  collectorCategory: 'volume',
  collectorName: 'row_count',
  resultDouble: 3,
  collectedAt: '2026-11-20T10:00:00.000Z',
});

describe.each(STORE_ENGINES)('DELETE of a connection, table or column deletes its stored data through a job ($engine)', (engine) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const writer = { caller: 'test' };

  beforeAll(async () => {
    fx = await engine.setup();
  });
  afterAll(async () => {
    await app?.close();
    await fx.dispose();
  });
  beforeEach(async () => {
    await app?.close();
    await fx.reset();
    const objects = new LiveObjects(fx.store);
    for (const connection of ['shop', 'shop_other']) await objects.create('source', connection, { provider_type: 'postgresql' }, writer);
    for (const [c, s, t] of TABLES) await objects.create('table', `${c}/${s}.${t}`, { columns: { id: {}, email: {} } }, writer);
    for (const [c, s, t] of TABLES) {
      await fx.store.insertCheckResults([result(c, s, t), result(c, s, t, 'id'), result(c, s, t, 'email'), failure(c, s, t)]);
      await fx.store.insertErrorSamples([sample(c, s, t, 'id'), sample(c, s, t, 'email')]);
      await fx.store.insertStatistics([statistic(c, s, t), statistic(c, s, t, 'id'), statistic(c, s, t, 'email')]);
    }
    app = await serverOn(fx.store);
  });

  /** What is stored for a table: check rows (results and errors), samples and statistics, each as `column:name`. */
  async function storedOf(connectionName: string, schemaName: string, tableName: string): Promise<string[]> {
    const key = { connectionName, schemaName, tableName };
    const results = (await fx.store.checkResults(key)).map((r) => `result ${r.columnName ?? ''}:${r.checkName}`);
    const samples = (await fx.store.errorSamples(key)).map((r) => `sample ${r.columnName ?? ''}`);
    const statistics = (await fx.store.latestStatistics(key)).map((r) => `statistic ${r.columnName ?? ''}`);
    return [...results, ...samples, ...statistics].sort();
  }
  const EVERYTHING = [
    'result :daily_row_count',
    'result :daily_row_count_change',
    'result email:daily_nulls_count',
    'result id:daily_nulls_count',
    'sample email',
    'sample id',
    'statistic ',
    'statistic email',
    'statistic id',
  ];

  async function deleteAndWait(url: string): Promise<any> {
    const deleted = await call(app, { method: 'DELETE', url });
    expect(deleted.status, deleted.raw).toBe(200);
    expect(deleted.body).toEqual({ jobId: expect.any(Number), createdAt: expect.any(String) });
    const job = await call(app, { method: 'GET', url: `/api/jobs/jobs/${deleted.body.jobId}/wait?waitTimeout=30` });
    expect(job.body).toMatchObject({ jobType: 'delete_stored_data', status: 'finished' });
    return job.body;
  }

  it('a table: only its own data, its name matched exactly (a*, not ab)', async () => {
    const job = await deleteAndWait('/api/connections/shop/schemas/public/tables/a*');
    expect(job.parameters.deleteStoredDataParameters).toMatchObject({ connection: 'shop', schemaName: 'public', tableName: 'a*', fullTableName: 'public.a*', deleteCheckResults: true, deleteStatistics: true });
    expect(await storedOf('shop', 'public', 'a*')).toEqual([]);
    expect(await storedOf('shop', 'public', 'ab')).toEqual(EVERYTHING);
    expect(await storedOf('shop_other', 'public', 'a*')).toEqual(EVERYTHING);
    expect(await fx.store.getObjects([{ kind: 'table', name: 'shop/public.a*' }])).toEqual([]);
    expect((await call(app, { method: 'DELETE', url: '/api/connections/shop/schemas/public/tables/a*' })).status).toBe(404);
  });

  it('a table in a schema with a space, its name with a dot, quotes and a space', async () => {
    await deleteAndWait(`/api/connections/shop/schemas/${encodeURIComponent('sales eu')}/tables/${encodeURIComponent('orders.v2 "x"')}`);
    expect(await storedOf('shop', 'sales eu', 'orders.v2 "x"')).toEqual([]);
    expect(await storedOf('shop', 'public', 'a*')).toEqual(EVERYTHING);
  });

  it("a column: that column's results, samples and statistics; the table's own and other columns' stay", async () => {
    await deleteAndWait('/api/connections/shop/schemas/public/tables/ab/columns/email');
    expect(await storedOf('shop', 'public', 'ab')).toEqual(EVERYTHING.filter((row) => !row.includes('email')));
    expect(await storedOf('shop', 'public', 'a*')).toEqual(EVERYTHING);
    const [table] = await fx.store.getObjects([{ kind: 'table', name: 'shop/public.ab' }]);
    expect(Object.keys(table.spec.columns as object)).toEqual(['id']);
  });

  it("a connection: every table's data, and nothing of another connection", async () => {
    const job = await deleteAndWait('/api/connections/shop');
    expect(job.result.partitionResults).toMatchObject({ check_results: { rowsAffectedCount: 9 }, errors: { rowsAffectedCount: 3 }, error_samples: { rowsAffectedCount: 6 }, statistics: { rowsAffectedCount: 9 } });
    for (const [c, s, t] of TABLES.slice(0, 3)) expect(await storedOf(c, s, t)).toEqual([]);
    expect(await storedOf('shop_other', 'public', 'a*')).toEqual(EVERYTHING);
  });

  it('nothing is deleted and no job is queued for what does not exist (404)', async () => {
    expect((await call(app, { method: 'DELETE', url: '/api/connections/nowhere' })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: '/api/connections/shop/schemas/public/tables/none' })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: '/api/connections/shop/schemas/public/tables/ab/columns/none' })).status).toBe(404);
    expect(await fx.store.jobs.find('1')).toBeUndefined();
    for (const [c, s, t] of TABLES) expect(await storedOf(c, s, t)).toEqual(EVERYTHING);
  });
});
