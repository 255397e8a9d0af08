import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { defaultExecutors, jobServiceOptionsOf } from '../../src/jobs/executors/index.js';
import { RUN_CHECKS, RUN_CHECKS_ON_TABLE } from '../../src/jobs/executors/runChecks.js';
import { FINAL_STATUSES, JobService } from '../../src/jobs/jobService.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * A check run over many tables of one PostgreSQL source, run by two job services ("replicas") on one PostgreSQL
 * store, as two `dqctl serve` processes run it: the run is split into one job per table; each replica claims
 * tables from the shared queue, at most the connection's parallel_jobs_limit (2) at once; no table runs twice;
 * the last table ends the run with every table's counts; a table claimed by a replica that died is run by another.
 * Each table has 3 rows and 2 checks: row count (3, valid) and a SQL condition that holds on every row but waits
 * 40 ms per row (so that tables overlap in time and both replicas get some).
 */
const TABLES = 12;
const LIMIT = 2;

interface Replica {
  jobs: JobService;
  dataSources: DataSources;
}

describe('a check run over many tables on several replicas', () => {
  let storeDb: TestDatabase;
  let source: TestDatabase;
  let store: Store;
  let objects: LiveObjects;
  let replicas: Replica[] = [];
  let sql: pg.Client;

  const replica = (worker: string, options: { heartbeatMs?: number; staleAfterMs?: number } = {}): Replica => {
    const dataSources = new DataSources({ env: { DQCTL_TEST_UNUSED_PASSWORD: '' } });
    const replicaObjects = new LiveObjects(store, { revisionCheckMs: 0 });
    const deps = { store, objects: replicaObjects, dataSources };
    const jobs = new JobService(store, defaultExecutors(deps, { splitByTable: true }), { ...jobServiceOptionsOf(deps), worker, pollMs: 20, ...options });
    const made = { jobs, dataSources };
    replicas.push(made);
    return made;
  };

  const finalJob = async (jobs: JobService, id: number) => {
    const job = await jobs.wait(String(id), 120_000);
    expect(FINAL_STATUSES.has(job.status)).toBe(true);
    return job;
  };

  const children = async (parentId: number) =>
    (
      await sql.query<{ id: string; status: string; claimed_by: string | null; table_key: string; started_at: Date; finished_at: Date }>(
        `select id, status, claimed_by, parameters #>> '{table,schema}' || '.' || (parameters #>> '{table,table}') as table_key, started_at, finished_at
           from dqctl.jobs where parent_id = $1 order by id`,
        [parentId],
      )
    ).rows;

  /**
   * The most sessions of the source in use at once (in a statement or a transaction) until the run ends, sampled
   * from pg_stat_activity: the data source's side of parallel_jobs_limit.
   */
  const sessionsInUse = async (runId: number): Promise<number> => {
    const sampler = new pg.Client({ connectionString: source.url });
    await sampler.connect();
    let most = 0;
    try {
      while (!FINAL_STATUSES.has((await store.jobs.find(String(runId)))!.status)) {
        const { rows } = await sampler.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' and state <> 'idle'`,
        );
        most = Math.max(most, rows[0]!.n);
      }
    } finally {
      await sampler.end();
    }
    return most;
  };

  beforeAll(async () => {
    storeDb = await createTestDatabase();
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query(`create schema "Many"`);
    for (let i = 0; i < TABLES; i++) {
      await client.query(`create table "Many"."t${i}" (id int)`);
      await client.query(`insert into "Many"."t${i}" values (1), (2), (3)`);
    }
    await client.end();
    store = await openStore({ databaseUrl: storeDb.url });
    sql = new pg.Client({ connectionString: storeDb.url });
    await sql.connect();
    objects = new LiveObjects(store, { revisionCheckMs: 0 });
    const url = new URL(source.url);
    const ctx = { caller: 'test' };
    await objects.create(
      'source',
      'src',
      {
        provider_type: 'postgresql',
        postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${DQCTL_TEST_UNUSED_PASSWORD}' },
        parallel_jobs_limit: LIMIT,
      },
      ctx,
    );
    for (let i = 0; i < TABLES; i++) {
      await objects.create(
        'table',
        `src/Many.t${i}`,
        {
          monitoring_checks: {
            daily: {
              volume: { daily_row_count: { error: { min_count: 1 } } },
              custom_sql: { daily_sql_condition_failed_on_table: { parameters: { sql_condition: 'pg_sleep(0.04) is not null' }, error: { max_count: 0 } } },
            },
          },
        },
        ctx,
      );
    }
  });
  afterEach(async () => {
    for (const r of replicas) {
      await r.jobs.stop();
      await r.dataSources.close();
    }
    replicas = [];
  });
  afterAll(async () => {
    await sql?.end();
    await store?.close();
    await source?.drop();
    await storeDb?.drop();
  });

  it('splits the run by table over two replicas: every table once, at most parallel_jobs_limit at once per replica, the counts of all', async () => {
    const a = replica('replica-a');
    const b = replica('replica-b');
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src' } });
    a.jobs.start();
    b.jobs.start();
    const sessions = sessionsInUse(submitted.id);
    const run = await finalJob(a.jobs, submitted.id);
    expect(run.status).toBe('finished');
    // at most parallel_jobs_limit sessions on the source per replica
    expect(await sessions).toBeLessThanOrEqual(2 * LIMIT);
    expect(run.result).toEqual({ highest_severity: 'valid', executed_checks: 2 * TABLES, valid_results: 2 * TABLES, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 });

    const tables = await children(submitted.id);
    // one job per table, each ended once, by one of the two replicas
    expect(tables.map((t) => t.table_key).sort()).toEqual(Array.from({ length: TABLES }, (_, i) => `Many.t${i}`).sort());
    expect(tables.every((t) => t.status === 'finished')).toBe(true);
    const byReplica = new Map<string, typeof tables>();
    for (const t of tables) byReplica.set(t.claimed_by!, [...(byReplica.get(t.claimed_by!) ?? []), t]);
    expect([...byReplica.keys()].sort()).toEqual(['replica-a', 'replica-b']);
    // one result per check and table: 2 × TABLES rows of this run's time period
    const results = await sql.query<{ n: string }>(`select count(*) as n from dqctl.check_results where connection_name = 'src'`);
    expect(Number(results.rows[0]!.n)).toBe(2 * TABLES);
  });

  it('one replica uses parallel_jobs_limit sessions of the source and no more, while its results are written', async () => {
    const a = replica('replica-a');
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src' } });
    a.jobs.start();
    const sessions = sessionsInUse(submitted.id);
    expect((await finalJob(a.jobs, submitted.id)).status).toBe('finished');
    expect(await sessions).toBe(LIMIT);
  });

  it('runs a table that a dead replica had claimed: it is queued again when its heartbeat stops, and the run ends with every table', async () => {
    const a = replica('replica-a', { heartbeatMs: 30 });
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src', tableName: 't1' } }, {});
    // a replica that split a run and claimed one table, then died: its heartbeat is old
    const split = await store.jobs.claimNext('dead-replica', { jobTypes: [RUN_CHECKS] });
    expect(split?.id).toBe(submitted.id);
    await store.jobs.fanOut(submitted.id, 'dead-replica', [
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, table: { connection: 'src', schema: 'Many', table: 't1' }, run_time: new Date().toISOString() } },
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, table: { connection: 'src', schema: 'Many', table: 't2' }, run_time: new Date().toISOString() } },
    ]);
    const lost = await store.jobs.claimNext('dead-replica', { jobTypes: [], laneJobType: RUN_CHECKS_ON_TABLE });
    expect(lost?.parentId).toBe(submitted.id);
    await sql.query(`update dqctl.jobs set heartbeat_at = now() - interval '1 hour' where id = $1`, [lost!.id]);

    a.jobs.start();
    const run = await finalJob(a.jobs, submitted.id);
    expect(run.status).toBe('finished');
    expect(run.result).toMatchObject({ executed_checks: 4, valid_results: 4, execution_errors: 0 });
    const tables = await children(submitted.id);
    expect(tables.map((t) => [t.table_key, t.status, t.claimed_by])).toEqual([
      ['Many.t1', 'finished', 'replica-a'],
      ['Many.t2', 'finished', 'replica-a'],
    ]);
    // the dead replica can no longer end the table another replica ran
    expect(await store.jobs.finishChild(lost!.id, 'dead-replica', { status: 'finished', result: {} })).toBeUndefined();
  });

  it('runs a run that a replica claimed and died before splitting: the run is queued again and split by a live replica', async () => {
    const a = replica('replica-a', { heartbeatMs: 30 });
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src', fullTableName: 'Many.t7,Many.t8' } });
    const claimed = await store.jobs.claimNext('dead-replica', { jobTypes: [RUN_CHECKS] });
    expect(claimed?.id).toBe(submitted.id);
    // the replica died right after the claim: no children, the run's heartbeat old
    await sql.query(`update dqctl.jobs set heartbeat_at = now() - interval '1 hour' where id = $1`, [submitted.id]);
    expect(await children(submitted.id)).toEqual([]);

    a.jobs.start();
    const run = await finalJob(a.jobs, submitted.id);
    expect(run.status).toBe('finished');
    expect(run.claimedBy).toBe('replica-a');
    expect(run.result).toMatchObject({ executed_checks: 4, valid_results: 4, execution_errors: 0 });
    expect((await children(submitted.id)).map((t) => [t.table_key, t.status])).toEqual([
      ['Many.t7', 'finished'],
      ['Many.t8', 'finished'],
    ]);
    // the dead replica can no longer split it (its claim is gone)
    expect(await store.jobs.fanOut(submitted.id, 'dead-replica', [{ jobType: RUN_CHECKS_ON_TABLE, parameters: {} }])).toBeUndefined();
  });

  it('never queues again a run recorded by the process running it (no heartbeat: `dqctl run checks` without a server)', async () => {
    const recorded = await store.jobs.recordRunning({ jobType: RUN_CHECKS, parameters: {}, createdBy: 'test', claimedBy: 'cli' });
    await sql.query(`update dqctl.jobs set started_at = now() - interval '1 hour' where id = $1`, [recorded.id]);
    expect(await store.jobs.requeueStale([RUN_CHECKS], 1_000)).not.toContain(recorded.id);
    expect((await store.jobs.find(String(recorded.id)))?.status).toBe('running');
    await store.jobs.finish(recorded.id, { status: 'finished', result: {} });
  });

  it('a job of several tables whose replica died before their results were written runs again: each result stored once', async () => {
    const a = replica('replica-a', { heartbeatMs: 30 });
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src' } });
    await store.jobs.claimNext('dead-replica', { jobTypes: [RUN_CHECKS] });
    const runTime = new Date().toISOString();
    const several = ['t9', 't10', 't11'].map((table) => ({ connection: 'src', schema: 'Many', table }));
    await store.jobs.fanOut(submitted.id, 'dead-replica', [
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, tables: several, run_time: runTime } },
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, table: { connection: 'src', schema: 'Many', table: 't0' }, run_time: runTime } },
    ]);
    const lost = await store.jobs.claimNext('dead-replica', { jobTypes: [], laneJobType: RUN_CHECKS_ON_TABLE });
    expect(lost?.parameters.tables).toEqual(several);
    await sql.query(`update dqctl.jobs set heartbeat_at = now() - interval '1 hour' where id = $1`, [lost!.id]);

    a.jobs.start();
    const run = await finalJob(a.jobs, submitted.id);
    expect(run.status).toBe('finished');
    expect(run.result).toMatchObject({ executed_checks: 8, valid_results: 8, execution_errors: 0 });
    expect((await children(submitted.id)).map((t) => [t.status, t.claimed_by])).toEqual([
      ['finished', 'replica-a'],
      ['finished', 'replica-a'],
    ]);
    // the earlier tests ran these tables too (another period's or the same period's rows, replaced): per table and
    // check one row of this run's period
    const rows = await sql.query<{ table_name: string; n: string }>(
      `select table_name, count(*) as n from dqctl.check_results
        where connection_name = 'src' and table_name in ('t9', 't10', 't11') and executed_at = $1::timestamptz group by table_name order by table_name`,
      [runTime],
    );
    expect(rows.rows.map((r) => [r.table_name, Number(r.n)])).toEqual([
      ['t10', 2],
      ['t11', 2],
      ['t9', 2],
    ]);
  });

  it('a live replica keeps its tables: a heartbeat within the limit is not queued again', async () => {
    const a = replica('replica-a', { heartbeatMs: 30, staleAfterMs: 60_000 });
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src' } });
    await store.jobs.claimNext('slow-replica', { jobTypes: [RUN_CHECKS] });
    await store.jobs.fanOut(submitted.id, 'slow-replica', [
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, table: { connection: 'src', schema: 'Many', table: 't3' }, run_time: new Date().toISOString() } },
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'src' }, table: { connection: 'src', schema: 'Many', table: 't4' }, run_time: new Date().toISOString() } },
    ]);
    const held = await store.jobs.claimNext('slow-replica', { jobTypes: [], laneJobType: RUN_CHECKS_ON_TABLE });
    a.jobs.start();
    // replica-a runs the other table; the one slow-replica holds (fresh heartbeat) stays with it
    const other = (await children(submitted.id)).find((t) => t.id !== String(held!.id))!;
    const ended = await finalJob(a.jobs, Number(other.id));
    expect(ended.claimedBy).toBe('replica-a');
    expect((await store.jobs.find(String(held!.id)))?.status).toBe('running');
    expect((await store.jobs.find(String(submitted.id)))?.status).toBe('waiting');
    // slow-replica ends it: the run ends with both tables
    const last = await store.jobs.finishChild(held!.id, 'slow-replica', { status: 'finished', result: { executed_checks: 2, valid_results: 2, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 } });
    expect(last?.lastOf).toBe(submitted.id);
  });

  it('cancelling a split run cancels its queued tables at once', async () => {
    const a = replica('replica-a');
    const submitted = await a.jobs.submit(RUN_CHECKS, { check_search_filters: { connection: 'src' } });
    await store.jobs.claimNext('replica-x', { jobTypes: [RUN_CHECKS] });
    await store.jobs.fanOut(submitted.id, 'replica-x', [
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { table: { connection: 'src', schema: 'Many', table: 't5' } } },
      { jobType: RUN_CHECKS_ON_TABLE, parameters: { table: { connection: 'src', schema: 'Many', table: 't6' } } },
    ]);
    const cancelled = await a.jobs.cancel(String(submitted.id));
    expect(cancelled.status).toBe('cancelled');
    expect((await children(submitted.id)).map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
  });
});
