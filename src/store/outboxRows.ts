import { SNAPSHOT_COLUMNS, toIncidentSnapshot, type IncidentSnapshot, type IncidentSnapshotRow } from './incidentRows.js';
import { chunksOfJson } from './sql/jsonChunks.js';
import { isoTimestamp, type SqlParam, type SqlQueryable } from './sql/sqlClient.js';

/**
 * The SQL of the notification outbox (migrations 0005, 0009). Rows are written in the transaction of whatever
 * caused them; the deliverer claims due rows with `FOR UPDATE SKIP LOCKED` and a lease, so replicas never send
 * one row at the same time, and a row whose sender died is claimed again once its lease ends. Times come from
 * the caller's clock (bound as parameters), never from `now()`, so tests can drive them. A row keeps the
 * incident it is about as it was at the event (copied from the incident's row when the message is written), so
 * a later change or deletion of the incident does not change what the message says.
 */
export type OutboxEvent = 'open' | 'acknowledged' | 'resolved' | 'muted';
export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxInput {
  idempotencyKey: string;
  /** An incident written earlier in the same transaction: the message copies it as it is now. */
  incidentId: string;
  event: OutboxEvent;
  /** As configured: `${ENV}` references unresolved. */
  address: string;
  /** The filtered notification that chose this address, and its message (null: the connection's addresses). */
  filterName: string | null;
  filterMessage: string | null;
  /** ISO-8601; also the first attempt's due time. */
  createdAt: string;
}

export interface OutboxMessage extends OutboxInput {
  id: number;
  connection: string;
  /** The incident as it was when the event happened. */
  incident: IncidentSnapshot;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: string;
  claimedBy: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
  lastError: string | null;
}

const COLUMNS = `id, idempotency_key, incident_id, connection_name, event, address, filter_name, filter_message, status, attempts,
  ${isoTimestamp('created_at')} as created_at, ${isoTimestamp('next_attempt_at')} as next_attempt_at, claimed_by,
  ${isoTimestamp('delivered_at')} as delivered_at, ${isoTimestamp('failed_at')} as failed_at, last_error,
  schema_name, table_name, table_priority, incident_hash, year, month, ${isoTimestamp('first_seen')} as first_seen,
  ${isoTimestamp('last_seen')} as last_seen, ${isoTimestamp('incident_until')} as incident_until, data_group,
  quality_dimension, check_category, check_type, check_name, highest_severity, failed_checks_count, issue_url`;

interface OutboxRow extends Omit<IncidentSnapshotRow, 'id'> {
  id: number | string;
  idempotency_key: string;
  incident_id: string;
  event: OutboxEvent;
  address: string;
  filter_name: string | null;
  filter_message: string | null;
  status: OutboxStatus;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  claimed_by: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  last_error: string | null;
}

function toMessage(row: OutboxRow): OutboxMessage {
  return {
    id: Number(row.id),
    idempotencyKey: row.idempotency_key,
    incidentId: row.incident_id,
    connection: row.connection_name,
    event: row.event,
    address: row.address,
    filterName: row.filter_name,
    filterMessage: row.filter_message,
    incident: toIncidentSnapshot({ ...row, id: row.incident_id }),
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    claimedBy: row.claimed_by,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
    lastError: row.last_error,
  };
}

/**
 * Writes the messages, each with a copy of its incident's row as it is now in this transaction. Every message
 * must name an incident that exists: one that names none is a bug of the caller, and fails the transaction
 * rather than being written without its incident.
 */
export async function enqueueMessages(sql: SqlQueryable, messages: readonly OutboxInput[]): Promise<void> {
  if (messages.length === 0) return;
  const statement = `with written as (insert into dqctl.notification_outbox
      (idempotency_key, incident_id, connection_name, event, address, filter_name, filter_message, status, created_at, next_attempt_at, ${SNAPSHOT_COLUMNS.join(', ')})
    select r->>0, i.id, i.connection_name, r->>2, r->>3, r->>4, r->>5, 'pending', (r->>6)::timestamptz, (r->>6)::timestamptz, ${SNAPSHOT_COLUMNS.map((c) => `i.${c}`).join(', ')}
      from jsonb_array_elements($1::text::jsonb) as r join dqctl.incidents i on i.id = r->>1
    returning 1) select count(*)::int as count from written`;
  const rows = messages.map((m) => JSON.stringify([m.idempotencyKey, m.incidentId, m.event, m.address, m.filterName, m.filterMessage, m.createdAt]));
  let written = 0;
  for (const chunk of chunksOfJson(rows)) written += Number((await sql.query<{ count: number }>(statement, [chunk]))[0]?.count ?? 0);
  if (written !== messages.length) {
    const missing = [...new Set(messages.map((m) => m.incidentId))];
    throw new Error(`the outbox was given ${messages.length} messages but wrote ${written}: a message names an incident that is not in the store (one of ${missing.slice(0, 5).join(', ')})`);
  }
}

/**
 * Up to `limit` due messages, now claimed by `worker` until `leaseUntil` (one attempt more each). Due: pending,
 * its next attempt at or before `now`, and not under another worker's live lease.
 */
export async function claimMessages(sql: SqlQueryable, request: { worker: string; now: string; leaseUntil: string; limit: number }): Promise<OutboxMessage[]> {
  const rows = await sql.query<OutboxRow>(
    `update dqctl.notification_outbox o
        set claimed_by = $1, claimed_until = $3::timestamptz, attempts = o.attempts + 1
      where o.id in (
        select id from dqctl.notification_outbox
         where status = 'pending' and next_attempt_at <= $2::timestamptz and (claimed_until is null or claimed_until < $2::timestamptz)
         order by next_attempt_at, id
         limit $4
         for update skip locked)
      returning ${COLUMNS}`,
    [request.worker, request.now, request.leaseUntil, request.limit],
  );
  return rows.map(toMessage).sort((a, b) => a.id - b.id);
}

/** Records what an attempt of `worker` came to; a worker whose claim was taken over (lease lost) changes nothing. */
export async function settleMessage(
  sql: SqlQueryable,
  id: number,
  worker: string,
  outcome: { kind: 'delivered'; at: string } | { kind: 'retry'; nextAttemptAt: string; error: string } | { kind: 'failed'; at: string; error: string },
): Promise<boolean> {
  let rows: unknown[];
  if (outcome.kind === 'delivered') {
    rows = await sql.query(
      // claimed_by stays: it names the replica that delivered
      `update dqctl.notification_outbox set status = 'delivered', delivered_at = $3::timestamptz, claimed_until = null, last_error = null
        where id = $1 and claimed_by = $2 and status = 'pending' returning id`,
      [id, worker, outcome.at],
    );
  } else if (outcome.kind === 'retry') {
    rows = await sql.query(
      `update dqctl.notification_outbox set next_attempt_at = $3::timestamptz, last_error = $4, claimed_by = null, claimed_until = null
        where id = $1 and claimed_by = $2 and status = 'pending' returning id`,
      [id, worker, outcome.nextAttemptAt, outcome.error],
    );
  } else {
    rows = await sql.query(
      `update dqctl.notification_outbox set status = 'failed', failed_at = $3::timestamptz, last_error = $4, claimed_by = null, claimed_until = null
        where id = $1 and claimed_by = $2 and status = 'pending' returning id`,
      [id, worker, outcome.at, outcome.error],
    );
  }
  return rows.length === 1;
}

export interface OutboxFilter {
  status?: OutboxStatus;
  incidentId?: string;
  connection?: string;
  /** Newest first; default 100. */
  limit?: number;
}

/** How many messages wait to be delivered (pending, due or not): the outbox backlog. */
export async function countPendingMessages(sql: SqlQueryable): Promise<number> {
  const rows = await sql.query<{ count: number }>(`select count(*)::int as count from dqctl.notification_outbox where status = 'pending'`);
  return Number(rows[0]?.count ?? 0);
}

export async function listMessages(sql: SqlQueryable, filter: OutboxFilter = {}): Promise<OutboxMessage[]> {
  const params: SqlParam[] = [];
  const where: string[] = [];
  const bind = (value: SqlParam): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.status) where.push(`status = ${bind(filter.status)}`);
  if (filter.incidentId) where.push(`incident_id = ${bind(filter.incidentId)}`);
  if (filter.connection) where.push(`connection_name = ${bind(filter.connection)}`);
  const rows = await sql.query<OutboxRow>(
    `select ${COLUMNS} from dqctl.notification_outbox ${where.length ? `where ${where.join(' and ')}` : ''} order by id desc limit ${bind(filter.limit ?? 100)}`,
    params,
  );
  return rows.map(toMessage);
}
