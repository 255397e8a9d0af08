/**
 * The job queue: one row per job (run checks, collect statistics, collect error samples, delete stored data).
 * Workers claim queued jobs with `FOR UPDATE SKIP LOCKED`, so several servers on one PostgreSQL share the work
 * and never run one job twice. A caller-chosen business key identifies a job as well as its id.
 */
export const migration0003 = {
  version: 3,
  name: 'jobs',
  sql: /* sql */ `
create table dqctl.jobs (
  id               bigint generated always as identity primary key,
  business_key     text unique,
  job_type         text        not null,
  parameters       jsonb       not null default '{}'::jsonb,
  status           text        not null check (status in ('queued', 'running', 'waiting', 'finished', 'failed', 'cancel_requested', 'cancelled')),
  result           jsonb,
  error_message    text,
  created_by       text,
  claimed_by       text,
  created_at       timestamptz not null default now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  status_changed_at timestamptz not null default now()
);
create index jobs_queued on dqctl.jobs (id) where status = 'queued';
`,
};
