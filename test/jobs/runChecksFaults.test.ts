import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { defaultExecutors, type ExecutorDependencies } from '../../src/jobs/executors/index.js';
import { IN_PROCESS_RUN, runChecks } from '../../src/jobs/executors/runChecks.js';
import { JobService } from '../../src/jobs/jobService.js';
import type { JsonObject } from '../../src/model/index.js';
import { createSourceFixture, dqctlBackends, running, sampleMaxBackends, untilBackends, SEED_SQL, SLOW_VIEWS_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Check runs meeting a failing data source, through the job queue as the API runs them: a statement timeout, a
 * connection dropped mid-query, a table that disappeared, a job cancelled mid-run, and 10 runs at once on one
 * connection. Each time the checks' execution errors are stored, the job ends failed (or cancelled) with the
 * reason, and the next job runs.
 */
const SLOW = `${SLOW_VIEWS_SQL}
create table public.doomed (id int primary key);
insert into public.doomed values (1), (2);
`;

const rowCount: JsonObject = { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } } };

describe('check runs on a failing data source', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let deps: ExecutorDependencies;
  let jobs: JobService;

  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL + SLOW);
    fx = await STORE_ENGINES[1].setup();
  });
  afterAll(async () => {
    await jobs?.stop();
    await dataSources?.close();
    await fx.dispose();
    await source.dispose();
  });
  beforeEach(async () => {
    await jobs?.stop();
    await dataSources?.close();
    await fx.reset();
    dataSources = new DataSources({ env: source.env });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources };
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    for (const table of ['slowpoke.slow', 'slowpoke.very_slow', 'public.doomed']) await objects.create('table', `src/${table}`, rowCount, { caller: 'test' });
    jobs = new JobService(fx.store, defaultExecutors(deps), { pollMs: 20, cancelPollMs: 50, concurrency: 4 });
    jobs.start();
  });

  const submit = async (fullTableName: string) => (await jobs.submit('run_checks', { check_search_filters: { connection: 'src', fullTableName } })).id;
  const latest = (table: string) => fx.store.checkResults({ connectionName: 'src', schemaName: table.split('.')[0], tableName: table.split('.')[1], newest: { of: 'runs', count: 1 } });

  it('a statement timeout: the execution error is stored, the job fails with the reason, the next job runs', async () => {
    const impatient = new DataSources({ env: source.env, statementTimeoutMs: 100 });
    const timed = new JobService(fx.store, defaultExecutors({ ...deps, dataSources: impatient }), { pollMs: 20 });
    await jobs.stop();
    timed.start();
    try {
      const job = await timed.submit('run_checks', { check_search_filters: { connection: 'src', fullTableName: 'slowpoke.slow' } });
      const failed = await timed.wait(String(job.id), 30_000);
      expect(failed.status).toBe('failed');
      expect(failed.errorMessage).toMatch(/run checks failed for 1 of 1 table .*src\/slowpoke\.slow: .*statement timeout/);
      // the counts and the failed tables stay readable as the failed job's result
      expect(failed.result).toMatchObject({
        result: { executed_checks: expect.any(Number), highest_severity: null },
        tables: 1,
        failed_tables: [{ table: 'src/slowpoke.slow', code: 'DATASOURCE_TIMEOUT', message: expect.stringMatching(/statement timeout/) }],
      });
      expect((failed.result as any).result.execution_errors).toBe((failed.result as any).result.executed_checks);
    } finally {
      await timed.stop();
      await impatient.close();
    }
    const [row] = await latest('slowpoke.slow');
    expect(row.severity).toBeNull();
    expect(row.errorMessage).toMatch(/statement timeout/);
    jobs = new JobService(fx.store, defaultExecutors(deps), { pollMs: 20 });
    jobs.start();
    expect((await jobs.wait(String(await submit('public.doomed')), 30_000)).status).toBe('finished');
  });

  it('a connection dropped mid-query: the execution error is stored and the job fails with the reason', async () => {
    const id = await submit('slowpoke.very_slow');
    await untilBackends(source, running('very_slow'), 'the query on very_slow to run', 15_000);
    const victims = (await dqctlBackends(source)).filter((b) => b.query.includes('very_slow'));
    for (const victim of victims) await source.admin('select pg_terminate_backend($1)', [victim.pid]);
    const failed = await jobs.wait(String(id), 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.errorMessage).toMatch(/src\/slowpoke\.very_slow: .*dropped during the query/);
    const [row] = await latest('slowpoke.very_slow');
    expect(row).toMatchObject({ severity: null });
    expect(row.errorMessage).toMatch(/dropped/);
  });

  it('a table that disappeared: its checks are execution errors, the other tables run, the job fails naming it', async () => {
    await source.admin('drop table public.doomed');
    const run = await runChecks(deps, { check_search_filters: { connection: 'src', fullTableName: 'public.doomed,slowpoke.slow' } }, new AbortController().signal);
    expect(run.tables.map((t) => [t.table, t.status]).sort()).toEqual([
      ['src/public.doomed', 'failed'],
      ['src/slowpoke.slow', 'ok'],
    ]);
    expect(run.result).toMatchObject({ executed_checks: 2, valid_results: 1, execution_errors: 1 });
    const failed = await jobs.wait(String(await submit('public.doomed')), 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.errorMessage).toMatch(/src\/public\.doomed: .*the table does not exist/);
    await source.admin('create table public.doomed (id int primary key); insert into public.doomed values (1)');
  });

  it('a run made in this process (dqctl run checks, the demo) is recorded as a job of the store, ended with its counts as a queued job ends', async () => {
    await jobs.stop();
    const before = (await fx.store.jobs.list({ limit: 10 })).length;
    const ok = await runChecks(deps, { check_search_filters: { connection: 'src', fullTableName: 'public.doomed' } }, new AbortController().signal, { runBy: 'the test' });
    await source.admin('drop table public.doomed');
    await runChecks(deps, { check_search_filters: { connection: 'src', fullTableName: 'public.doomed' } }, new AbortController().signal);
    const [failed, finished] = await fx.store.jobs.list({ limit: 10 });
    expect((await fx.store.jobs.list({ limit: 10 })).length).toBe(before + 2);
    expect(finished).toMatchObject({ jobType: 'run_checks', status: 'finished', createdBy: 'the test', result: ok.result, parameters: { check_search_filters: { fullTableName: 'public.doomed' } } });
    expect(finished.startedAt).not.toBeNull();
    expect(finished.finishedAt).not.toBeNull();
    // as a queued job ends: failed, naming the table, its counts kept
    expect(failed).toMatchObject({ jobType: 'run_checks', status: 'failed', createdBy: IN_PROCESS_RUN, result: { tables: 1, failed_tables: [{ table: 'src/public.doomed' }] } });
    expect(failed.errorMessage).toMatch(/src\/public\.doomed: .*the table does not exist/);
    // a dry run (dummy_execution) stores nothing, so it is no job
    await runChecks(deps, { check_search_filters: { connection: 'src' }, dummy_execution: true }, new AbortController().signal);
    expect((await fx.store.jobs.list({ limit: 10 })).length).toBe(before + 2);
    await source.admin('create table public.doomed (id int primary key); insert into public.doomed values (1)');
  });

  it('a job cancelled mid-run: its statement stops on the source and the job ends cancelled', async () => {
    const id = await submit('slowpoke.very_slow');
    await untilBackends(source, running('very_slow'), 'the query on very_slow to run', 15_000);
    await jobs.cancel(String(id));
    expect((await jobs.wait(String(id), 10_000)).status).toBe('cancelled');
    await untilBackends(source, (backends) => !running('very_slow')(backends), 'the query on very_slow to stop', 5_000);
    // nothing half-done is stored for the cancelled run
    expect(await latest('slowpoke.very_slow')).toEqual([]);
  });

  it('10 check runs at once on one connection never use more than its parallel_jobs_limit connections', async () => {
    await jobs.stop();
    await dataSources.close();
    await untilBackends(source, (backends) => backends.length === 0, 'no dqctl connections');
    dataSources = new DataSources({ env: source.env });
    deps = { ...deps, dataSources };
    const sampling = sampleMaxBackends(source);
    const runs = await Promise.all(
      Array.from({ length: 10 }, () => runChecks(deps, { check_search_filters: { connection: 'src', fullTableName: 'slowpoke.slow' } }, new AbortController().signal)),
    );
    const max = await sampling.stop();
    expect(runs.every((r) => r.tables[0].status === 'ok' && r.result.valid_results === 1)).toBe(true);
    expect(max).toBe(2);
    // ten runs of one check on one day: one result of the day, each run replacing the one before (as DQOps)
    expect(await fx.store.checkResults({ connectionName: 'src', schemaName: 'slowpoke', tableName: 'slow' })).toHaveLength(1);
  }, 60_000);
});
