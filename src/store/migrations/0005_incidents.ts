/**
 * Incidents and the notification outbox.
 *
 * An incident groups the failed checks of one grouping key (table, quality dimension, category, … as the
 * connection's incident_grouping says) over a stretch of time; `incident_hash` names the key, so the incidents of
 * one key over the months share it. It belongs to the month of its first failure (`year`, `month`), as in DQOps.
 *
 * The outbox holds one row per message and address, written in the same transaction as the check results or the
 * status change that caused it, so that a crash loses neither: the deliverer (src/notify) claims rows with
 * `FOR UPDATE SKIP LOCKED` and a lease (`claimed_until`), so several servers on one PostgreSQL send each once,
 * and a server killed while sending leaves the row to be claimed again when the lease ends. `address` is kept
 * as written: `${ENV}` references are resolved only when sending.
 */
export const migration0005 = {
  version: 5,
  name: 'incidents',
  sql: /* sql */ `
create table dqctl.incidents (
  id                  text        primary key,
  connection_name     text        not null,
  schema_name         text        not null,
  table_name          text        not null,
  table_priority      integer,
  incident_hash       bigint      not null,
  year                integer     not null,
  month               integer     not null,
  first_seen          timestamptz not null,
  last_seen           timestamptz not null,
  incident_until      timestamptz not null,
  data_group          text,
  quality_dimension   text,
  check_category      text,
  check_type          text,
  check_name          text,
  highest_severity    integer     not null check (highest_severity between 1 and 3),
  minimum_severity    integer     not null check (minimum_severity between 1 and 3),
  failed_checks_count integer     not null,
  issue_url           text,
  status              text        not null check (status in ('open', 'acknowledged', 'resolved', 'muted')),
  status_changed_at   timestamptz not null,
  status_changed_by   text
);
create index incidents_by_hash on dqctl.incidents (connection_name, incident_hash, first_seen desc);
create index incidents_by_connection on dqctl.incidents (connection_name, first_seen desc);

create table dqctl.notification_outbox (
  id              bigint generated always as identity primary key,
  idempotency_key text        not null unique,
  incident_id     text        not null,
  connection_name text        not null,
  event           text        not null check (event in ('open', 'acknowledged', 'resolved', 'muted')),
  address         text        not null,
  filter_name     text,
  payload         jsonb       not null,
  status          text        not null check (status in ('pending', 'delivered', 'failed')),
  attempts        integer     not null default 0,
  created_at      timestamptz not null,
  next_attempt_at timestamptz not null,
  claimed_by      text,
  claimed_until   timestamptz,
  delivered_at    timestamptz,
  failed_at       timestamptz,
  last_error      text
);
create index notification_outbox_due on dqctl.notification_outbox (next_attempt_at, id) where status = 'pending';
create index notification_outbox_incident on dqctl.notification_outbox (incident_id);
`,
};
