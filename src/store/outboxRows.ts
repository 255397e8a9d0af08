import type { JsonObject } from '../model/index.js';
import { insertJsonRecords, type RecordColumn } from './sql/jsonChunks.js';
import { isoTimestamp, type SqlParam, type SqlQueryable } from './sql/sqlClient.js';

/**
 * The SQL of the notification outbox (migration 0005). Rows are written in the transaction of whatever caused
 * them; the deliverer claims due rows with `FOR UPDATE SKIP LOCKED` and a lease, so replicas never send one row
 * at the same time, and a row whose sender died is claimed again once its lease ends. Times come from the
 * caller's clock (bound as parameters), never from `now()`, so tests can drive them.
 */
export type OutboxEvent = 'open' | 'acknowledged' | 'resolved' | 'muted';
export type OutboxStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxInput {
  idempotencyKey: string;
  incidentId: string;
  connection: string;
  event: OutboxEvent;
  /** As configured: `${ENV}` references unresolved. */
  address: string;
  filterName: string | null;
  payload: JsonObject;
  /** ISO-8601; also the first attempt's due time. */
  createdAt: string;
}

export interface OutboxMessage extends OutboxInput {
  id: number;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: string;
  claimedBy: string | null;
  deliveredAt: string | null;
  failedAt: string | null;
  lastError: string | null;
}

const COLUMNS = `id, idempotency_key, incident_id, connection_name, event, address, filter_name, payload, status, attempts,
  ${isoTimestamp('created_at')} as created_at, ${isoTimestamp('next_attempt_at')} as next_attempt_at, claimed_by,
  ${isoTimestamp('delivered_at')} as delivered_at, ${isoTimestamp('failed_at')} as failed_at, last_error`;

interface OutboxRow {
  id: number | string;
  idempotency_key: string;
  incident_id: string;
  connection_name: string;
  event: OutboxEvent;
  address: string;
  filter_name: string | null;
  payload: JsonObject | string;
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
    payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as JsonObject) : row.payload,
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

const INSERT_COLUMNS: readonly RecordColumn[] = [
  ['idempotency_key', 'text'],
  ['incident_id', 'text'],
  ['connection_name', 'text'],
  ['event', 'text'],
  ['address', 'text'],
  ['filter_name', 'text'],
  ['payload', 'jsonb'],
  ['status', 'text', `'pending'`],
  ['created_at', 'timestamptz'],
  ['next_attempt_at', 'timestamptz'],
];

export async function enqueueMessages(sql: SqlQueryable, messages: readonly OutboxInput[]): Promise<void> {
  if (messages.length === 0) return;
  await insertJsonRecords(
    sql,
    'dqctl.notification_outbox',
    INSERT_COLUMNS,
    messages.map((m) => ({
      idempotency_key: m.idempotencyKey,
      incident_id: m.incidentId,
      connection_name: m.connection,
      event: m.event,
      address: m.address,
      filter_name: m.filterName,
      payload: m.payload,
      created_at: m.createdAt,
      next_attempt_at: m.createdAt,
    })),
  );
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
