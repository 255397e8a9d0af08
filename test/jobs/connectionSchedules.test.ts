import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { ConnectionSchedules } from '../../src/jobs/connectionSchedules.js';
import { defaultExecutors } from '../../src/jobs/executors/index.js';
import { JobService } from '../../src/jobs/jobService.js';
import type { JsonObject } from '../../src/model/index.js';
import type { JobRecord } from '../../src/store/jobRows.js';
import { SLOW_VIEWS_SQL } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { ManualClock } from '../helpers/manualClock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/** A Wednesday morning, a quarter second past: no weekly schedule of these tests falls due in the seconds after. */
const START = '2026-03-04T10:00:00.250Z';

/**
 * The connections' schedules with two "servers" (two job workers, two schedules) on one PostgreSQL store and a
 * real data source: each scheduled time becomes ONE job between them: an import-tables job that imports the
 * tables the connection's auto_import_tables selects and nothing else, or a run-checks job for the checks of
 * the scheduling group, without those marked do_not_schedule. The schedules fire on a clock the tests advance.
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
    await client.query(SLOW_VIEWS_SQL);
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
    const clock = new ManualClock(START);
    const servers = [0, 1].map((i) => {
      const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { worker: `server-${i}`, pollMs: 50 });
      const schedule = new ConnectionSchedules(jobs, objects, { clock, log: (level, message) => level === 'warn' && warnings.push(message) });
      return { jobs, schedule };
    });
    for (const server of servers) {
      server.jobs.start();
      await server.schedule.start();
    }
    expect(servers[0].schedule.status().map((s) => `${s.connection}:${s.schedule}`).sort()).toEqual(['broken:auto_import', 'shop:auto_import']);
    // two scheduled seconds; each run ends before the next is due (a run still going would be skipped)
    for (let second = 0; second < 2; second++) {
      await clock.advance(1_000);
      const latest = (await allJobs()).at(-1);
      if (latest) await servers[0].jobs.wait(String(latest.id), 10_000);
    }
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
    const clock = new ManualClock(START);
    const schedule = new ConnectionSchedules(jobs, objects, { refreshMs: 60_000, clock });
    jobs.start();
    await schedule.start();
    expect(schedule.status()).toEqual([]);
    await objects.update('source', 'hr', ctx, (current) => ({ spec: { ...current.spec, auto_import_tables: { schema_filter: 'hr', schedule: { cron_expression: '* * * * * *' } } } }));
    await schedule.refresh();
    expect(schedule.status()).toMatchObject([{ connection: 'hr', schedule: 'auto_import', cron_expression: '* * * * * *' }]);
    await clock.advance(1_000);
    await objects.update('source', 'hr', ctx, (current) => ({ spec: { ...current.spec, auto_import_tables: { schema_filter: 'hr' } } }));
    await schedule.refresh();
    expect(schedule.status()).toEqual([]);
    await jobs.wait(String((await allJobs()).at(-1)!.id), 5_000);
    const before = (await allJobs()).length;
    await clock.advance(1_200);
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
    const clock = new ManualClock(START);
    const schedule = new ConnectionSchedules(jobs, objects, { clock });
    jobs.start();
    await schedule.start();
    expect(schedule.status().map((s) => s.schedule)).toEqual(['monitoring_daily']);
    await clock.advance(1_000);
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
    // the readouts (the table is empty: the null counts have no value, so no verdict and no result, as in DQOps)
    const rows = await fx.store.checkResults({ connectionName: 'shop', schemaName: 'sales', tableName: 'Orders "EU"', read: 'readouts' });
    expect(new Set(rows.map((r) => r.checkName))).toEqual(new Set(['daily_row_count']));
  });

  it("a check's schedule_override runs it at its own times, and its scheduling group's runs leave it out", async () => {
    await fx.reset();
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const spec = connection({});
    delete spec.auto_import_tables;
    await objects.create('source', 'shop', { ...spec, schedules: { monitoring_daily: { cron_expression: '* * * * * *' } } }, ctx);
    const everySecond = { cron_expression: '* * * * * *' };
    await objects.create(
      'table',
      'shop/sales.Orders "EU"',
      {
        profiling_checks: { volume: { profile_row_count: { schedule_override: everySecond, error: { min_count: 1 } } } },
        monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 1 } } } } },
        columns: {
          id: { monitoring_checks: { daily: { nulls: { daily_nulls_count: { schedule_override: { ...everySecond, disabled: true }, error: { max_count: 0 } } } } } },
          amount: { monitoring_checks: { daily: { nulls: { daily_nulls_count: { schedule_override: { cron_expression: ' * * * * * * ' }, error: { max_count: 0 } } } } } },
        },
      },
      ctx,
    );
    // a policy's check with a schedule of its own, and one marked do_not_schedule as well (never scheduled)
    await objects.create(
      'default_table_checks',
      'weekly schema',
      {
        target: { connection: 'shop' },
        monitoring_checks: {
          daily: {
            schema: {
              daily_column_count: { schedule_override: { cron_expression: '0 4 * * 1' }, warning: { expected_value: 2 } },
              daily_column_types_changed: { schedule_override: { cron_expression: '0 5 * * 1' }, do_not_schedule: true, warning: {} },
            },
          },
        },
      },
      ctx,
    );
    const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 50 });
    const clock = new ManualClock(START);
    const schedule = new ConnectionSchedules(jobs, objects, { clock });
    jobs.start();
    await schedule.start();
    expect(schedule.status().map((s) => `${s.schedule} ${s.cron_expression}`).sort()).toEqual([
      'monitoring_daily * * * * * *',
      'schedule_override * * * * * *',
      'schedule_override 0 4 * * 1',
    ]);
    await clock.advance(1_000);
    await schedule.stop();
    for (const job of await allJobs()) await jobs.wait(String(job.id), 10_000);
    await jobs.stop();
    const finished = await allJobs();
    expect(finished.every((j) => j.jobType === 'run_checks' && j.status === 'finished')).toBe(true);
    const group = finished.filter((j) => j.businessKey?.startsWith('schedule:shop:monitoring_daily:'));
    const own = finished.filter((j) => j.businessKey?.startsWith(`schedule:shop:schedule_override:${encodeURIComponent('* * * * * *')}:`));
    expect(group.length).toBeGreaterThanOrEqual(1);
    expect(own.length).toBeGreaterThanOrEqual(1);
    expect(group.length + own.length).toBe(finished.length);
    expect(own[0].parameters).toEqual({ check_search_filters: { connection: 'shop' }, scheduled: true, schedule_override: '* * * * * *' });
    // group: the table's row count and id's null count (its own schedule is disabled); the policy's checks have their own
    expect(group[0].result).toMatchObject({ executed_checks: 2 });
    // own: the profiling row count and amount's null count
    expect(own[0].result).toMatchObject({ executed_checks: 2 });
    // the readouts (the table is empty: the null counts have no value, so no verdict and no result, as in DQOps)
    const rows = await fx.store.checkResults({ connectionName: 'shop', schemaName: 'sales', tableName: 'Orders "EU"', read: 'readouts' });
    // between them they ran these four checks, and never the policy's (their schedules are on Mondays, or never)
    expect(new Set(rows.map((r) => `${r.columnName ?? ''}:${r.checkName}`))).toEqual(new Set([':daily_row_count', 'id:daily_nulls_count', ':profile_row_count', 'amount:daily_nulls_count']));
  });

  it("without policies that hold one, the tables' own schedule_overrides are found (and a disabled table's are not)", async () => {
    await fx.reset();
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const spec = connection({});
    delete spec.auto_import_tables;
    await objects.create('source', 'shop', spec, ctx);
    const withOverride = (cron: string) => ({ monitoring_checks: { daily: { volume: { daily_row_count: { schedule_override: { cron_expression: cron } } } } } });
    await objects.create('table', 'shop/sales.refunds', withOverride('0 2 * * *'), ctx);
    await objects.create('table', 'shop/hr.people', { ...withOverride('0 9 * * *'), disabled: true }, ctx);
    await objects.create('table', 'shop/sales.Orders "EU"', { monitoring_checks: { daily: { volume: { daily_row_count: {} } } } }, ctx);
    await objects.create('default_table_checks', 'no overrides here', { target: { connection: 'shop' }, monitoring_checks: { daily: { volume: { daily_row_count: {} } } } }, ctx);
    const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 50 });
    const schedule = new ConnectionSchedules(jobs, objects);
    await schedule.start();
    expect(schedule.status().map((s) => `${s.connection} ${s.schedule} ${s.cron_expression}`)).toEqual(['shop schedule_override 0 2 * * *']);
    await schedule.stop();
  });

  it('a run still going when the next is due is not piled up behind: the next is skipped, and logged', async () => {
    await fx.reset();
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const spec = connection({});
    delete spec.auto_import_tables;
    // a connection name holding ':' does not share its key prefix with another connection's schedule
    await objects.create('source', 'shop:a', { ...spec, schedules: { monitoring_daily: { cron_expression: '* * * * * *' } } }, ctx);
    await objects.create('table', 'shop:a/slowpoke.very_slow', { monitoring_checks: { daily: { volume: { daily_row_count: {} } } } }, ctx);
    const logged: string[] = [];
    const jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 50, cancelPollMs: 50 });
    const clock = new ManualClock(START);
    const schedule = new ConnectionSchedules(jobs, objects, { clock, log: (_level, message) => logged.push(message) });
    jobs.start();
    await schedule.start();
    await clock.advance(3_000); // three scheduled seconds: the first submits, the next two find it unfinished
    await schedule.stop();
    const submitted = await allJobs();
    expect(submitted).toHaveLength(1);
    expect(submitted[0].businessKey).toMatch(/^schedule:shop%3Aa:monitoring_daily:\d{4}-/);
    expect(logged.filter((line) => line.includes(`skipped the run at`) && line.includes(`job ${submitted[0].id} of an earlier run has not finished`)).length).toBeGreaterThanOrEqual(2);
    await jobs.cancel(String(submitted[0].id));
    expect((await jobs.wait(String(submitted[0].id), 10_000)).status).toBe('cancelled');
    await jobs.stop();
  });
});
