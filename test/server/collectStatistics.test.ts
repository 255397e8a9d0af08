import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTables } from '../../src/jobs/importTables.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { createSourceFixture, SEED_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** POST /api/jobs/collectstatistics/{table|withgrouping} run for real against a PostgreSQL source. */
describe('collect statistics through the jobs API', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let app: FastifyInstance;
  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL);
    fx = await STORE_ENGINES[1].setup();
    dataSources = new DataSources({ env: source.env });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'src', source.spec({ default_grouping_configuration: { level_1: { source: 'column_value', column: 'Region.Code' } } }), { caller: 'test' });
    await importTables({ objects, dataSources }, { connection: 'src', caller: 'test' });
    await objects.create('table', 'src/public.gone', { columns: { x: { type_snapshot: { column_type: 'int4', nullable: true } } } }, { caller: 'test' });
    app = await serverOn(fx.store, { dataSources });
  });
  afterAll(async () => {
    await app.close();
    await dataSources.close();
    await fx.dispose();
    await source.dispose();
  });

  it('/table: 201 with CollectStatisticsQueueJobResult when it ends in time', async () => {
    const answer = await call(app, {
      method: 'POST',
      url: '/api/jobs/collectstatistics/table?waitTimeout=60&samples_limit=2',
      payload: { connection: 'src', fullTableName: 'Sales "EU".*', columnNames: ['Product Name'] },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      status: 'finished',
      result: { executed_statistics_collectors: 12, columns_analyzed: 1, columns_successfully_analyzed: 1, total_collectors_failed: 0, total_collected_results: 12 },
    });
    const [top] = await fx.store.latestStatistics({ connectionName: 'src', columnName: 'Product Name', collectorName: 'top_values' });
    expect(top.resultJson).toEqual([{ value: 'apple', count: 2 }, { value: 'kiwi fruit', count: 1 }]);
  });

  it('/withgrouping: one result per data group of the default grouping', async () => {
    const answer = await call(app, {
      method: 'POST',
      url: '/api/jobs/collectstatistics/withgrouping?waitTimeout=60',
      payload: { connection: 'src', fullTableName: 'Sales "EU".order lines.2024', collectorName: 'row_count' },
    });
    expect(answer.body).toMatchObject({ status: 'finished', result: { executed_statistics_collectors: 1, total_collected_results: 3 } });
    const rows = await fx.store.latestStatistics({ connectionName: 'src', columnName: null, collectorName: 'row_count' });
    expect(rows.map((r) => [r.dataGroup, r.resultDouble])).toEqual([['(null)', 1], ['EU-E', 2], ['EU-W', 3]]);
  });

  it('a table that is gone: the job ends failed with the reason; the server keeps serving', async () => {
    const answer = await call(app, { method: 'POST', url: '/api/jobs/collectstatistics/table?waitTimeout=60', payload: { connection: 'src', fullTableName: 'public.gone' } });
    expect(answer.status).toBe(201);
    expect(answer.body.status).toBe('failed');
    expect(answer.body.errorMessage).toContain('src/public.gone');
    expect(answer.body.errorMessage).toContain('does not exist');
    expect((await call(app, { method: 'GET', url: '/api/jobs/jobs/' + answer.body.jobId.jobId })).body.status).toBe('failed');
  });
});
