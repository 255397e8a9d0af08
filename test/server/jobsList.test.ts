import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * GET /api/jobs/jobs is always one bounded page (issue 25): a run over many tables is one parent job with a child
 * job per table, so the console lists the runs alone (`top_level`, each with its tables counted by status) and
 * pages through one run's tables (`parent_job_id`); DQOps's clients read the flat list, each child naming its run
 * in `jobId.parentJobId`. The jobs here are of types no executor runs, so they stay as the test leaves them.
 */
const WORKER = 'jobs-list-test';
const TABLES = 230;

interface Entry {
  jobId: { jobId: number; parentJobId?: number };
  jobType: string;
  status: string;
  childJobs?: Record<string, number>;
}
interface Answer {
  jobs: Entry[];
  page: number;
  limit: number;
  hasMore: boolean;
}

describe.each(STORE_ENGINES)('the job list, paged and grouped by run ($engine)', (engine) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let runId: number;
  let childIds: number[];
  let singles: number[];

  beforeAll(async () => {
    fx = await engine.setup();
    app = await serverOn(fx.store);
    const single = async () => (await fx.store.jobs.enqueue({ jobType: 'list_test_single', parameters: {} })).id;
    singles = [await single()];
    const run = await fx.store.jobs.enqueue({ jobType: 'list_test_run', parameters: {} });
    runId = run.id;
    expect((await fx.store.jobs.claimNext(WORKER, { jobTypes: ['list_test_run'] }))?.id).toBe(runId);
    const children = Array.from({ length: TABLES }, (_, i) => ({ jobType: 'list_test_table', parameters: { table: { connection: 'c', schema: 's', table: `t${i}` } } }));
    expect((await fx.store.jobs.fanOut(runId, WORKER, children))?.status).toBe('waiting');
    // three tables end: two finished, one failed; one is running; the rest stay queued
    for (const status of ['finished', 'finished', 'failed'] as const) {
      const child = await fx.store.jobs.claimNext(WORKER, { jobTypes: ['list_test_table'] });
      await fx.store.jobs.finishChild(child!.id, WORKER, { status });
    }
    await fx.store.jobs.claimNext(WORKER, { jobTypes: ['list_test_table'] });
    singles.push(await single(), await single());
    childIds = (await fx.sql.query<{ id: string }>('select id from dqctl.jobs where parent_id = $1 order by id desc', [runId])).map((r) => Number(r.id));
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  const list = async (query: string): Promise<Answer> => {
    const answer = await call(app, { method: 'GET', url: `/api/jobs/jobs${query}` });
    expect(answer.status).toBe(200);
    return answer.body as Answer;
  };

  it('the flat list is DQOps’s: newest first, at most 100 without a limit, each table’s job naming its run', async () => {
    const flat = await list('');
    expect(flat.jobs.length).toBe(100);
    expect(flat.limit).toBe(100);
    expect(flat.hasMore).toBe(true);
    const ids = flat.jobs.map((j) => j.jobId.jobId);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(ids.slice(0, 2)).toEqual([singles[2], singles[1]]);
    const children = flat.jobs.filter((j) => j.jobType === 'list_test_table');
    expect(children.length).toBe(98);
    expect(children.every((j) => j.jobId.parentJobId === runId)).toBe(true);
    expect(flat.jobs.find((j) => j.jobId.jobId === singles[1])!.jobId.parentJobId).toBeUndefined();
  });

  it('top_level lists the runs without their tables, each run with its tables counted by status', async () => {
    const top = await list('?top_level=true');
    expect(top.jobs.map((j) => j.jobId.jobId)).toEqual([singles[2], singles[1], runId, singles[0]]);
    expect(top.hasMore).toBe(false);
    const run = top.jobs.find((j) => j.jobId.jobId === runId)!;
    expect(run.status).toBe('waiting');
    expect(run.childJobs).toEqual({ total: TABLES, finished: 2, failed: 1, running: 1, queued: TABLES - 4 });
    expect(top.jobs.find((j) => j.jobId.jobId === singles[0])!.childJobs).toBeUndefined();
    // the camelCase spelling is the same filter
    expect((await list('?topLevel=true')).jobs.map((j) => j.jobId.jobId)).toEqual(top.jobs.map((j) => j.jobId.jobId));
  });

  it('parent_job_id pages through one run’s tables: every table once, newest first, hasMore until the last page', async () => {
    const seen: number[] = [];
    for (let page = 1; ; page++) {
      const answer = await list(`?parent_job_id=${runId}&limit=100&page=${page}`);
      expect(answer.page).toBe(page);
      expect(answer.jobs.length).toBeLessThanOrEqual(100);
      expect(answer.jobs.every((j) => j.jobId.parentJobId === runId)).toBe(true);
      seen.push(...answer.jobs.map((j) => j.jobId.jobId));
      if (!answer.hasMore) break;
      expect(page).toBeLessThan(5);
    }
    expect(seen).toEqual(childIds);
    const past = await list(`?parentJobId=${runId}&limit=100&page=4`);
    expect(past.jobs).toEqual([]);
    expect(past.hasMore).toBe(false);
  });

  it('the status filter combines with the others', async () => {
    const failed = await list(`?parent_job_id=${runId}&status=failed`);
    expect(failed.jobs.map((j) => j.status)).toEqual(['failed']);
    const waiting = await list('?top_level=true&status=waiting&status=queued');
    expect(waiting.jobs.map((j) => j.jobId.jobId)).toEqual([singles[2], singles[1], runId, singles[0]]);
  });

  it('refuses what is not a page: a limit above 1,000, page 0, a run’s tables asked for as top level, spellings that disagree', async () => {
    for (const query of ['?limit=1001', '?page=0', `?parent_job_id=${runId}&top_level=true`, '?top_level=true&topLevel=false', '?status=done']) {
      expect((await call(app, { method: 'GET', url: `/api/jobs/jobs${query}` })).status, query).toBe(400);
    }
  });

  it('the overview counts every job not ended and lists the runs, not their tables', async () => {
    const overview = (await call(app, { method: 'GET', url: '/api/overview' })).body as { jobs: { queued: number; running: number; active: Array<{ job_id: number }> } };
    // queued: the 226 tables and the three single jobs; running: the running table and the waiting run
    expect(overview.jobs.queued).toBe(TABLES - 4 + 3);
    expect(overview.jobs.running).toBe(2);
    expect(overview.jobs.active.map((j) => j.job_id)).toEqual([singles[2], singles[1], runId, singles[0]]);
  });
});
