import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { importTables } from '../../src/jobs/importTables.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { collectStatistics } from '../../src/jobs/executors/collectStatistics.js';
import { parseTokens } from '../../src/server/tokens.js';
import { createSourceFixture, SEED_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The statistics routes read back what `collect statistics` stored from a real source whose answers are known
 * (sourceFixture: `Sales "EU"."order lines.2024"`, 6 rows, hostile column names).
 */
const TABLE = `/api/connections/src/schemas/${encodeURIComponent('Sales "EU"')}/tables/${encodeURIComponent('order lines.2024')}`;

describe('statistics routes', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let app: FastifyInstance;

  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL);
    fx = await STORE_ENGINES[0].setup();
    dataSources = new DataSources({ env: source.env });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    await importTables({ objects, dataSources }, { connection: 'src', caller: 'test' });
    app = await serverOn(fx.store, { dataSources });
  });
  afterAll(async () => {
    await app?.close();
    await dataSources?.close();
    await fx.dispose();
    await source.dispose();
  });

  it('answer empty lists before the first collection, then the latest values', async () => {
    const before = await call(app, { method: 'GET', url: `${TABLE}/statistics` });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ connection_name: 'src', table: { schema_name: 'Sales "EU"', table_name: 'order lines.2024' }, statistics: [], can_collect_statistics: true });

    await collectStatistics({ store: fx.store, objects: new LiveObjects(fx.store, { revisionCheckMs: 0 }), dataSources }, { connection: 'src' });

    const table = (await call(app, { method: 'GET', url: `${TABLE}/statistics` })).body;
    // DQOps's StatisticsMetricModel keys (camelCase) and result data types
    expect(table.statistics).toEqual([expect.objectContaining({ category: 'volume', collector: 'row_count', resultDataType: 'integer', result: 6, dataGroup: 'all data' })]);
    expect(table.statistics[0].collectedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(Date.parse(`${table.statistics[0].collectedAt}Z`)).toBe(Math.floor(table.statistics[0].executedAt / 1000) * 1000);
    expect(table.collect_table_statistics_job_template).toEqual({ connection: 'src', fullTableName: 'Sales "EU".order lines.2024', enabled: true, collectorTarget: 'table' });

    const price = (await call(app, { method: 'GET', url: `${TABLE}/columns/${encodeURIComponent('Ünit Price')}/statistics` })).body;
    const metric = (collector: string) => price.statistics.find((s: any) => s.collector === collector);
    expect(metric('nulls_count')).toMatchObject({ result: 2, resultDataType: 'integer' });
    expect(metric('mean_value')).toMatchObject({ resultDataType: 'float' });
    expect(metric('max_value')).toMatchObject({ result: 20 });
    // the most common values: one entry each, most common first, with how often it occurs
    const top = price.statistics.filter((s: any) => s.collector === 'top_values');
    expect(top[0]).toMatchObject({ category: 'sampling', resultDataType: 'string', result: '10.50', sampleIndex: 0, sampleCount: 2 });
    expect(top.map((s: any) => s.sampleIndex)).toEqual([0, 1, 2]);
    expect(price.type_snapshot).toMatchObject({ column_type: 'numeric' });

    const all = (await call(app, { method: 'GET', url: `${TABLE}/columns/statistics` })).body;
    expect(all.column_statistics.map((c: any) => c.column_name)).toEqual(['Flag', 'Line ID', 'Product Name', 'Region.Code', 'created_at', 'doc', 'qty"; drop table x; --', 'Ünit Price']);
    expect(all.column_statistics.every((c: any) => c.statistics.length > 0)).toBe(true);
  });

  it('404 for a table or column that is not in the store; a viewer may read but not collect', async () => {
    expect((await call(app, { method: 'GET', url: `/api/connections/src/schemas/public/tables/nowhere/statistics` })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: `${TABLE}/columns/nope/statistics` })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: `/api/connections/nope/schemas/a/tables/b/statistics` })).status).toBe(404);
    const tokens = parseTokens('- {name: ann, role: viewer, token: viewer-token-0123456789}', 'test');
    const guarded = await serverOn(fx.store, { tokens, dataSources });
    try {
      const seen = await call(guarded, { method: 'GET', url: `${TABLE}/statistics`, headers: { authorization: 'Bearer viewer-token-0123456789' } });
      expect(seen.status).toBe(200);
      expect(seen.body.can_collect_statistics).toBe(false);
      expect((await call(guarded, { method: 'GET', url: `${TABLE}/statistics` })).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });
});
