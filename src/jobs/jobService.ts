import { hostname } from 'node:os';
import { DqError, type JsonObject } from '../model/index.js';
import type { JobRecord, JobStatus } from '../store/jobRows.js';
import type { Store } from '../store/store.js';

/**
 * Jobs: submitted into the store's queue, claimed by a worker loop (in every server; `FOR UPDATE SKIP LOCKED`
 * spreads them), run with an AbortSignal, ended as finished, failed or cancelled. Cancelling a running job
 * marks it cancel_requested; the worker sees it within `cancelPollMs` and aborts the executor, which stops
 * its SQL. `wait` returns the job when it ends in time, else the job as it is (still queued or running).
 *
 * A job may split into child jobs (a check run over many tables: one child per table): its executor queues them
 * with `store.jobs.fanOut` and returns JOB_WAITING; every server's worker claims children from the same queue, and
 * the worker that ends the last child ends the parent with what the parent type's completer makes of them.
 * Children of the lane job type (`lanes`) run at most the lane's limit at once in this worker, per connection
 * (parallel_jobs_limit), beside the `concurrency` other jobs. A running job's heartbeat is written every
 * `heartbeatMs`; jobs of `requeueTypes` whose heartbeat stopped for `staleAfterMs` (their server died) are queued
 * again by any worker.
 */
export const JOB_WAITING = Symbol('job waiting for its children');
/**
 * `slot.release()`: the job no longer needs its slot (a lane job whose data source work is done and whose results
 * are being written): the worker may start another job in it while this one finishes; the job still ends as usual.
 */
export type JobExecutor = (job: JobRecord, signal: AbortSignal, slot?: { release(): void }) => Promise<JsonObject | typeof JOB_WAITING>;

/** How a parent ends once its last child ended. */
export type JobCompleter = (parent: JobRecord) => Promise<{ status: 'finished' | 'failed'; result: JsonObject | null; errorMessage?: string | null }>;

export interface JobServiceOptions {
  /** Worker name recorded on claimed jobs. */
  worker?: string;
  /** Jobs run at once by this worker (default 2). */
  concurrency?: number;
  /** How often an idle worker looks for queued jobs another server submitted (default 500 ms). */
  pollMs?: number;
  cancelPollMs?: number;
  /** Jobs of `jobType` (parameters.table.connection) run at most `limitOf(connection)` at once in this worker. */
  lanes?: { jobType: string; limitOf: (connection: string) => Promise<number> };
  /** Per parent job type: how the parent ends when its last child ended. */
  completers?: Readonly<Record<string, JobCompleter>>;
  /** How often the heartbeat of the running jobs is written and stale jobs are looked for (default 5 s). */
  heartbeatMs?: number;
  /** A running job of `requeueTypes` without a heartbeat for this long is queued again (default 60 s). */
  staleAfterMs?: number;
  /** Job types that may run again after their server died (their work is idempotent). */
  requeueTypes?: readonly string[];
}

/** A job this worker ran, as it ended: what metrics and the log need. */
export interface JobEnded {
  job: JobRecord;
  status: 'finished' | 'failed' | 'cancelled';
  result: JsonObject | null;
  durationMs: number;
}

export const FINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['finished', 'failed', 'cancelled']);

export class JobService {
  private running = 0;
  /** Jobs of each lane (connection) running in this worker, and the lane's limit once read. */
  private readonly laneRunning = new Map<string, number>();
  private readonly laneLimits = new Map<string, number>();
  private readonly runningIds = new Set<number>();
  /** The abort controllers of the running jobs, watched together for cancel requests. */
  private readonly controllers = new Map<number, AbortController>();
  private cancelWatch: ReturnType<typeof setInterval> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = true;
  private wakeUp: (() => void) | undefined;
  /** Something changed since the loop last looked (a lane freed, a job submitted): its next idle returns at once. */
  private woken = false;
  /**
   * The last claim that found nothing: its filter (`claimKey`) and when. A claim with the same filter within
   * `pollMs` of it is not sent (it would find nothing again, but for a job another server queued meanwhile, which
   * an idle worker finds on its next poll anyway): while the lanes are full, no claim per job that found nothing.
   */
  private emptyClaim: { key: string; at: number } | undefined;
  private loop: Promise<void> | undefined;
  private readonly active = new Set<Promise<void>>();
  private readonly endListeners: ((ended: JobEnded) => void)[] = [];
  readonly worker: string;

  constructor(
    private readonly store: Store,
    private readonly executors: Readonly<Record<string, JobExecutor>>,
    private readonly options: JobServiceOptions = {},
  ) {
    this.worker = options.worker ?? `${hostname()}:${process.pid}`;
  }

  /** Called when a job this worker ran ends (the server's metrics and log). A throwing listener is ignored. */
  addEndListener(listener: (ended: JobEnded) => void): void {
    this.endListeners.push(listener);
  }

  private ended(ended: JobEnded): void {
    for (const listener of this.endListeners) {
      try {
        listener(ended);
      } catch {
        // observers never break the worker
      }
    }
  }

  supports(jobType: string): boolean {
    return jobType in this.executors;
  }

  async submit(jobType: string, parameters: JsonObject, meta: { businessKey?: string | null; createdBy?: string | null } = {}): Promise<JobRecord> {
    if (!this.supports(jobType)) throw new DqError('INVALID_ARGUMENT', `unknown job type ${jobType}`);
    if (meta.businessKey) {
      const existing = await this.store.jobs.find(meta.businessKey);
      if (existing && existing.businessKey === meta.businessKey) {
        throw new DqError('ALREADY_EXISTS', `a job with the business key ${JSON.stringify(meta.businessKey)} exists already (job ${existing.id})`);
      }
    }
    const job = await this.store.jobs.enqueue({ jobType, parameters, businessKey: meta.businessKey, createdBy: meta.createdBy });
    this.wake(true);
    return job;
  }

  /** The oldest job not ended yet whose business key starts with this prefix, if any. */
  unfinished(businessKeyPrefix: string): Promise<JobRecord | undefined> {
    return this.store.jobs.findUnfinished(businessKeyPrefix);
  }

  async get(idOrKey: string): Promise<JobRecord> {
    const job = await this.store.jobs.find(idOrKey);
    if (!job) throw new DqError('NOT_FOUND', `job ${JSON.stringify(idOrKey)} not found`);
    return job;
  }

  /** The job once it ended, or as it is when `timeoutMs` ran out first. */
  async wait(idOrKey: string, timeoutMs: number, signal?: AbortSignal): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    let job = await this.get(idOrKey);
    let delay = 20;
    while (!FINAL_STATUSES.has(job.status) && Date.now() < deadline && !signal?.aborted) {
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      delay = Math.min(delay * 2, 250);
      job = await this.get(String(job.id));
    }
    return job;
  }

  async cancel(idOrKey: string): Promise<JobRecord> {
    const job = await this.get(idOrKey);
    if (FINAL_STATUSES.has(job.status)) return job;
    return (await this.store.jobs.requestCancel(job.id)) ?? (await this.get(String(job.id)));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
    this.heartbeatTimer = setInterval(() => void this.beat(), this.options.heartbeatMs ?? 5_000);
    this.heartbeatTimer.unref?.();
  }

  /** Writes the heartbeat of the jobs this worker runs, and queues again the stale ones of dead workers. */
  private async beat(): Promise<void> {
    try {
      await this.store.jobs.heartbeat(this.worker, [...this.runningIds]);
      const types = this.options.requeueTypes ?? [];
      if (types.length > 0 && (await this.store.jobs.requeueStale(types, this.options.staleAfterMs ?? 60_000)).length > 0) this.wake(true);
    } catch {
      // the store is unreachable for a moment: the next beat tries again
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    clearInterval(this.cancelWatch);
    this.cancelWatch = undefined;
    this.stopped = true;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.active]);
  }

  private async run(): Promise<void> {
    const lane = this.options.lanes;
    const types = Object.keys(this.executors).filter((type) => type !== lane?.jobType);
    const pollMs = this.options.pollMs ?? 500;
    while (!this.stopped) {
      // what follows sees the state as it is now: a wake from here on makes the next idle return at once
      this.woken = false;
      const defaultFull = this.running >= (this.options.concurrency ?? 2);
      const fullLanes = [...this.laneRunning].filter(([connection, n]) => n >= (this.laneLimits.get(connection) ?? 1)).map(([connection]) => connection);
      if (defaultFull && !lane) {
        await this.idle(pollMs);
        continue;
      }
      const claimKey = `${defaultFull ? 1 : 0}\n${fullLanes.sort().join('\n')}`;
      const sinceEmpty = this.emptyClaim?.key === claimKey ? performance.now() - this.emptyClaim.at : Infinity;
      if (sinceEmpty < pollMs) {
        await this.idle(pollMs - sinceEmpty);
        continue;
      }
      let job: JobRecord | undefined;
      try {
        job = await this.store.jobs.claimNext(this.worker, { jobTypes: defaultFull ? [] : types, ...(lane ? { laneJobType: lane.jobType, fullLanes } : {}) });
      } catch {
        job = undefined; // the store is unreachable for a moment: try again on the next tick
      }
      if (!job) {
        this.emptyClaim = { key: claimKey, at: performance.now() };
        await this.idle(pollMs);
        continue;
      }
      // the queue held a job for this filter after all (queued by another server): look again when a slot frees
      if (this.emptyClaim?.key === claimKey) this.emptyClaim = undefined;
      const connection = lane && job.jobType === lane.jobType ? laneOf(job) : undefined;
      if (connection !== undefined) {
        this.laneRunning.set(connection, (this.laneRunning.get(connection) ?? 0) + 1);
        if (!this.laneLimits.has(connection)) this.laneLimits.set(connection, await lane!.limitOf(connection).catch(() => 1));
      } else this.running++;
      this.runningIds.add(job.id);
      const claimed = job;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (connection !== undefined) {
          const left = (this.laneRunning.get(connection) ?? 1) - 1;
          this.laneRunning.set(connection, left);
          // read the limit again when the lane is next used (the connection may have changed)
          if (left === 0) this.laneLimits.delete(connection);
        } else this.running--;
        this.wake();
      };
      const execution = this.execute(claimed, release).finally(() => {
        release();
        this.runningIds.delete(claimed.id);
        this.active.delete(execution);
        this.wake();
      });
      this.active.add(execution);
    }
  }

  /** A parent's last child ended: the parent ends with what its type's completer makes of the children. */
  private async completeParent(parentId: number): Promise<void> {
    const parent = await this.store.jobs.find(String(parentId));
    if (!parent || parent.status !== 'waiting') return;
    const completer = this.options.completers?.[parent.jobType];
    const started = parent.startedAt ? Date.parse(parent.startedAt) : Date.now();
    let outcome: Awaited<ReturnType<JobCompleter>>;
    try {
      outcome = completer ? await completer(parent) : { status: 'finished', result: null };
    } catch (error) {
      outcome = { status: 'failed', result: null, errorMessage: (error as Error).message };
    }
    const ended = await this.store.jobs.finishWaiting(parentId, outcome);
    if (ended) this.ended({ job: ended, status: outcome.status, result: outcome.result, durationMs: Date.now() - started });
  }

  /** Ends a job: a child through its parent's count (the last one ends the parent). */
  private async end(job: JobRecord, outcome: { status: 'finished' | 'failed' | 'cancelled'; result?: JsonObject | null; errorMessage?: string | null }): Promise<void> {
    if (job.parentId === null) {
      await this.store.jobs.finish(job.id, outcome);
      return;
    }
    const ended = await this.store.jobs.finishChild(job.id, this.worker, outcome);
    if (ended?.lastOf !== undefined) await this.completeParent(ended.lastOf);
  }

  /** Something changed: the loop looks again now (or as soon as its claim returns). `claim`: even with the filter of the last claim that found nothing (a job was queued). */
  private wake(claim = false): void {
    if (claim) this.emptyClaim = undefined;
    this.woken = true;
    this.wakeUp?.();
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** One statement per `cancelPollMs` for all the running jobs of this worker: those whose cancel was requested abort. */
  private watchCancels(): void {
    if (this.cancelWatch || this.controllers.size === 0) return;
    this.cancelWatch = setInterval(() => {
      if (this.controllers.size === 0) {
        clearInterval(this.cancelWatch);
        this.cancelWatch = undefined;
        return;
      }
      void this.store.jobs
        .cancelRequested([...this.controllers.keys()])
        .then((ids) => {
          for (const id of ids) this.controllers.get(id)?.abort(new DqError('INVALID_ARGUMENT', 'the job was cancelled'));
        })
        .catch(() => undefined);
    }, this.options.cancelPollMs ?? 250);
  }

  private async execute(job: JobRecord, release: () => void): Promise<void> {
    const controller = new AbortController();
    this.controllers.set(job.id, controller);
    this.watchCancels();
    const started = performance.now();
    try {
      const result = await this.executors[job.jobType](job, controller.signal, { release });
      if (result === JOB_WAITING) {
        this.wake(true); // split into children, queued now: the last of them ends it
        return;
      }
      const status = controller.signal.aborted ? 'cancelled' : 'finished';
      await this.end(job, { status, result });
      this.ended({ job, status, result, durationMs: performance.now() - started });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // a coded failure's details (e.g. a check run's counts and failed tables) stay readable as the job's result
      const details = error instanceof DqError && error.details ? (JSON.parse(JSON.stringify(error.details)) as JsonObject) : null;
      await this.end(job, controller.signal.aborted ? { status: 'cancelled', errorMessage: 'cancelled' } : { status: 'failed', errorMessage: message, result: details }).catch(() => undefined);
      this.ended({ job, status: controller.signal.aborted ? 'cancelled' : 'failed', result: details, durationMs: performance.now() - started });
    } finally {
      this.controllers.delete(job.id);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The connection of a table's job (its lane): of its `table`, or of the first of its `tables` (all of one connection). */
function laneOf(job: JobRecord): string {
  const table = job.parameters.table ?? (Array.isArray(job.parameters.tables) ? job.parameters.tables[0] : undefined);
  return table !== null && typeof table === 'object' && !Array.isArray(table) && typeof table.connection === 'string' ? table.connection : '';
}
