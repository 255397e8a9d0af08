/**
 * A check run over many tables is one parent job and one child job per
 * table, so that every server on the store claims tables from the same queue (FOR UPDATE SKIP LOCKED: no table
 * runs twice) and a table a dead server had claimed is queued again:
 * - `parent_id`: the run a table's job belongs to; `pending_children`: the parent's children not ended yet (the
 *   child that ends last sees 0 and ends the parent with the run's counts);
 * - `heartbeat_at`: written by the server running a job every few seconds; a running child whose heartbeat is
 *   older than the limit belonged to a server that died and is queued again.
 */
export const migration0016 = {
  version: 16,
  name: 'table_jobs',
  sql: /* sql */ `
alter table dqctl.jobs
  add column parent_id bigint references dqctl.jobs (id) on delete cascade,
  add column pending_children integer,
  add column heartbeat_at timestamptz;
create index jobs_children on dqctl.jobs (parent_id, status) where parent_id is not null;
create index jobs_running on dqctl.jobs (heartbeat_at) where status = 'running';
`,
};
