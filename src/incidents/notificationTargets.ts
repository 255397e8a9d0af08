import type { CheckType } from '../model/index.js';
import { isJsonObject, type JsonObject, type SeverityNumber } from '../model/index.js';
import type { IncidentStatus } from '../store/store.js';
import { splitAddresses } from './notificationAddresses.js';

/**
 * Who is told about an incident event, with DQOps's rules:
 * - The connection's four address fields, each falling back to the default notifications' field when empty
 *   (settings/defaultnotifications.dqonotifications.yaml).
 * - Filtered notifications: the connection's, then the defaults', each list by ascending `priority`; disabled
 *   ones and those whose filter does not match are skipped. The first match is taken; while a taken one has
 *   `process_additional_filters: true`, the next match is taken too. The connection's own addresses also get
 *   the message when nothing matched, or when every match asked to go on.
 * - A filter field matches when absent; names (connection, schema, table, data group, check name) with `*`
 *   wildcards, the others (quality dimension, check category, check type, table priority, highest severity) equal.
 */
export const ADDRESS_FIELDS: Record<IncidentStatus, string> = {
  open: 'incident_opened_addresses',
  acknowledged: 'incident_acknowledged_addresses',
  resolved: 'incident_resolved_addresses',
  muted: 'incident_muted_addresses',
};

export interface NotificationSettings {
  /** The connection's incident_notification combined with the defaults' addresses. */
  connection: JsonObject;
  defaults: JsonObject;
}

export function notificationSettings(connectionSpec: JsonObject | undefined, defaultsSpec: JsonObject | undefined): NotificationSettings {
  const grouping = isJsonObject(connectionSpec?.incident_grouping) ? connectionSpec.incident_grouping : {};
  const own = isJsonObject(grouping.incident_notification) ? grouping.incident_notification : {};
  const defaults = defaultsSpec ?? {};
  const combined: JsonObject = { ...own };
  for (const field of Object.values(ADDRESS_FIELDS)) {
    if (splitAddresses(own[field]).length === 0 && typeof defaults[field] === 'string') combined[field] = defaults[field];
  }
  return { connection: combined, defaults };
}

/** The fields a filter looks at (those of IncidentNotificationMessage). */
export interface FilterSubject {
  connection: string;
  schema: string;
  table: string;
  tablePriority: number | null;
  dataGroup: string | null;
  qualityDimension: string | null;
  checkCategory: string | null;
  checkType: CheckType | null;
  checkName: string | null;
  highestSeverity: SeverityNumber;
}

export interface Recipient {
  address: string;
  /** The filtered notification that chose it; null for the connection's (or defaults') own addresses. */
  filterName: string | null;
  location: 'connection' | 'global' | null;
  /** The filtered notification's `message`. */
  message: string | null;
}

export function wildcardMatch(pattern: string, value: string | null): boolean {
  if (value === null) return false;
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return regex.test(value);
}

export function filterMatches(filter: JsonObject, s: FilterSubject): boolean {
  const name = (key: string, value: string | null) => typeof filter[key] !== 'string' || filter[key] === '' || wildcardMatch(filter[key] as string, value);
  const equal = (key: string, value: string | number | null) =>
    filter[key] === undefined || filter[key] === null || filter[key] === '' || filter[key] === value;
  return (
    name('connection', s.connection) &&
    name('schema', s.schema) &&
    name('table', s.table) &&
    equal('table_priority', s.tablePriority) &&
    name('data_group_name', s.dataGroup) &&
    equal('quality_dimension', s.qualityDimension) &&
    equal('check_category', s.checkCategory) &&
    equal('check_type', s.checkType) &&
    name('check_name', s.checkName) &&
    equal('highest_severity', s.highestSeverity)
  );
}

interface NamedFilter {
  name: string;
  spec: JsonObject;
  location: 'connection' | 'global';
}

function sortedFilters(notification: JsonObject, location: 'connection' | 'global'): NamedFilter[] {
  const map = isJsonObject(notification.filtered_notifications) ? notification.filtered_notifications : {};
  return Object.entries(map)
    .filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]))
    .map(([name, spec]) => ({ name, spec, location }))
    .sort((a, b) => priorityOf(a.spec) - priorityOf(b.spec));
}

function priorityOf(spec: JsonObject): number {
  return typeof spec.priority === 'number' ? spec.priority : 1000;
}

export function recipientsOf(status: IncidentStatus, subject: FilterSubject, settings: NotificationSettings): Recipient[] {
  const field = ADDRESS_FIELDS[status];
  const matching = [...sortedFilters(settings.connection, 'connection'), ...sortedFilters(settings.defaults, 'global')].filter(
    (f) => f.spec.disabled !== true && filterMatches(isJsonObject(f.spec.filter) ? f.spec.filter : {}, subject),
  );
  const taken: NamedFilter[] = [];
  let goOn = 0;
  for (const f of matching) {
    taken.push(f);
    if (f.spec.process_additional_filters !== true) break;
    goOn++;
  }
  const recipients: Recipient[] = [];
  for (const f of taken) {
    const target = isJsonObject(f.spec.target) ? f.spec.target : {};
    const message = typeof f.spec.message === 'string' ? f.spec.message : null;
    for (const address of splitAddresses(target[field])) recipients.push({ address, filterName: f.name, location: f.location, message });
  }
  if (taken.length === 0 || goOn === matching.length) {
    for (const address of splitAddresses(settings.connection[field])) recipients.push({ address, filterName: null, location: null, message: null });
  }
  return recipients;
}
