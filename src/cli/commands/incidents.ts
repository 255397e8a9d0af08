import { changeIncidentStatus, listIncidents, listNotifications, type NotificationView } from '../../app/incidentCommands.js';
import { resolveIncidentId } from '../../app/incidentIdPrefix.js';
import type { IncidentRecord } from '../../app/types.js';
import { DqError, INCIDENT_STATUSES, int64Json, SEVERITY_NAMES, toCheckType, toSeverityNumber, type IncidentStatus, type JsonObject } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

/**
 * `dqctl incidents list`, `dqctl incidents acknowledge|resolve|mute|reopen ID` and `dqctl notifications list`:
 * on the local store, or through a server's REST API with --server (the same incidents, the same outbox).
 * Handlers return the exit code; `--format json` prints the same values the text shows.
 */
export interface IncidentsListOptions extends StoreFlags, RemoteFlags {
  connection?: string;
  status?: string[];
  format: 'text' | 'json';
}

export interface IncidentStatusOptions extends StoreFlags, RemoteFlags {
  connection?: string;
  format: 'text' | 'json';
}

export interface NotificationsListOptions extends StoreFlags, RemoteFlags {
  failed?: boolean;
  status?: 'pending' | 'delivered' | 'failed';
  limit: string;
  format: 'text' | 'json';
}

/** What the CLI shows of an incident: the store's record, from the local store or from a server's IncidentModel. */
type IncidentView = Omit<IncidentRecord, 'statusChangedAt' | 'statusChangedBy'>;

export const STATUS_OF_VERB: Record<string, IncidentStatus> = { acknowledge: 'acknowledged', resolve: 'resolved', mute: 'muted', reopen: 'open' };

function statusesOf(options: { status?: string[] }): IncidentStatus[] | undefined {
  const statuses = (options.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  for (const s of statuses) {
    if (!(INCIDENT_STATUSES as readonly string[]).includes(s)) throw new DqError('INVALID_ARGUMENT', `--status must be one of ${INCIDENT_STATUSES.join(', ')}, not ${JSON.stringify(s)}`);
  }
  return statuses.length > 0 ? (statuses as IncidentStatus[]) : undefined;
}

function view(record: IncidentRecord): IncidentView {
  const { statusChangedAt: _a, statusChangedBy: _b, ...rest } = record;
  return rest;
}

function fromModel(m: JsonObject): IncidentView {
  const iso = (v: unknown) => new Date(Number(v)).toISOString();
  return {
    id: String(m.incidentId),
    connection: String(m.connection),
    schema: String(m.schema),
    table: String(m.table),
    tablePriority: (m.tablePriority as number | null) ?? null,
    incidentHash: Number(m.incidentHash),
    year: Number(m.year),
    month: Number(m.month),
    firstSeen: iso(m.firstSeen),
    lastSeen: iso(m.lastSeen),
    incidentUntil: iso(m.incidentUntil),
    dataGroup: (m.dataGroup as string | null) ?? null,
    qualityDimension: (m.qualityDimension as string | null) ?? null,
    checkCategory: (m.checkCategory as string | null) ?? null,
    checkType: typeof m.checkType === 'string' ? toCheckType(m.checkType) : null,
    checkName: (m.checkName as string | null) ?? null,
    highestSeverity: toSeverityNumber(Number(m.highestSeverity)),
    minimumSeverity: toSeverityNumber(Number(m.minimumSeverity)),
    failedChecksCount: Number(m.failedChecksCount),
    issueUrl: (m.issueUrl as string | null) ?? null,
    status: m.status as IncidentStatus,
  };
}

/** Every incident of the server (or of one connection), any age, with the given statuses. */
async function remoteIncidents(target: RemoteTarget, connection: string | undefined, statuses: readonly IncidentStatus[]): Promise<IncidentView[]> {
  const connections = connection ? [connection] : ((await callServer<Array<{ connection: string }>>(target, 'GET', '/api/incidentstat')) ?? []).map((s) => s.connection);
  const flags = INCIDENT_STATUSES.map((s) => `${s}=${statuses.includes(s)}`).join('&');
  const all: IncidentView[] = [];
  for (const c of connections) {
    const models = await callServer<JsonObject[]>(target, 'GET', `/api/incidents/${encodeURIComponent(c)}?months=1200&limit=10000&${flags}`);
    all.push(...(models ?? []).map(fromModel));
  }
  return all.sort((a, b) => (a.firstSeen < b.firstSeen ? 1 : a.firstSeen > b.firstSeen ? -1 : 0));
}

function keyOf(i: IncidentView): string {
  return [i.qualityDimension, i.checkCategory, i.checkType, i.checkName, i.dataGroup].filter((p) => p !== null).join(' / ') || '(table)';
}

function renderIncidents(incidents: readonly IncidentView[]): string {
  if (incidents.length === 0) return 'No incidents.\n';
  return renderColumns(
    ['ID', 'STATUS', 'SEVERITY', 'FAILED', 'TABLE', 'GROUP', 'FIRST SEEN', 'LAST SEEN'],
    incidents.map((i) => [i.id, i.status, (SEVERITY_NAMES as readonly string[])[i.highestSeverity] ?? String(i.highestSeverity), String(i.failedChecksCount), `${i.connection}/${i.schema}.${i.table}`, keyOf(i), i.firstSeen, i.lastSeen]),
  );
}

export async function incidentsListCommand(options: IncidentsListOptions, io: CliIo): Promise<number> {
  const statuses = statusesOf(options);
  const target = remoteTargetOf(options, io);
  const incidents = target
    ? await remoteIncidents(target, options.connection, statuses ?? INCIDENT_STATUSES)
    : await withStore(options, io, { operation: 'incidents list' }, async (store) => (await listIncidents(store, { ...(options.connection ? { connection: options.connection } : {}), ...(statuses ? { statuses } : {}) })).map(view));
  io.stdout(options.format === 'json' ? int64Json({ incidents }, 2) + '\n' : renderIncidents(incidents));
  return 0;
}

export async function incidentStatusCommand(verb: string, id: string, options: IncidentStatusOptions, io: CliIo): Promise<number> {
  const status = STATUS_OF_VERB[verb];
  const target = remoteTargetOf(options, io);
  let outcome: { incident: IncidentView; changed: boolean };
  if (target) {
    const found = resolveIncidentId(id, await remoteIncidents(target, options.connection, INCIDENT_STATUSES), ` on ${target.url}`);
    const path = `/api/incidents/${encodeURIComponent(found.connection)}/${found.year}/${found.month}/${encodeURIComponent(found.id)}`;
    await callServer(target, 'POST', `${path}/status?status=${status}`);
    const after = fromModel((await callServer<JsonObject>(target, 'GET', path))!);
    outcome = { incident: after, changed: found.status !== status };
  } else {
    const by = `cli:${io.env.USER ?? 'unknown'}`;
    const changed = await withStore(options, io, { operation: `incidents ${verb}` }, (store) => changeIncidentStatus(store, id, status, by));
    outcome = { incident: view(changed.incident), changed: changed.changed };
  }
  if (options.format === 'json') io.stdout(int64Json(outcome, 2) + '\n');
  else {
    const named = outcome.incident.id;
    io.stdout(outcome.changed ? `Incident ${named} is now ${status}.\n` : `Incident ${named} was already ${status}; nothing changed.\n`);
  }
  return 0;
}

function renderMessages(messages: readonly NotificationView[]): string {
  if (messages.length === 0) return 'No notification messages.\n';
  return renderColumns(
    ['ID', 'STATUS', 'EVENT', 'ADDRESS', 'TABLE', 'ATTEMPTS', 'CREATED', 'LAST ERROR'],
    messages.map((m) => [String(m.id), m.status, m.event, m.address, `${m.connection}/${m.table}`, String(m.attempts), m.createdAt, m.lastError ?? '']),
  );
}

export async function notificationsListCommand(options: NotificationsListOptions, io: CliIo): Promise<number> {
  const status = options.failed ? 'failed' : options.status;
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new DqError('INVALID_ARGUMENT', `--limit must be a positive integer, not ${options.limit}`);
  const target = remoteTargetOf(options, io);
  let messages: NotificationView[];
  if (target) {
    messages = (await callServer<NotificationView[]>(target, 'GET', `/api/notifications/outbox?limit=${limit}${status ? `&status=${status}` : ''}`)) ?? [];
  } else {
    messages = await withStore(options, io, { operation: 'notifications list' }, (store) => listNotifications(store, { ...(status ? { status } : {}), limit }));
  }
  if (options.format === 'json') {
    io.stdout(int64Json({ messages }, 2) + '\n');
  } else {
    io.stdout(renderMessages(messages));
  }
  return 0;
}
