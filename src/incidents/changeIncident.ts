import { DqError, type JsonObject } from '../model/index.js';
import type { IncidentRecord, IncidentStatus, IncidentTransaction, Store } from '../store/store.js';
import { effectiveGrouping } from './effectiveGrouping.js';
import { changeStatus } from './incidentTransitions.js';
import { notificationSettings } from './notificationTargets.js';
import { messagesOf } from './recordIncidents.js';

/**
 * A person's changes to an incident (status, issue URL), each in one transaction with the messages it causes:
 * a status change that changes something sends that status's message; setting the status it already has, or an
 * issue URL, sends nothing. An incident is named by connection, year, month (of its first failure) and id, as
 * DQOps names it; any mismatch is NOT_FOUND.
 */
export interface IncidentAddress {
  connection: string;
  year: number;
  month: number;
  id: string;
}

export function incidentNotFound(address: IncidentAddress): DqError {
  return new DqError('NOT_FOUND', `incident ${address.id} of connection ${JSON.stringify(address.connection)} (${address.year}-${String(address.month).padStart(2, '0')}) not found`);
}

export async function findIncident(store: Store, address: IncidentAddress): Promise<IncidentRecord> {
  const incident = await store.incidents.get(address.connection, address.id);
  if (!incident || incident.year !== address.year || incident.month !== address.month) throw incidentNotFound(address);
  return incident;
}

/**
 * The incident, locked for this transaction: first its table's incident lock (the one a check run holds while it
 * absorbs failures), so a run and a status change never write over each other; then the row itself.
 */
async function lockedIncident(tx: IncidentTransaction, address: IncidentAddress): Promise<IncidentRecord> {
  const seen = await tx.findIncident(address.connection, address.id);
  if (!seen || seen.year !== address.year || seen.month !== address.month) throw incidentNotFound(address);
  await tx.lockTables(address.connection, [`${seen.schema}.${seen.table}`]);
  const incident = await tx.findIncident(address.connection, address.id, { forUpdate: true });
  if (!incident) throw incidentNotFound(address);
  return incident;
}

export async function setIncidentStatus(
  store: Store,
  address: IncidentAddress,
  change: { status: IncidentStatus; by: string | null; at: string; connectionSpec: JsonObject | undefined; defaultNotifications: JsonObject | undefined },
): Promise<{ incident: IncidentRecord; changed: boolean; messages: number }> {
  return store.incidents.transaction(async (tx) => {
    const incident = await lockedIncident(tx, address);
    const grouping = effectiveGrouping(change.connectionSpec, undefined);
    const changed = changeStatus(incident, change.status, { at: change.at, by: change.by, muteForDays: grouping.muteForDays });
    if (!changed) return { incident, changed: false, messages: 0 };
    const messages = messagesOf(changed, change.status, notificationSettings(change.connectionSpec, change.defaultNotifications), change.at);
    await tx.updateIncidents([changed]);
    await tx.enqueueMessages(messages);
    return { incident: changed, changed: true, messages: messages.length };
  });
}

export async function setIncidentIssueUrl(store: Store, address: IncidentAddress, issueUrl: string | null): Promise<IncidentRecord> {
  return store.incidents.transaction(async (tx) => {
    const incident = await lockedIncident(tx, address);
    const changed = { ...incident, issueUrl };
    await tx.updateIncidents([changed]);
    return changed;
  });
}
