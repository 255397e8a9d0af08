import { hostname } from 'node:os';
import { DqError, type JsonObject } from '../model/index.js';
import type { JobRecord, JobStatus } from '../store/jobRows.js';
import type { Store } from '../store/store.js';

/**
 * Jobs: submitted into the store's queue, claimed by a worker loop (in every server; `FOR UPDATE SKIP LOCKED`
 * spreads them), run with an AbortSignal, ended as finished, failed or cancelled. Cancelling a running job
 * marks it cancel_requested; the worker sees it within `cancelPollMs` and aborts the executor, which stops
 * its SQL. `wait` returns the job when it ends in time, else the job as it is (still queued or running).
 */
export type JobExecutor = (job: JobRecord, signal: AbortSignal) => Promise<JsonObject>;

export interface JobServiceOptions {
  /** Worker name recorded on claimed jobs. */
  worker?: string;
  /** Jobs run at once by this worker (default 2). */
  concurrency?: number;
  /** How often an idle worker looks for queued jobs another server submitted (default 500 ms). */
  pollMs?: number;
  cancelPollMs?: number;
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
  private stopped = true;
  private wakeUp: (() => void) | undefined;
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
    this.wakeUp?.();
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
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.loop;
    await Promise.allSettled([...this.active]);
  }

  private async run(): Promise<void> {
    const types = Object.keys(this.executors);
    while (!this.stopped) {
      if (this.running >= (this.options.concurrency ?? 2)) {
        await this.idle(this.options.pollMs ?? 500);
        continue;
      }
      let job: JobRecord | undefined;
      try {
        job = await this.store.jobs.claimNext(this.worker, types);
      } catch {
        job = undefined; // the store is unreachable for a moment: try again on the next tick
      }
      if (!job) {
        await this.idle(this.options.pollMs ?? 500);
        continue;
      }
      const execution = this.execute(job).finally(() => {
        this.running--;
        this.active.delete(execution);
        this.wakeUp?.();
      });
      this.running++;
      this.active.add(execution);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async execute(job: JobRecord): Promise<void> {
    const controller = new AbortController();
    const watch = setInterval(() => {
      void this.store.jobs
        .find(String(job.id))
        .then((current) => {
          if (current?.status === 'cancel_requested') controller.abort(new DqError('INVALID_ARGUMENT', 'the job was cancelled'));
        })
        .catch(() => undefined);
    }, this.options.cancelPollMs ?? 250);
    const started = performance.now();
    try {
      const result = await this.executors[job.jobType](job, controller.signal);
      const status = controller.signal.aborted ? 'cancelled' : 'finished';
      await this.store.jobs.finish(job.id, { status, result });
      this.ended({ job, status, result, durationMs: performance.now() - started });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // a coded failure's details (e.g. a check run's counts and failed tables) stay readable as the job's result
      const details = error instanceof DqError && error.details ? (JSON.parse(JSON.stringify(error.details)) as JsonObject) : null;
      await this.store.jobs
        .finish(job.id, controller.signal.aborted ? { status: 'cancelled', errorMessage: 'cancelled' } : { status: 'failed', errorMessage: message, result: details })
        .catch(() => undefined);
      this.ended({ job, status: controller.signal.aborted ? 'cancelled' : 'failed', result: details, durationMs: performance.now() - started });
    } finally {
      clearInterval(watch);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
