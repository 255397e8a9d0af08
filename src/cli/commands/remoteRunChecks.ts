import type { RunChecksOutcome } from '../../app/inProcessJobs/runChecksInProcess.js';
import type { RunChecksResult } from '../../app/types.js';
import { DqError, isJsonObject, type JsonObject } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { callServer, DEFAULT_TIMEOUT_MS, type RemoteTarget } from '../remoteClient.js';

/**
 * `run checks --server`: the run is a run_checks job of that server (POST /api/jobs/runchecks), on its data
 * sources with its secrets; the CLI follows the job through the wait endpoint (30 s at a time, so no proxy
 * times out) and reads the outcome from the job: the counts when it finished; when a data source failed
 * tables, the counts and those tables from the failed job's result. Ctrl-C cancels the job on the server.
 */
interface JobIdModel {
  jobId: number;
}
interface JobEntry {
  jobId: JobIdModel;
  status: string;
  errorMessage?: string;
  result?: JsonObject;
}

const WAIT_SECONDS = 30;
const ENDED = new Set(['finished', 'failed', 'cancelled']);

export async function remoteRunChecks(target: RemoteTarget, filters: JsonObject, options: { progress: boolean }, io: CliIo): Promise<RunChecksOutcome> {
  // Ctrl-C is caught before the job is asked for: the server may start it before its id arrives here, and a
  // Ctrl-C in that moment must cancel it too (as soon as the id is known), not kill this process and leave it running
  let interrupted = false;
  let id: number | undefined;
  const cancelJob = () => {
    if (id !== undefined) void callServer(target, 'DELETE', `/api/jobs/jobs/${id}`).catch(() => undefined);
  };
  const cancel = () => {
    interrupted = true;
    cancelJob();
  };
  process.once('SIGINT', cancel);
  let job: JobEntry;
  try {
    const started = await callServer<{ jobId: JobIdModel }>(target, 'POST', '/api/jobs/runchecks?wait=false', { check_search_filters: filters });
    id = started!.jobId.jobId;
    if (interrupted) cancelJob();
    const since = Date.now();
    // each wait must end well within the client's --timeout
    const waitSeconds = Math.max(1, Math.min(WAIT_SECONDS, Math.floor((target.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 2000)));
    do {
      if (options.progress) io.stderr(`\r\x1b[Kjob ${id} on ${target.url}: ${interrupted ? 'cancelling' : 'running'}, ${Math.round((Date.now() - since) / 1000)} s`);
      // on a terminal, short waits keep the elapsed time moving
      job = (await callServer<JobEntry>(target, 'GET', `/api/jobs/jobs/${id}/wait?waitTimeout=${options.progress ? 2 : waitSeconds}`))!;
    } while (!ENDED.has(job.status));
  } finally {
    process.off('SIGINT', cancel);
    if (options.progress) io.stderr('\r\x1b[K');
  }
  if (job.status === 'cancelled') throw new DqError('QUERY_CANCELLED', `the run was cancelled (job ${id} on ${target.url})`);
  if (job.status === 'finished') return { result: job.result as RunChecksResult, tables: 0, failed: [] };
  // failed: a run whose data source failed tables carries its counts and those tables; anything else is an error
  const details = job.result;
  if (details && isJsonObject(details.result) && Array.isArray(details.failed_tables)) {
    return {
      result: details.result as RunChecksResult,
      tables: typeof details.tables === 'number' ? details.tables : details.failed_tables.length,
      failed: details.failed_tables.filter(isJsonObject).map((t) => ({
        table: String(t.table),
        code: typeof t.code === 'string' ? t.code : null,
        message: typeof t.message === 'string' ? t.message : null,
      })),
    };
  }
  throw new DqError('JOB_FAILED', `job ${id} on ${target.url} failed: ${job.errorMessage ?? 'no reason given'}`);
}
