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
  /** The run this job is a part of (a table's job of a check run over many tables), else null. */
  parentId: number | null;
  /** A parent's children not ended yet (null for a job without children). */
  pendingChildren: number | null;
}

const COLUMNS = `id, business_key, job_type, parameters, status, result, error_message, created_by, claimed_by,
  ${isoTimestamp('created_at')} as created_at, ${isoTimestamp('started_at')} as started_at,
  ${isoTimestamp('finished_at')} as finished_at, ${isoTimestamp('status_changed_at')} as status_changed_at,
  parent_id, pending_children`;

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
  parent_id: number | string | null;
  pending_children: number | null;
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
    parentId: row.parent_id === null || row.parent_id === undefined ? null : Number(row.parent_id),
    pendingChildren: row.pending_children ?? null,
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

/**
 * What a worker may claim now: any queued job of `jobTypes`, and jobs of `laneJobType` (a table's job of a check
 * run) unless their connection (`parameters.table.connection`, or the first of `parameters.tables`) is one of `fullLanes`, the connections whose
 * parallel_jobs_limit this worker is using up.
 */
export interface ClaimFilter {
  jobTypes: readonly string[];
  laneJobType?: string;
  fullLanes?: readonly string[];
}

export async function claimNextJob(sql: SqlQueryable, worker: string, filter: ClaimFilter): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `update dqctl.jobs set status = 'running', started_at = now(), status_changed_at = now(), heartbeat_at = now(), claimed_by = $1
      where id = (select id from dqctl.jobs
                   where status = 'queued'
                     and (job_type = any(string_to_array($2, ','))
                          or (job_type = $3 and not (coalesce(parameters #>> '{table,connection}', parameters #>> '{tables,0,connection}', '') in (select jsonb_array_elements_text($4::text::jsonb)))))
                   order by id for update skip locked limit 1)
      returning ${COLUMNS}`,
    [worker, filter.jobTypes.join(','), filter.laneJobType ?? null, JSON.stringify(filter.fullLanes ?? [])],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/**
 * Splits a running job into child jobs (one transaction): the children are queued with the job as their parent,
 * and the job waits (status `waiting`) until the last of them ends (finishChildJob). Refused (undefined) when the
 * job is no longer running for `worker` (cancelled meanwhile, or queued again after a missed heartbeat).
 */
export async function fanOutJob(
  sql: SqlQueryable,
  parentId: number,
  worker: string,
  children: readonly { jobType: string; parameters: JsonObject }[],
): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `with parent as (
       update dqctl.jobs set status = 'waiting', status_changed_at = now(), pending_children = $3
        where id = $1 and claimed_by = $2 and status = 'running'
        returning id, created_by
     ), children as (
       insert into dqctl.jobs (job_type, parameters, status, created_by, parent_id)
       select child->>0, child->1, 'queued', parent.created_by, parent.id
         from parent, jsonb_array_elements($4::text::jsonb) as child
       returning id
     )
     select ${COLUMNS} from dqctl.jobs where id = (select id from parent) and (select count(*) from children) = $3`,
    [parentId, worker, children.length, JSON.stringify(children.map((c) => [c.jobType, c.parameters]))],
  );
  return rows[0] ? { ...toRecord(rows[0]), status: 'waiting', pendingChildren: children.length } : undefined;
}

/**
 * Ends a child job that `worker` runs, and counts it off its parent, in one statement. Returns the child as
 * ended (undefined when `worker` no longer runs it: it was queued again after a missed heartbeat, and another
 * worker's end counts) and, when it was the parent's last child, the parent's id: the caller ends the parent.
 */
export async function finishChildJob(
  sql: SqlQueryable,
  id: number,
  worker: string,
  outcome: { status: 'finished' | 'failed' | 'cancelled'; result?: JsonObject | null; errorMessage?: string | null },
): Promise<{ job: JobRecord; lastOf?: number } | undefined> {
  const rows = await sql.query<JobRow & { parent_pending: number | null }>(
    `with child as (
       update dqctl.jobs
          set status = case when status = 'cancel_requested' then 'cancelled' else $2 end,
              result = $3::text::jsonb, error_message = $4, finished_at = now(), status_changed_at = now()
        where id = $1 and claimed_by = $5 and status in ('running', 'cancel_requested')
        returning *
     ), parent as (
       update dqctl.jobs p set pending_children = p.pending_children - 1
         from child where p.id = child.parent_id
        returning p.pending_children
     )
     select ${COLUMNS}, (select pending_children from parent) as parent_pending
       from child`,
    [id, outcome.status, outcome.result === undefined || outcome.result === null ? null : JSON.stringify(outcome.result), outcome.errorMessage ?? null, worker],
  );
  const row = rows[0];
  if (!row) return undefined;
  const job = toRecord(row);
  return row.parent_pending === 0 && job.parentId !== null ? { job, lastOf: job.parentId } : { job };
}

/** The counts of a parent's children by status, and the children's results summed: what ends a check run. */
export interface ChildJobTotals {
  byStatus: Partial<Record<JobStatus, number>>;
  /** Sums of the children's numeric result fields named in `fields` (of a failed child, those of `result.result`). */
  sums: Record<string, number>;
  /** The first failed children. */
  failed: Array<{ id: number; result: JsonObject | null; errorMessage: string | null }>;
}

export async function childJobTotals(sql: SqlQueryable, parentId: number, fields: readonly string[], failedLimit: number): Promise<ChildJobTotals> {
  const sumRows = await sql.query<Record<string, unknown>>(
    `select status, count(*)::int as count,
            ${fields.map((_, i) => `coalesce(sum((coalesce(result->'result', result)->>$${i + 2})::bigint), 0)::bigint as f${i}`).join(', ')}
       from dqctl.jobs where parent_id = $1 group by status`,
    [parentId, ...fields],
  );
  const byStatus: Partial<Record<JobStatus, number>> = {};
  const sums: Record<string, number> = Object.fromEntries(fields.map((f) => [f, 0]));
  for (const row of sumRows) {
    byStatus[row.status as JobStatus] = Number(row.count);
    fields.forEach((field, i) => (sums[field] += Number(row[`f${i}`])));
  }
  const failedRows = await sql.query<JobRow>(
    `select ${COLUMNS} from dqctl.jobs where parent_id = $1 and status = 'failed' order by id limit $2`,
    [parentId, failedLimit],
  );
  return { byStatus, sums, failed: failedRows.map((row) => ({ id: Number(row.id), result: json(row.result), errorMessage: row.error_message })) };
}

/** Ends a waiting parent (its last child ended); undefined when it is not waiting (cancelled meanwhile). */
export async function finishWaitingJob(
  sql: SqlQueryable,
  id: number,
  outcome: { status: 'finished' | 'failed'; result?: JsonObject | null; errorMessage?: string | null },
): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `update dqctl.jobs set status = $2, result = $3::text::jsonb, error_message = $4, finished_at = now(), status_changed_at = now()
      where id = $1 and status = 'waiting' returning ${COLUMNS}`,
    [id, outcome.status, outcome.result === undefined || outcome.result === null ? null : JSON.stringify(outcome.result), outcome.errorMessage ?? null],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** Which of these jobs have a cancel request (one statement for all the jobs a worker runs). */
export async function cancelRequestedJobs(sql: SqlQueryable, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await sql.query<{ id: number | string }>(
    `select id from dqctl.jobs where id in (select jsonb_array_elements_text($1::text::jsonb)::bigint) and status = 'cancel_requested'`,
    [JSON.stringify(ids)],
  );
  return rows.map((row) => Number(row.id));
}

/** Marks the jobs `worker` runs as alive (their heartbeat now). */
export async function heartbeatJobs(sql: SqlQueryable, worker: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.query(`update dqctl.jobs set heartbeat_at = now() where id in (select jsonb_array_elements_text($1::text::jsonb)::bigint) and claimed_by = $2 and status in ('running', 'cancel_requested')`, [JSON.stringify(ids), worker]);
}

/**
 * Queues again the running jobs of `jobTypes` whose heartbeat is older than `staleAfterMs` (their server died or
 * lost the store): another worker claims them. Only for jobs that may run twice (a table's checks: the results
 * are upserted; a check run that died before it was split into its tables). Only jobs a worker claimed from the
 * queue have a heartbeat: a run recorded by the process running it (`dqctl run checks` without a server) is
 * never queued. Returns the ids.
 */
export async function requeueStaleJobs(sql: SqlQueryable, jobTypes: readonly string[], staleAfterMs: number): Promise<number[]> {
  const rows = await sql.query<{ id: number | string }>(
    `update dqctl.jobs set status = 'queued', claimed_by = null, started_at = null, heartbeat_at = null, status_changed_at = now()
      where status = 'running' and job_type = any(string_to_array($1, ','))
        and heartbeat_at < now() - make_interval(secs => $2::double precision / 1000)
      returning id`,
    [jobTypes.join(','), staleAfterMs],
  );
  return rows.map((row) => Number(row.id));
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

/**
 * A queued job is cancelled at once; a running one is marked cancel_requested for its worker to stop. A job
 * waiting for its children (a check run split by table) is cancelled at once, with its queued children; its
 * running children are marked cancel_requested.
 */
export async function requestCancel(sql: SqlQueryable, id: number): Promise<JobRecord | undefined> {
  const rows = await sql.query<JobRow>(
    `with job as (
       update dqctl.jobs
          set status = case when status in ('queued', 'waiting') then 'cancelled' else 'cancel_requested' end,
              finished_at = case when status in ('queued', 'waiting') then now() else finished_at end,
              status_changed_at = now()
        where id = $1 and status in ('queued', 'running', 'waiting')
        returning *
     ), children as (
       update dqctl.jobs c
          set status = case when c.status = 'queued' then 'cancelled' else 'cancel_requested' end,
              finished_at = case when c.status = 'queued' then now() else c.finished_at end,
              status_changed_at = now()
         from job where c.parent_id = job.id and c.status in ('queued', 'running')
        returning c.id
     )
     select ${COLUMNS} from job where (select count(*) from children) >= 0`,
    [id],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/**
 * Which jobs a list holds: the newest first, at most `limit`, skipping `offset`; with `afterId` only newer ones,
 * with `statuses` only those; `parentId`: only the jobs of that run (its tables), `topLevel`: only jobs that are
 * no part of a run (a run over 10,000 tables is one row, not 10,001).
 */
export interface JobListFilter {
  limit: number;
  offset?: number;
  afterId?: number;
  statuses?: readonly string[];
  parentId?: number;
  topLevel?: boolean;
}

/** The job list of the console and GET /api/jobs/jobs (one page of it). */
export async function listJobs(sql: SqlQueryable, options: JobListFilter): Promise<JobRecord[]> {
  const rows = await sql.query<JobRow>(
    `select ${COLUMNS} from dqctl.jobs
      where id > $3 and ($2::text is null or status = any(string_to_array($2, ',')))
        and ($4::bigint is null or parent_id = $4) and (not $5::boolean or parent_id is null)
      order by id desc limit $1 offset $6`,
    [
      options.limit,
      options.statuses && options.statuses.length > 0 ? options.statuses.join(',') : null,
      options.afterId ?? 0,
      options.parentId ?? null,
      options.topLevel === true,
      options.offset ?? 0,
    ],
  );
  return rows.map(toRecord);
}

/** How many jobs each of these runs has, by status (one statement over the index of children). */
export async function countChildJobs(sql: SqlQueryable, parentIds: readonly number[]): Promise<Map<number, Partial<Record<JobStatus, number>>>> {
  const counts = new Map<number, Partial<Record<JobStatus, number>>>();
  if (parentIds.length === 0) return counts;
  const rows = await sql.query<{ parent_id: number | string; status: JobStatus; count: number | string }>(
    `select parent_id, status, count(*)::int as count from dqctl.jobs
      where parent_id in (select jsonb_array_elements_text($1::text::jsonb)::bigint) group by parent_id, status`,
    [JSON.stringify(parentIds)],
  );
  for (const row of rows) {
    const id = Number(row.parent_id);
    let byStatus = counts.get(id);
    if (!byStatus) counts.set(id, (byStatus = {}));
    byStatus[row.status] = Number(row.count);
  }
  return counts;
}
