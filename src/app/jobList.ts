import type { Store } from './services.js';
import type { JobRecord } from './services.js';
import { DqError } from '../model/index.js';
import { JOB_STATUSES, type JobStatus } from '../store/jobRows.js';

/**
 * The job list (GET /api/jobs/jobs, the console's jobs page): always one bounded page, the newest jobs first. A
 * check run over many tables is one parent job with a child job per table, so a run over 10,000 tables would fill
 * any page with its children: `topLevel` lists the runs alone (each with its children counted by status), and
 * `parentJobId` pages through one run's children. Without either the list is flat, as DQOps's clients read it
 * (each child names its parent in `jobId.parentJobId`).
 */
export interface JobListRequest {
  /** Rows per page: 100 unless given, at most 1,000. */
  limit?: number;
  /** The first page is 1. */
  page?: number;
  statuses?: readonly string[];
  parentJobId?: number;
  topLevel?: boolean;
}

export interface JobListPage {
  jobs: JobRecord[];
  /** Each listed run's children by status (only jobs that have children). */
  children: Map<number, Partial<Record<JobStatus, number>>>;
  page: number;
  limit: number;
  /** Whether a next page holds more jobs. */
  hasMore: boolean;
}

export const JOB_LIST_DEFAULT_LIMIT = 100;
export const JOB_LIST_MAX_LIMIT = 1000;

export async function listJobPage(store: Store, request: JobListRequest): Promise<JobListPage> {
  const limit = request.limit ?? JOB_LIST_DEFAULT_LIMIT;
  const page = request.page ?? 1;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > JOB_LIST_MAX_LIMIT) throw new DqError('INVALID_ARGUMENT', `limit must be a whole number from 1 to ${JOB_LIST_MAX_LIMIT}`);
  if (!Number.isSafeInteger(page) || page < 1) throw new DqError('INVALID_ARGUMENT', 'page must be a whole number of at least 1');
  for (const status of request.statuses ?? []) {
    if (!(JOB_STATUSES as readonly string[]).includes(status)) throw new DqError('INVALID_ARGUMENT', `unknown job status ${JSON.stringify(status)}`);
  }
  if (request.parentJobId !== undefined && request.topLevel) throw new DqError('INVALID_ARGUMENT', 'a run’s jobs (parentJobId) are never top level: ask for one or the other');
  // one row more than the page tells whether another page follows, without counting every job
  const rows = await store.jobs.list({
    limit: limit + 1,
    offset: (page - 1) * limit,
    statuses: request.statuses,
    parentId: request.parentJobId,
    topLevel: request.topLevel,
  });
  const jobs = rows.slice(0, limit);
  const runs = jobs.filter((j) => j.pendingChildren !== null).map((j) => j.id);
  return { jobs, children: await store.jobs.countChildren(runs), page, limit, hasMore: rows.length > limit };
}
