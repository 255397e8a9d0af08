import { refuseUnsupportedCheckFilters } from '../jobs/checkRun/plannedChecks.js';
import { deleteStoredDataRequest } from '../jobs/executors/deleteStoredData.js';
import { JOB_TYPES } from '../jobs/executors/index.js';
import type { JobService } from '../jobs/jobService.js';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import type { JobRecord } from '../store/jobRows.js';
import type { StoreReader } from '../store/store.js';
import { checkSearchNames, refuseUnknownFilterNames, statisticsFilterNames, type NameFilters } from './filterNames.js';

/**
 * Starting a job from a request (POST /api/jobs/…): refused with 501 when this version has no executor for it,
 * its parameters checked before it is queued (a 400 instead of a failed job), the names its filters give checked
 * against the live store as the CLI's local runs check them (a typo is UNKNOWN_NAME with the closest names, a
 * store where nothing was applied NOTHING_APPLIED, instead of a job that ran nothing), then queued and, when asked,
 * awaited. The answer is the job as it stands when the wait ends (finished, or still queued or running).
 */
export type JobKind = keyof typeof JOB_TYPES;

/** What each kind refuses before it is queued (filters this version cannot apply, a delete of configuration). */
const REFUSE: Partial<Record<JobKind, (parameters: JsonObject) => unknown>> = {
  runChecks: refuseUnsupportedCheckFilters,
  collectErrorSamples: refuseUnsupportedCheckFilters,
  deleteStoredData: deleteStoredDataRequest,
};

/** The names each kind's filters give, checked against the live store before it is queued. */
const NAMES: Partial<Record<JobKind, (parameters: JsonObject) => NameFilters>> = {
  runChecks: (p) => checkSearchNames(isJsonObject(p.check_search_filters) ? p.check_search_filters : {}),
  collectErrorSamples: (p) => checkSearchNames(isJsonObject(p.check_search_filters) ? p.check_search_filters : {}),
  collectStatistics: statisticsFilterNames,
};

export interface JobStart {
  kind: JobKind;
  /** What the job does, for the 501 of a version without it ("running checks"). */
  what: string;
  parameters: JsonObject;
  /** Turns a client's spelling of the parameters into the executor's, in place, before they are checked. */
  prepare?: (parameters: JsonObject) => void;
  businessKey: string | null;
  createdBy: string;
  /** Wait this long for the job to end; null: answer at once. */
  waitMs: number | null;
}

export async function startJob(jobs: JobService, store: StoreReader, start: JobStart): Promise<JobRecord> {
  const jobType = JOB_TYPES[start.kind];
  if (!jobs.supports(jobType)) {
    throw new DqError('NOT_IMPLEMENTED', `${start.what} on data sources is not available in this version of dqctl (no executor for ${jobType} jobs)`);
  }
  const parameters = { ...start.parameters };
  start.prepare?.(parameters);
  REFUSE[start.kind]?.(parameters);
  const names = NAMES[start.kind];
  if (names) await refuseUnknownFilterNames(store, names(parameters), { requireApplied: true });
  const job = await jobs.submit(jobType, parameters, { businessKey: start.businessKey, createdBy: start.createdBy });
  return start.waitMs === null ? job : jobs.wait(String(job.id), start.waitMs);
}

/** Is the job one of this kind (a wait route of one kind answers 404 for a job of another)? */
export function isJobOfKind(job: JobRecord, kind: JobKind): boolean {
  return job.jobType === JOB_TYPES[kind];
}
