import { resolveIncidentId } from './incidentIdPrefix.js';
import { setIncidentStatus } from '../incidents/index.js';
import { DEFAULT_NOTIFICATIONS_NAME } from '../manifest/objectPaths.js';
import { DqError } from '../model/index.js';
import type { IncidentRecord, IncidentStatus, OutboxFilter, OutboxMessage, OutboxStatus, Store } from '../store/store.js';

/**
 * The incident use cases of the CLI on a local store (`dqctl incidents …`, `dqctl notifications list`); with
 * --server the CLI calls the REST API instead, which runs the same incidents functions. A status change writes
 * its messages to the outbox; the deliverer of `dqctl serve` sends them.
 */
export async function listIncidents(store: Store, filter: { connection?: string; statuses?: readonly IncidentStatus[]; limit?: number }): Promise<IncidentRecord[]> {
  return store.incidents.list({
    ...(filter.connection ? { connection: filter.connection } : {}),
    ...(filter.statuses && filter.statuses.length > 0 ? { statuses: filter.statuses } : {}),
    order: 'firstSeen',
    direction: 'desc',
    limit: filter.limit ?? 1000,
  });
}

export async function changeIncidentStatus(store: Store, id: string, status: IncidentStatus, by: string): Promise<{ incident: IncidentRecord; changed: boolean; messages: number }> {
  const incident = (await store.incidents.getById(id)) ?? resolveIncidentId(id, await store.incidents.list({ idPrefix: id.trim().toLowerCase(), limit: 1000 }));
  const [source, defaults] = await Promise.all([
    store.getObjects([{ kind: 'source', name: incident.connection }]),
    store.getObjects([{ kind: 'default_notifications', name: DEFAULT_NOTIFICATIONS_NAME }]),
  ]);
  return setIncidentStatus(
    store,
    { connection: incident.connection, year: incident.year, month: incident.month, id: incident.id },
    { status, by, at: new Date().toISOString(), connectionSpec: source[0]?.spec, defaultNotifications: defaults[0]?.spec },
  );
}

/** A message of the outbox as the API (NotificationMessageModel) and the CLI show it: no payload, its table named. */
export interface NotificationView {
  id: number;
  idempotencyKey: string;
  incidentId: string;
  connection: string;
  event: OutboxMessage['event'];
  address: string;
  filterName: string | null;
  filterMessage: string | null;
  status: OutboxStatus;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  deliveredAt: string | null;
  failedAt: string | null;
  lastError: string | null;
  schema: string;
  tableName: string;
  /** `schema.table`, for display. */
  table: string;
}

export function notificationView(m: OutboxMessage): NotificationView {
  return {
    id: m.id,
    idempotencyKey: m.idempotencyKey,
    incidentId: m.incidentId,
    connection: m.connection,
    event: m.event,
    address: m.address,
    filterName: m.filterName,
    filterMessage: m.filterMessage,
    status: m.status,
    attempts: m.attempts,
    createdAt: m.createdAt,
    nextAttemptAt: m.nextAttemptAt,
    deliveredAt: m.deliveredAt,
    failedAt: m.failedAt,
    lastError: m.lastError,
    schema: m.incident.schema,
    tableName: m.incident.table,
    table: `${m.incident.schema}.${m.incident.table}`,
  };
}

export async function listNotifications(store: Store, filter: OutboxFilter): Promise<NotificationView[]> {
  return (await store.outbox.list({ ...filter, limit: filter.limit ?? 100 })).map(notificationView);
}
