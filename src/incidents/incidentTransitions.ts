import type { Int64 } from '../model/index.js';
import { combineOrdered, fingerprintLong, fingerprintText, higherSeverity, uuidOfLongs, type SeverityNumber } from '../model/index.js';
import type { CheckResultInput, IncidentRecord, IncidentStatus } from '../store/store.js';
import type { EffectiveGrouping } from './effectiveGrouping.js';
import { incidentKeyOf, keyFieldsOf, type FailureFields, type IncidentKey } from './incidentKey.js';

/**
 * What failures do to incidents, and what a person's status change does: pure functions over values.
 * - Failures of one key seen in a run are one observation (count, first and last seen, highest severity).
 * - An observation joins (is absorbed by) the key's newest incident when that one is open, acknowledged or muted
 *   and the failure falls within its `incidentUntil`; the status is kept and no message goes out.
 * - Otherwise a NEW incident opens with the same hash: after a resolved one, or after one past its
 *   `incidentUntil` (which is then closed: marked resolved, without a message, as nobody resolved it).
 * - Muting keeps an incident muted for `mute_for_days` from the moment it is muted: its `incidentUntil` moves
 *   out to then (never in).
 */
export interface Observation {
  key: IncidentKey;
  tablePriority: number | null;
  firstSeen: string;
  lastSeen: string;
  highestSeverity: SeverityNumber;
  count: number;
  grouping: EffectiveGrouping;
}

const DAY_MS = 86_400_000;

export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(iso) + days * DAY_MS).toISOString();
}

/** The failures (severity at or above the minimum) of result rows, one observation per grouping key. */
export function observeFailures(
  rows: readonly CheckResultInput[],
  groupingOf: (row: CheckResultInput) => { grouping: EffectiveGrouping; tablePriority: number | null } | undefined,
): Observation[] {
  const byHash = new Map<Int64, Observation>();
  const keys = new KeyCache();
  for (const row of rows) {
    const severity = row.severity;
    if (severity === null || severity === undefined || severity < 1) continue;
    const settings = groupingOf(row);
    if (!settings || settings.grouping.disabled || severity < settings.grouping.minimumSeverity) continue;
    const key = keys.keyOf(row, settings);
    const seen = row.executedAt ?? new Date().toISOString();
    const known = byHash.get(key.incidentHash);
    if (known) {
      known.count++;
      if (seen < known.firstSeen) known.firstSeen = seen;
      if (seen > known.lastSeen) known.lastSeen = seen;
      known.highestSeverity = higherSeverity(known.highestSeverity, severity);
    } else {
      byHash.set(key.incidentHash, {
        key,
        tablePriority: settings.tablePriority,
        firstSeen: seen,
        lastSeen: seen,
        highestSeverity: severity,
        count: 1,
        grouping: settings.grouping,
      });
    }
  }
  return [...byHash.values()];
}

/** A check of a table as last seen, and the keys of its grouping by data group (shared by checks of one key). */
interface CheckKeys {
  row: CheckResultInput;
  byDataGroup: Map<string, IncidentKey>;
}

/**
 * The grouping keys of one call, each made (and hashed with SHA-256) once per distinct key, not once per failed
 * row: a run of 25 checks over 400 data groups fails 10,000 rows but has at most 400 keys at the finest grouping,
 * and hashing every row was most of the grouping's time. Per row: a lookup by the check hash (verified against
 * the row's own names, so a reused hash cannot merge keys), then one by data group.
 */
class KeyCache {
  readonly #checks = new Map<object, Map<Int64, CheckKeys>>();
  /** Per grouping settings: the data-group maps of checks whose key fields (JSON) are the same. */
  readonly #shared = new Map<object, Map<string, Map<string, IncidentKey>>>();

  keyOf(row: CheckResultInput, settings: { grouping: EffectiveGrouping }): IncidentKey {
    let checks = this.#checks.get(settings);
    if (!checks) this.#checks.set(settings, (checks = new Map()));
    let check = checks.get(row.checkHash);
    if (!check || !sameCheck(check.row, row)) {
      check = { row, byDataGroup: this.#sharedMap(row, settings) };
      checks.set(row.checkHash, check);
    }
    const dataGroup = row.dataGroup ?? 'all data';
    const groupId = settings.grouping.divideByDataGroups ? dataGroup : '';
    let key = check.byDataGroup.get(groupId);
    if (!key) {
      key = incidentKeyOf(failureFields(row, dataGroup), settings.grouping);
      check.byDataGroup.set(groupId, key);
    }
    return key;
  }

  #sharedMap(row: CheckResultInput, settings: { grouping: EffectiveGrouping }): Map<string, IncidentKey> {
    let shared = this.#shared.get(settings);
    if (!shared) this.#shared.set(settings, (shared = new Map()));
    // the key without its data group: the grouping's fields of this check (data group: any, it is not read)
    const { incidentHash: _, dataGroup: __, ...fields } = keyFieldsOf(failureFields(row, ''), settings.grouping);
    const id = JSON.stringify(fields);
    let map = shared.get(id);
    if (!map) shared.set(id, (map = new Map()));
    return map;
  }
}

function failureFields(row: CheckResultInput, dataGroup: string): FailureFields {
  return {
    connection: row.connectionName,
    schema: row.schemaName,
    table: row.tableName,
    dataGroup,
    qualityDimension: row.qualityDimension ?? null,
    checkCategory: row.checkCategory,
    checkType: row.checkType,
    checkName: row.checkName,
  };
}

function sameCheck(a: CheckResultInput, b: CheckResultInput): boolean {
  return (
    a.checkName === b.checkName &&
    a.checkCategory === b.checkCategory &&
    a.checkType === b.checkType &&
    (a.qualityDimension ?? null) === (b.qualityDimension ?? null) &&
    a.tableName === b.tableName &&
    a.schemaName === b.schemaName &&
    a.connectionName === b.connectionName
  );
}

export type ObservationOutcome =
  | { kind: 'absorbed'; incident: IncidentRecord }
  | { kind: 'opened'; incident: IncidentRecord; closed?: IncidentRecord };

/**
 * Whether the newest incident of a key (as of the observation's first failure) takes this observation: one not
 * resolved whose window holds the failure; or any, resolved too, whose first failure is this very one (a re-run of
 * the same instant: the same incident id, as DQOps makes ids of the first failure's time, so not a new incident).
 */
export function absorbs(newest: IncidentRecord | undefined, observation: Observation): boolean {
  if (newest === undefined) return false;
  if (Date.parse(newest.firstSeen) === Date.parse(observation.firstSeen)) return true;
  return newest.status !== 'resolved' && observation.firstSeen >= newest.firstSeen && Date.parse(observation.firstSeen) <= Date.parse(newest.incidentUntil);
}

export function applyObservation(newest: IncidentRecord | undefined, observation: Observation): ObservationOutcome {
  if (newest && absorbs(newest, observation)) {
    return {
      kind: 'absorbed',
      incident: {
        ...newest,
        failedChecksCount: newest.failedChecksCount + observation.count,
        lastSeen: observation.lastSeen > newest.lastSeen ? observation.lastSeen : newest.lastSeen,
        highestSeverity: higherSeverity(newest.highestSeverity, observation.highestSeverity),
      },
    };
  }
  const k = observation.key;
  const first = new Date(observation.firstSeen);
  const incident: IncidentRecord = {
    id: incidentIdOf(k.connection, k.incidentHash, observation.firstSeen),
    connection: k.connection,
    schema: k.schema,
    table: k.table,
    tablePriority: observation.tablePriority,
    incidentHash: k.incidentHash,
    year: first.getUTCFullYear(),
    month: first.getUTCMonth() + 1,
    firstSeen: observation.firstSeen,
    lastSeen: observation.lastSeen,
    incidentUntil: addDays(observation.firstSeen, observation.grouping.maxIncidentLengthDays),
    dataGroup: k.dataGroup,
    qualityDimension: k.qualityDimension,
    checkCategory: k.checkCategory,
    checkType: k.checkType,
    checkName: k.checkName,
    highestSeverity: observation.highestSeverity,
    minimumSeverity: observation.grouping.minimumSeverity,
    failedChecksCount: observation.count,
    issueUrl: null,
    status: 'open',
    statusChangedAt: observation.firstSeen,
    statusChangedBy: null,
  };
  const stillOpen = newest !== undefined && newest.status !== 'resolved';
  return stillOpen
    ? { kind: 'opened', incident, closed: { ...newest, status: 'resolved', statusChangedAt: observation.firstSeen, statusChangedBy: 'dqctl: past incident_until' } }
    : { kind: 'opened', incident };
}

/** A person's status change; undefined when the incident already has that status (no message then). */
export function changeStatus(
  incident: IncidentRecord,
  status: IncidentStatus,
  change: { at: string; by: string | null; muteForDays: number },
): IncidentRecord | undefined {
  if (incident.status === status) return undefined;
  const changed: IncidentRecord = { ...incident, status, statusChangedAt: change.at, statusChangedBy: change.by };
  if (status === 'muted') {
    const mutedUntil = addDays(change.at, change.muteForDays);
    if (Date.parse(mutedUntil) > Date.parse(incident.incidentUntil)) changed.incidentUntil = mutedUntil;
  }
  return changed;
}

/**
 * An incident's id as DQOps makes it: a UUID whose high half is the incident hash and whose low half combines
 * the hashes of the connection's name, of the first failure's time (epoch milliseconds) and the incident hash
 * (model/dqopsHashes.ts). The same first failure gives the same id.
 */
export function incidentIdOf(connection: string, incidentHash: Int64, firstSeen: string): string {
  const hash = BigInt(incidentHash);
  return uuidOfLongs(hash, combineOrdered([fingerprintText(connection), fingerprintLong(BigInt(Date.parse(firstSeen))), hash]));
}
