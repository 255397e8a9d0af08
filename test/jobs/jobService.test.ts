import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobService, type JobExecutor } from '../../src/jobs/jobService.js';
import { openStore } from '../../src/store/openStore.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** A promise the test resolves when it chooses. */
function latch(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The `slow` jobs by id: started when the executor runs, finished when the test lets it (forgotten then: the
 * other engine's store numbers its jobs from 1 again). */
const slowJobs = new Map<number, { started: ReturnType<typeof latch>; finish: ReturnType<typeof latch> }>();
const slowJob = (id: number) => {
  if (!slowJobs.has(id)) slowJobs.set(id, { started: latch(), finish: latch() });
  return slowJobs.get(id)!;
};

/** Executors that exercise the queue: echo parameters, run until the test finishes them or an abort, fail. */
const executors: Record<string, JobExecutor> = {
  echo: async (job) => ({ echoed: job.parameters }),
  slow: (job, signal) =>
    new Promise((resolve, reject) => {
      const { started, finish } = slowJob(job.id);
      started.open();
      void finish.promise.then(() => {
        slowJobs.delete(job.id);
        resolve({ slept: true });
      });
      signal.addEventListener('abort', () => {
        slowJobs.delete(job.id);
        reject(signal.reason);
      });
    }),
  broken: async () => {
    throw new Error('the sensor query failed: relation "x" does not exist');
  },
};

describe.each(STORE_ENGINES)('job queue on $engine', ({ setup, engine }) => {
  let fx: StoreFixture;
  let jobs: JobService;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx.dispose());
  beforeEach(async () => {
    jobs = new JobService(fx.store, executors, { pollMs: 50, cancelPollMs: 50 });
    jobs.start();
    return () => jobs.stop();
  });

  it('runs a job and waits for its result; finds it by id and by business key', async () => {
    const job = await jobs.submit('echo', { a: 1 }, { businessKey: `key-${engine}-1`, createdBy: 'test' });
    expect(job.status).toBe('queued');
    const done = await jobs.wait(String(job.id), 10_000);
    expect(done).toMatchObject({ status: 'finished', result: { echoed: { a: 1 } }, claimedBy: jobs.worker });
    expect((await jobs.get(`key-${engine}-1`)).id).toBe(job.id);
    await expect(jobs.submit('echo', {}, { businessKey: `key-${engine}-1` })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(jobs.get('no-such-job')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('finds the unfinished job of a business key prefix, with % and _ in it taken literally', async () => {
    const slow = await jobs.submit('slow', {}, { businessKey: `schedule:a%b_${engine}:x:1` });
    await jobs.submit('echo', {}, { businessKey: `schedule:aXbY${engine}:x:1` });
    expect((await jobs.unfinished(`schedule:a%b_${engine}:`))?.id).toBe(slow.id);
    expect(await jobs.unfinished(`schedule:a_b%${engine}:`)).toBeUndefined();
    slowJob(slow.id).finish.open();
    await jobs.wait(String(slow.id), 10_000);
    expect(await jobs.unfinished(`schedule:a%b_${engine}:`)).toBeUndefined();
  });

  it('wait returns the job as it is when the timeout runs out first', async () => {
    const job = await jobs.submit('slow', {});
    const early = await jobs.wait(String(job.id), 200);
    expect(['queued', 'running']).toContain(early.status);
    expect(early.result).toBeNull();
    slowJob(job.id).finish.open();
    expect((await jobs.wait(String(job.id), 10_000)).status).toBe('finished');
  });

  it('cancels a running job: the executor is aborted and the job ends cancelled', async () => {
    const job = await jobs.submit('slow', {});
    await slowJob(job.id).started.promise;
    const requested = await jobs.cancel(String(job.id));
    expect(['cancel_requested', 'cancelled']).toContain(requested.status);
    const ended = await jobs.wait(String(job.id), 5_000);
    expect(ended.status).toBe('cancelled');
  });

  it('cancels a queued job at once', async () => {
    await jobs.stop(); // no worker: the job stays queued
    const job = await jobs.submit('echo', {});
    expect((await jobs.cancel(String(job.id))).status).toBe('cancelled');
  });

  it('a failing executor fails the job with its message', async () => {
    const job = await jobs.submit('broken', {});
    const ended = await jobs.wait(String(job.id), 10_000);
    expect(ended).toMatchObject({ status: 'failed', errorMessage: 'the sensor query failed: relation "x" does not exist' });
  });

  it('a lane frees, the next job of the lane starts at once; while the lane is full, no claim per job that finds nothing', async () => {
    await jobs.stop();
    let claims = 0;
    // the store as it is, its claims counted
    const counted = Object.assign(Object.create(fx.store) as typeof fx.store, {
      jobs: Object.assign(Object.create(fx.store.jobs) as typeof fx.store.jobs, {
        claimNext: (...args: Parameters<typeof fx.store.jobs.claimNext>) => {
          claims++;
          return fx.store.jobs.claimNext(...args);
        },
      }),
    });
    const ran: number[] = [];
    let atOnce = 0;
    let most = 0;
    const laned = new JobService(
      counted,
      {
        lane: async (job) => {
          most = Math.max(most, ++atOnce);
          ran.push(job.id);
          await new Promise((resolve) => setTimeout(resolve, 5));
          atOnce--;
          return {};
        },
      },
      // a poll far longer than the test: only the wake of a freed lane starts the next job
      { pollMs: 60_000, worker: `laned-${engine}`, lanes: { jobType: 'lane', limitOf: async () => 1 } },
    );
    const submitted = [];
    for (let i = 0; i < 6; i++) submitted.push(await laned.submit('lane', { table: { connection: 'c', schema: 's', table: `t${i}` } }));
    laned.start();
    try {
      for (const job of submitted) expect((await laned.wait(String(job.id), 15_000)).status).toBe('finished');
    } finally {
      await laned.stop();
    }
    expect(ran.sort((x, y) => x - y)).toEqual(submitted.map((job) => job.id));
    expect(most).toBe(1);
    // 6 claims that found a job, one that found the lane full, one that found nothing left (was 2 per job)
    expect(claims).toBeLessThanOrEqual(8);
  });

  if (engine === 'postgres') {
    it('two servers on one PostgreSQL share the queue and never run a job twice', async () => {
      await jobs.stop();
      const second = await openStore(fx.options);
      const runs = new Map<number, string[]>();
      // each worker's first job ends only once the other worker has run one: both take part, whatever the timing
      const ranOne = { a: latch(), b: latch() };
      const counting = (name: 'a' | 'b'): Record<string, JobExecutor> => ({
        echo: async (job) => {
          runs.set(job.id, [...(runs.get(job.id) ?? []), name]);
          ranOne[name].open();
          await ranOne[name === 'a' ? 'b' : 'a'].promise;
          return {};
        },
      });
      const a = new JobService(fx.store, counting('a'), { pollMs: 20, worker: 'a' });
      const b = new JobService(second, counting('b'), { pollMs: 20, worker: 'b' });
      const submitted = await Promise.all(Array.from({ length: 30 }, () => a.submit('echo', {})));
      a.start();
      b.start();
      for (const job of submitted) expect((await a.wait(String(job.id), 20_000)).status).toBe('finished');
      await a.stop();
      await b.stop();
      await second.close();
      expect([...runs.values()].every((workers) => workers.length === 1)).toBe(true);
      const workers = new Set([...runs.values()].flat());
      expect(workers.size).toBe(2);
    });
  }
});
