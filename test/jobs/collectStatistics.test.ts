import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importTables } from '../../src/jobs/importTables.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { defaultExecutors } from '../../src/jobs/executors/index.js';
import { collectStatistics, type CollectStatisticsDependencies } from '../../src/jobs/executors/collectStatistics.js';
import { JobService } from '../../src/jobs/jobService.js';
import { createSourceFixture, running, sampleMaxBackends, untilBackends, SECRET_PASSWORD, SEED_SQL, SLOW_VIEWS_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** The slow views, and a small table of events. */
const EXTRA = `${SLOW_VIEWS_SQL}
create table public.events (event_id bigint primary key, region text, created_at timestamp, updated_at timestamp);
insert into public.events values (1, 'a', '2024-01-01', null), (2, 'a', '2024-01-02', null), (3, 'b', '2024-01-03', null);
`;
const HOSTILE = 'src/Sales "EU".order lines.2024';

describe('collect statistics job', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let objects: LiveObjects;
  let deps: CollectStatisticsDependencies;
  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL + EXTRA);
    fx = await STORE_ENGINES[1].setup();
  });
  afterAll(async () => {
    await dataSources?.close();
    await fx.dispose();
    await source.dispose();
  });
  beforeEach(async () => {
    await dataSources?.close();
    await fx.reset();
    dataSources = new DataSources({ env: source.env });
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources };
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    // the tests that make a table disappear drop this one after the import
    await source.admin('create table if not exists public.doomed (id int primary key, v text)');
    await importTables({ objects, dataSources }, { connection: 'src', caller: 'test' });
  });

  it('collects every selected table and counts honestly; the statistics are in the store', async () => {
    const run = await collectStatistics(deps, { connection: 'src', fullTableName: 'Sales "EU".order*' });
    expect(run.tables.map((t) => [t.name, t.status])).toEqual([[HOSTILE, 'ok']]);
    expect(run.result).toEqual({
      executed_statistics_collectors: 70,
      columns_analyzed: 8,
      columns_successfully_analyzed: 8,
      total_collectors_failed: 0,
      total_collected_results: 70,
    });
    const stored = await fx.store.latestStatistics({ connectionName: 'src', schemaName: 'Sales "EU"', tableName: 'order lines.2024' });
    expect(stored).toHaveLength(70);
    expect(stored.find((s) => s.columnName === 'Ünit Price' && s.collectorName === 'mean_value')?.resultDouble).toBe(11.3125);
    expect(new Set(stored.map((s) => s.collectedAt)).size).toBe(1);

    const columns = await collectStatistics(deps, { connection: 'src', fullTableName: 'Sales "EU".order*', columnNames: ['Flag'], collectorCategory: 'nulls,uniqueness' });
    expect(columns.result).toEqual({
      executed_statistics_collectors: 5,
      columns_analyzed: 1,
      columns_successfully_analyzed: 1,
      total_collectors_failed: 0,
      total_collected_results: 5,
    });
    expect((await collectStatistics(deps, { connection: 'src', enabled: false })).result.executed_statistics_collectors).toBe(0);
  });

  it('per data group (dataScope data_group) with the default grouping of the table; results counted per group', async () => {
    await objects.update('table', 'src/public.events', { caller: 'test' }, (c) => ({
      spec: { ...c.spec, default_grouping_name: 'by_region', groupings: { by_region: { level_1: { source: 'column_value', column: 'region' } } } },
    }));
    const run = await collectStatistics(deps, { connection: 'src', fullTableName: 'public.events', collectorName: 'row_count,nulls_count', dataScope: 'data_group' });
    expect(run.result).toMatchObject({ executed_statistics_collectors: 5, columns_analyzed: 4, total_collected_results: 2 * 5 });
    const rows = await fx.store.latestStatistics({ connectionName: 'src', tableName: 'events', columnName: null });
    expect(rows.map((r) => [r.dataGroup, r.resultDouble])).toEqual([['a', 2], ['b', 1]]);
  });

  it('configure_table sets the event timestamp column and the id columns through the live objects', async () => {
    const run = await collectStatistics(deps, { connection: 'src', fullTableName: 'public.events', configureTable: true, collectorCategory: 'volume' });
    expect(run.tables[0].configured).toEqual(['timestamp_columns.event_timestamp_column = created_at', 'columns.event_id.id = true']);
    const table = await objects.require('table', 'src/public.events');
    expect(table.spec.timestamp_columns).toEqual({ event_timestamp_column: 'created_at' });
    expect(table.spec.columns).toMatchObject({ event_id: { id: true, type_snapshot: { column_type: 'int8' } }, region: { type_snapshot: { column_type: 'text' } } });
    const again = await collectStatistics(deps, { connection: 'src', fullTableName: 'public.events', configureTable: true, collectorCategory: 'volume' });
    expect(again.tables[0].configured).toEqual([]);
  });

  it('a table that disappeared: its error is stored per collector, the others are collected, the job fails with the reason', async () => {
    await source.admin('drop table public.doomed');
    const run = await collectStatistics(deps, { connection: 'src', fullTableName: 'public.*' });
    const doomed = run.tables.find((t) => t.name === 'src/public.doomed')!;
    expect(doomed).toMatchObject({ status: 'failed', collectorsFailed: 1 + 9 + 11, results: 0 });
    expect(doomed.error).toMatchObject({ code: 'DATASOURCE_QUERY_FAILED', details: { reason: 'table_missing' } });
    expect(run.tables.filter((t) => t.status === 'ok').map((t) => t.name)).toEqual(['src/public.events']);
    const errors = await fx.store.latestStatistics({ connectionName: 'src', tableName: 'doomed' });
    expect(errors).toHaveLength(21);
    expect(errors.every((e) => e.errorMessage?.includes('does not exist') && e.resultDouble === null)).toBe(true);
    expect(run.result.total_collectors_failed).toBe(21);
    expect(run.result.columns_analyzed - run.result.columns_successfully_analyzed).toBe(2);
  }, 60_000);

  describe('through the job queue', () => {
    let jobs: JobService;
    beforeEach(() => {
      jobs = new JobService(fx.store, defaultExecutors(deps), { pollMs: 20, cancelPollMs: 50, concurrency: 4 });
      jobs.start();
      return () => jobs.stop();
    });

    it('finishes with CollectStatisticsQueueJobResult', async () => {
      const job = await jobs.submit('collect_statistics', { connection: 'src', fullTableName: 'public.events', dataScope: 'table' });
      const done = await jobs.wait(String(job.id), 30_000);
      expect(done).toMatchObject({ status: 'finished', result: { executed_statistics_collectors: 1 + 9 * 1 + 11 + 8 * 2, total_collectors_failed: 0 } });
    });

    it('a table that disappeared fails the job with the reason; the process and the next job are fine', async () => {
      await source.admin('drop table public.doomed');
      const job = await jobs.submit('collect_statistics', { connection: 'src', fullTableName: 'public.doomed' });
      const failed = await jobs.wait(String(job.id), 30_000);
      expect(failed.status).toBe('failed');
      expect(failed.errorMessage).toContain('src/public.doomed');
      expect(failed.errorMessage).toContain('the table does not exist');
      const next = await jobs.wait(String((await jobs.submit('collect_statistics', { connection: 'src', fullTableName: 'public.events' })).id), 30_000);
      expect(next.status).toBe('finished');
    });

    it('a source that refuses connections, and a statement timeout, fail the job with the reason', async () => {
      const spec = source.spec();
      (spec.postgresql as Record<string, unknown>).port = 1;
      await objects.create('source', 'down', spec, { caller: 'test' });
      await objects.create('table', 'down/public.t', { columns: { x: { type_snapshot: { column_type: 'int4' } } } }, { caller: 'test' });
      const refused = await jobs.wait(String((await jobs.submit('collect_statistics', { connection: 'down' })).id), 30_000);
      expect(refused.status).toBe('failed');
      expect(refused.errorMessage).toContain('refused the connection');
      expect((await fx.store.latestStatistics({ connectionName: 'down' })).map((r) => r.collectorName)).toEqual(['row_count', 'distinct_count', 'distinct_percent', 'duplicate_count', 'max_value', 'mean_value', 'min_value', 'nulls_count', 'nulls_percent', 'top_values']);

      const impatient = new DataSources({ env: source.env, statementTimeoutMs: 100 });
      const timed = new JobService(fx.store, defaultExecutors({ ...deps, dataSources: impatient }), { pollMs: 20 });
      await jobs.stop();
      timed.start();
      try {
        const timeout = await timed.wait(String((await timed.submit('collect_statistics', { connection: 'src', fullTableName: 'slowpoke.slow' })).id), 30_000);
        expect(timeout.status).toBe('failed');
        expect(timeout.errorMessage).toContain('statement timeout');
      } finally {
        await timed.stop();
        await impatient.close();
      }
    });

    it('cancelling a running job cancels its statement on the source (pg_stat_activity)', async () => {
      const job = await jobs.submit('collect_statistics', { connection: 'src', fullTableName: 'slowpoke.very_slow' });
      await untilBackends(source, running('very_slow'), 'the query on very_slow to run', 15_000);
      await jobs.cancel(String(job.id));
      const ended = await jobs.wait(String(job.id), 10_000);
      expect(ended.status).toBe('cancelled');
      await untilBackends(source, (backends) => !running('very_slow')(backends), 'the query on very_slow to stop', 3000);
      expect(await fx.store.latestStatistics({ connectionName: 'src', tableName: 'very_slow' })).toEqual([]);
    });
  });

  it('10 concurrent collections on one connection never use more than parallel_jobs_limit connections', async () => {
    await dataSources.close();
    await untilBackends(source, (backends) => backends.length === 0, 'no dqctl connections');
    dataSources = new DataSources({ env: source.env });
    deps = { ...deps, dataSources };
    const sampling = sampleMaxBackends(source);
    const started = Date.now();
    const runs = await Promise.all(Array.from({ length: 10 }, () => collectStatistics(deps, { connection: 'src', fullTableName: 'slowpoke.slow' })));
    const elapsed = Date.now() - started;
    const max = await sampling.stop();
    expect(runs.every((r) => r.tables[0].status === 'ok')).toBe(true);
    expect(max).toBe(2);
    // each collection scans the view twice (aggregates, then values), 0.3 s each: 10 of them two at a time
    expect(elapsed).toBeGreaterThanOrEqual((10 / 2) * 2 * 300 - 100);
  }, 60_000);

  it('the resolved secret is nowhere in the store: objects, statistics, jobs, errors', async () => {
    await source.admin('drop table public.doomed');
    await collectStatistics(deps, { connection: 'src', fullTableName: 'public.*' });
    const jobs = new JobService(fx.store, defaultExecutors(deps), { pollMs: 20 });
    jobs.start();
    try {
      await jobs.wait(String((await jobs.submit('collect_statistics', { connection: 'src', fullTableName: 'public.doomed' })).id), 30_000);
    } finally {
      await jobs.stop();
    }
    const tables = await fx.sql.query<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = 'dqctl'`);
    for (const { name } of tables) {
      const [{ dump }] = await fx.sql.query<{ dump: string | null }>(`select string_agg(t::text, E'\\n') as dump from dqctl.${name} t`);
      expect(dump ?? '', name).not.toContain(SECRET_PASSWORD);
      expect(dump ?? '', name).not.toContain(source.database.name);
    }
  }, 60_000);
});
