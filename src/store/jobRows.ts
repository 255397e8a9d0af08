import type { JsonObject } from '../model/index.js';
import { isoTimestamp, type SqlQueryable } from './sql/sqlClient.js';

/**
 * The SQL of the job queue. Claims use `FOR UPDATE SKIP LOCKED`: two workers (two servers on one PostgreSQL)
 * never claim the same job, and neither waits for the other.
 */
export const JOB_STATUSES = ['queued', 'running', 'waiting', 'finished', 'failed', 'cancel_requested', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobRecord {
  id: number;
  businessKey: string | null;
  jobType: string;
  parameters: JsonObject;
  status: JobStatus;
  result: JsonObject | null;
  errorMessage: string | null;
  createdBy: string | null;
  claimedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  statusChangedAt: string;
}

const COLUMNS = `id, business_key, job_type, parameters, status, result, error_message, created_by, claimed_by,
  ${isoTimestamp('created_at')} as created_at, ${isoTimestamp('started_at')} as started_at,
  ${isoTimestamp('finished_at')} as finished_at, ${isoTimestamp('status_changed_at')} as status_changed_at`;

interface JobRow {
  id: number | string;
  business_key: string | null;
  job_type: string;
  parameters: JsonObject | string;
  status: JobStatus;
  result: JsonObject | string | null;
  error_message: string | null;
  created_by: string | null;
  claimed_by: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  status_changed_at: string;
}

const json = (value: JsonObject | string | null): JsonObject | null => (typeof value === 'string' ? (JSON.parse(value) as JsonObject) : value);

function toRecord(row: JobRow): JobRecord {
  return {
    id: Number(row.id),
    businessKey: row.business_key,
    jobType: row.job_type,
    parameters: json(row.parameters) ?? {},
    status: row.status,
    result: json(row.result),
    errorMessage: row.error_message,
    createdBy: row.created_by,
    claimedBy: row.claimed_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    statusChangedAt: row.status_changed_at,
  };
}

export async function enqueueJob(
  sql: SqlQueryable,
  job: { jobType: string; parameters: JsonObject; businessKey?: string | null; createdBy?: string | null },
): Promise<JobRecord> {
  const rows = await sql.query<JobRow>(
    `insert into dqctl.jobs (job_type, parameters, status, business_key, created_by)
     values ($1, $2::text::jsonb, 'queued', $3, $4) returning ${COLUMNS}`,
    [job.jobType, JSON.stringify(job.parameters), job.businessKey ?? null, job.createdBy ?? null],
  );
  return toRecord(rows[0]);
}

/**
 * A job that runs in the process that records it (`dqctl run checks` without --server, the demo's run): written
 * as already running and claimed by that process, so no server's worker claims it, and ended with `finishJob`.
 * The runs a person made then show in the job list like the queued ones.
 */
export async function recordRunningJob(
  sql: SqlQueryable,
  job: { jobType: string; parameters: JsonObject; createdBy: string | null; claimedBy: string },
): Promise<JobRecord> {
  const rows = await sql.query<JobRow>(
    `insert into dqctl.jobs (job_type, parameters, status, created_by, claimed_by, started_at, status_changed_at)
     values ($1, $2::text::jsonb, 'running', $3, $4, now(), now()) returning ${COLUMNS}`,
    [job.jobType, JSON.stringify(job.parameters), job.createdBy, job.claimedBy],
  );
  return toRecord(rows[0]);
}

/** The job with this numeric id or this business key. */
export async function findJob(sql: SqlQueryable, idOrKey: string): Promise<JobRecord | undefined> {
  const id = /^\d{1,15}$/.test(idOrKey) ? Number(idOrKey) : null;
  const rows = await sql.query<JobRow>(
    `select ${COLUMNS} from dqctl.jobs where ($1::bigint is not null and id = $1) or business_key = $2 order by id limit 1`,
    [id, idOrKey],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** How many jobs have not ended, by status (queued, running, waiting, cancel_requested), across every server of the store. */
export async function countUnfinishedJobs(sql: SqlQueryable): Promise<Partial<Record<JobStatus, number>>> {
  const rows = await sql.query<{ status: JobStatus; count: number }>(
    `select status, count(*)::int as count from dqctl.jobs
      where status in ('queued', 'running', 'waiting', 'cancel_requested') group by status`,
  );
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}

/** The oldest job whose business key starts with `prefix` that has not ended (queued, running, being cancelled). */
export async function findUnfinishedJob(sql: SqlQueryable, businessKeyPrefix: string): Promise<JobRecord | undefined> {
  const pattern = `${businessKeyPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await sql.query<JobRow>(
    `select ${COLUMNS} from dqctl.jobs
      where business_key like $1 escape '\\' and status in ('queued', 'running', 'waiting', 'cancel_requested')
      order by id limit 1`,
    [pattern],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

export async function claimNextJob(sql: SqlQueryable, worker: string, jobTypes: readonly string[]): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `update dqctl.jobs set status = 'running', started_at = now(), status_changed_at = now(), claimed_by = $1
      where id = (select id from dqctl.jobs where status = 'queued' and job_type = any(string_to_array($2, ','))
                   order by id for update skip locked limit 1)
      returning ${COLUMNS}`,
    [worker, jobTypes.join(',')],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** Ends a running job: finished, failed or cancelled (a job whose cancel was requested ends cancelled). */
export async function finishJob(
  sql: SqlQueryable,
  id: number,
  outcome: { status: 'finished' | 'failed' | 'cancelled'; result?: JsonObject | null; errorMessage?: string | null },
): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `update dqctl.jobs
        set status = case when status = 'cancel_requested' then 'cancelled' else $2 end,
            result = $3::text::jsonb, error_message = $4, finished_at = now(), status_changed_at = now()
      where id = $1 and status in ('running', 'waiting', 'cancel_requested')
      returning ${COLUMNS}`,
    [id, outcome.status, outcome.result === undefined || outcome.result === null ? null : JSON.stringify(outcome.result), outcome.errorMessage ?? null],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** A queued job is cancelled at once; a running one is marked cancel_requested for its worker to stop. */
export async function requestCancel(sql: SqlQueryable, id: number): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `update dqctl.jobs
        set status = case when status = 'queued' then 'cancelled' else 'cancel_requested' end,
            finished_at = case when status = 'queued' then now() else finished_at end,
            status_changed_at = now()
      where id = $1 and status in ('queued', 'running', 'waiting')
      returning ${COLUMNS}`,
    [id],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** The newest jobs first (at most `limit`), optionally only some statuses: the job list of the console and GET /api/jobs/jobs. */
export async function listJobs(sql: SqlQueryable, options: { limit: number; afterId?: number; statuses?: readonly string[] }): Promise<JobRecord[]> {
  const rows = await sql.query<JobRow>(
    `select ${COLUMNS} from dqctl.jobs
      where id > $3 and ($2::text is null or status = any(string_to_array($2, ',')))
      order by id desc limit $1`,
    [options.limit, options.statuses && options.statuses.length > 0 ? options.statuses.join(',') : null, options.afterId ?? 0],
  );
  return rows.map(toRecord);
}
