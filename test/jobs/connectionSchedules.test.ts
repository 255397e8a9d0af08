import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/app/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { ConnectionSchedules } from '../../src/jobs/connectionSchedules.js';
import { defaultExecutors } from '../../src/jobs/executors/index.js';
import { JobService } from '../../src/jobs/jobService.js';
import type { JsonObject } from '../../src/model/index.js';
import type { JobRecord } from '../../src/store/jobRows.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * The connections' schedules with two "servers" (two job workers, two schedules) on one PostgreSQL store and a
 * real data source: each scheduled time becomes ONE job between them: an import-tables job that imports the
 * tables the connection's auto_import_tables selects and nothing else, or a run-checks job for the checks of
 * the scheduling group, without those marked do_not_schedule.
 */
describe('connection schedules: auto import of tables and scheduled check runs', () => {
  let fx: StoreFixture;
  let source: TestDatabase;
  let dataSources: DataSources;
  const ctx = { caller: 'test' };

  beforeAll(async () => {
    fx = await STORE_ENGINES.find((e) => e.engine === 'postgres')!.setup();
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query(`create schema sales; create schema hr;
      create table sales."Orders ""EU""" (id int primary key, amount numeric); create table sales.refunds (id int);
      create table hr.people (id int)`);
    await client.end();
    dataSources = new DataSources({ env: { DQCTL_TEST_UNUSED_PASSWORD: '' } });
  });
  afterAll(async () => {
    await dataSources.close();
    await source.drop();
    await fx.dispose();
  });

  function connection(autoImport: JsonObject): JsonObject {
    const url = new URL(source.url);
    return {
      provider_type: 'postgresql',
      postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${DQCTL_TEST_UNUSED_PASSWORD}' },
      auto_import_tables: autoImport,
    };
  }

  /** The jobs by id (a submission refused for its duplicate business key leaves a gap in the ids). */
  async function allJobs(): Promise<JobRecord[]> {
    const jobs: JobRecord[] = [];
    for (let id = 1; id <= 100; id++) {
      const job = await fx.store.jobs.find(String(id));
      if (job) jobs.push(job);
    }
    return jobs;
  }

  it('two servers submit each scheduled run once; the job imports only the selected tables; a bad cron is logged', async () => {
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'shop', connection({ schema_filter: 'sales', table_name_contains: 'Orders', schedule: { cron_expression: '* * * * * *' } }), ctx);
    await objects.create('source', 'broken', connection({ schedule: { cron_expression: 'every day at noon' } }), ctx);
    await objects.create('source', 'off', connection({ schema_filter: 'hr', schedule: { cron_expression: '* * * * * *', disabled: true } }), ctx);
    const warnings: string[] = [];
    const servers = [0, 1].map((i) => {
      const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { worker: `server-${i}`, pollMs: 50 });
      const schedule = new ConnectionSchedules(jobs, objects, { log: (level, message) => level === 'warn' && warnings.push(message) });
      return { jobs, schedule };
    });
    for (const server of servers) {
      server.jobs.start();
      await server.schedule.start();
    }
    expect(servers[0].schedule.status().map((s) => `${s.connection}:${s.schedule}`).sort()).toEqual(['broken:auto_import', 'shop:auto_import']);
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    for (const server of servers) await server.schedule.stop();
    for (const server of servers) await server.jobs.stop();

    const jobs = await allJobs();
    expect(jobs.length).toBeGreaterThanOrEqual(2);
    // one job per scheduled second between the two servers, each for the scheduled connection
    expect(new Set(jobs.map((j) => j.businessKey)).size).toBe(jobs.length);
    expect(jobs.every((j) => j.jobType === 'import_tables' && j.parameters.connection === 'shop' && j.businessKey?.startsWith('schedule:shop:auto_import:'))).toBe(true);
    const finished = jobs.filter((j) => j.status === 'finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.reduce((n, j) => n + Number(j.result?.created ?? 0), 0)).toBe(1);
    const tables = (await objects.list('table')).map((t) => t.name);
    expect(tables).toEqual(['shop/sales.Orders "EU"']);
    expect(warnings.filter((w) => w.includes('"broken"') && w.includes('not valid'))).toHaveLength(2);
  });

  it('a schedule written later is picked up by refresh, and a removed one stops', async () => {
    await fx.reset();
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'hr', connection({ schema_filter: 'hr' }), ctx);
    const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 50 });
    const schedule = new ConnectionSchedules(jobs, objects, { refreshMs: 60_000 });
    jobs.start();
    await schedule.start();
    expect(schedule.status()).toEqual([]);
    await objects.update('source', 'hr', ctx, (current) => ({ spec: { ...current.spec, auto_import_tables: { schema_filter: 'hr', schedule: { cron_expression: '* * * * * *' } } } }));
    await schedule.refresh();
    expect(schedule.status()).toMatchObject([{ connection: 'hr', schedule: 'auto_import', cron_expression: '* * * * * *' }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await objects.update('source', 'hr', ctx, (current) => ({ spec: { ...current.spec, auto_import_tables: { schema_filter: 'hr' } } }));
    await schedule.refresh();
    expect(schedule.status()).toEqual([]);
    await jobs.wait(String((await allJobs()).at(-1)!.id), 5_000);
    const before = (await allJobs()).length;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await allJobs()).length).toBe(before);
    await schedule.stop();
    await jobs.stop();
    expect((await objects.list('table')).map((t) => t.name)).toEqual(['hr/hr.people']);
  });

  it('schedules run the checks of their group, without the checks marked do_not_schedule', async () => {
    await fx.reset();
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const spec = connection({});
    delete spec.auto_import_tables;
    await objects.create('source', 'shop', { ...spec, schedules: { monitoring_daily: { cron_expression: '* * * * * *' }, profiling: { cron_expression: '0 3 * * 0', disabled: true } } }, ctx);
    await objects.create(
      'table',
      'shop/sales.Orders "EU"',
      {
        profiling_checks: { volume: { profile_row_count: { error: { min_count: 1 } } } },
        monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 1 } }, daily_row_count_change: { do_not_schedule: true, warning: { max_percent: 10 } } } } },
      },
      ctx,
    );
    const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 50 });
    const schedule = new ConnectionSchedules(jobs, objects);
    jobs.start();
    await schedule.start();
    expect(schedule.status().map((s) => s.schedule)).toEqual(['monitoring_daily']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await schedule.stop();
    const submitted = await allJobs();
    expect(submitted.length).toBeGreaterThanOrEqual(1);
    for (const job of submitted) await jobs.wait(String(job.id), 10_000);
    await jobs.stop();
    const finished = await allJobs();
    expect(finished.every((j) => j.jobType === 'run_checks' && j.status === 'finished' && j.businessKey?.startsWith('schedule:shop:monitoring_daily:'))).toBe(true);
    expect(finished[0].parameters).toEqual({ check_search_filters: { connection: 'shop', checkType: 'monitoring', timeScale: 'daily' }, scheduled: true });
    // the empty table fails daily_row_count's warning; the change check and the profiling check never ran
    expect(finished[0].result).toMatchObject({ executed_checks: 1, warnings: 1 });
    const rows = await fx.store.checkResults({ connectionName: 'shop', schemaName: 'sales', tableName: 'Orders "EU"' });
    expect(new Set(rows.map((r) => r.checkName))).toEqual(new Set(['daily_row_count']));
  });
});
