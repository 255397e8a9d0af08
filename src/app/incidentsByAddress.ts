import { findIncident, setIncidentIssueUrl, setIncidentStatus, type IncidentAddress } from '../incidents/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';
import type { IncidentRecord, IncidentStatus, Store } from '../store/store.js';
import { incidentSettingsOf } from './incidentSettings.js';

/**
 * An incident as the REST API addresses it (its connection, the year and month of its first failure, its id; 404
 * when any of them does not match), and the changes the API makes to it. A status change sends that status's
 * notifications through the outbox in the same transaction, with the connection's and the default settings.
 */
export type { IncidentAddress };
export { INCIDENT_STATUSES } from '../store/store.js';

export async function incidentAt(store: Store, address: IncidentAddress): Promise<IncidentRecord> {
  return findIncident(store, address);
}

export async function setIncidentStatusAt(store: Store, objects: LiveObjects, address: IncidentAddress, status: IncidentStatus, by: string): Promise<void> {
  const settings = await incidentSettingsOf(objects, address.connection);
  await setIncidentStatus(store, address, { status, by, at: new Date().toISOString(), ...settings });
}

/** Links the incident to an issue in a tracker (null: unlinks it). */
export async function setIncidentIssueUrlAt(store: Store, address: IncidentAddress, issueUrl: string | null): Promise<void> {
  await setIncidentIssueUrl(store, address, issueUrl);
}
