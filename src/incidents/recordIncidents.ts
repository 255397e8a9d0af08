import type { Int64 } from '../model/index.js';
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../model/index.js';
import { oneRowPerResultKey } from '../store/resultKey.js';
import type { CheckResultInput, IncidentRecord, IncidentStatus, OutboxInput, ResultsTransactionWork, Store } from '../store/store.js';
import { effectiveGrouping, type EffectiveGrouping } from './effectiveGrouping.js';
import { applyObservation, observeFailures, type Observation } from './incidentTransitions.js';
import { notificationSettings, recipientsOf, type NotificationSettings } from './notificationTargets.js';

/**
 * After a check run: its results, the incidents they open or join, and the messages of opened incidents, all in
 * the transaction that writes the results (store.recordCheckResults), so a crash keeps all or none of them.
 * Absorbed failures send nothing (no storms): one message per state change and address.
 */
export interface IncidentConfiguration {
  /** The connection's spec (its incident_grouping and incident_notification). */
  connectionSpec(connection: string): JsonObject | undefined;
  /** The table's spec (its incident_grouping override and priority). */
  tableSpec(connection: string, schema: string, table: string): JsonObject | undefined;
  /** The spec of settings/defaultnotifications.dqonotifications.yaml, when there is one. */
  defaultNotifications: JsonObject | undefined;
}

export interface IncidentsOutcome {
  opened: IncidentRecord[];
  absorbed: number;
  messages: number;
}

/**
 * The rows are first cut to what the store keeps (one per check, time period and data group, resultKey.ts), so a
 * batch naming a failure twice counts it once; a re-run on another call counts its failures again, once, as
 * DQOps adds each run's failures to the incident's failed checks count.
 */
export async function recordResultsWithIncidents(store: Store, rows: readonly CheckResultInput[], configuration: IncidentConfiguration): Promise<IncidentsOutcome> {
  const [outcome] = await recordResultsOfTables(store, [{ rows, configuration }]);
  return outcome!;
}

/** The results of one or more tables (each with its run's configuration) and their incidents. */
export interface TableResults {
  rows: readonly CheckResultInput[];
  configuration: IncidentConfiguration;
}

/**
 * The results of several tables, written with their incidents and messages in ONE transaction (a check run's
 * batched writes, resultsWriter.ts): all of them or none. The parts must not share a table (their incidents would
 * be decided from the same newest incident twice). Returns each part's outcome.
 */
export async function recordResultsOfTables(store: Store, parts: readonly TableResults[]): Promise<IncidentsOutcome[]> {
  const stored = parts.map((part) => ({ rows: oneRowPerResultKey(part.rows), configuration: part.configuration }));
  const grouping = incidentGrouping(stored);
  await store.recordCheckResults(
    stored.length === 1 ? stored[0]!.rows : stored.flatMap((part) => part.rows),
    grouping,
  );
  return grouping.outcomes;
}

/**
 * The grouping of one batch of results, in the two steps of their transaction: `read` finds the failures' keys,
 * locks their tables and reads the newest incident of each key as of its first failure (one statement each per
 * connection, whatever the number of tables); `write` decides what each incident becomes (opened, absorbed,
 * closed) and writes the incidents and the messages of those opened. `write` starts with the results' insert, so
 * the deciding happens while the database writes the results.
 */
export function incidentGrouping(parts: readonly TableResults[]): ResultsTransactionWork & { readonly outcomes: IncidentsOutcome[] } {
  const outcomes: IncidentsOutcome[] = parts.map(() => ({ opened: [], absorbed: 0, messages: 0 }));
  type Seen = { observation: Observation; part: number };
  const read: Array<{ connection: string; seen: Seen[]; newest: Map<Int64, IncidentRecord> }> = [];
  return {
    outcomes,
    async read(tx) {
      // from scratch, should the store run the transaction again
      read.length = 0;
      for (const outcome of outcomes) Object.assign(outcome, { opened: [], absorbed: 0, messages: 0 });
      const byConnection = new Map<string, Seen[]>();
      parts.forEach((part, index) => {
        for (const observation of observeRows(part.rows, part.configuration)) {
          const list = byConnection.get(observation.key.connection);
          if (list) list.push({ observation, part: index });
          else byConnection.set(observation.key.connection, [{ observation, part: index }]);
        }
      });
      for (const connection of [...byConnection.keys()].sort()) {
        const seen = byConnection.get(connection)!;
        // the tables' writers serialized, then per key the newest incident as of the failure (a run may be of an
        // earlier time than a newer incident), in one statement
        const newest = await tx.incidentsAsOf(
          connection,
          seen.map(({ observation: o }) => ({ incidentHash: o.key.incidentHash, at: o.firstSeen })),
          { lockTables: seen.map(({ observation: o }) => `${o.key.schema}.${o.key.table}`) },
        );
        read.push({ connection, seen, newest: new Map(newest.map((i) => [i.incidentHash, i])) });
      }
    },
    async write(tx) {
      const inserts: IncidentRecord[] = [];
      const updates: IncidentRecord[] = [];
      const messages: OutboxInput[] = [];
      for (const { connection, seen, newest } of read) {
        const notify = new Map<number, NotificationSettings>();
        for (const { observation, part } of seen) {
          const outcome = outcomes[part]!;
          const result = applyObservation(newest.get(observation.key.incidentHash), observation);
          if (result.kind === 'absorbed') {
            updates.push(result.incident);
            outcome.absorbed++;
            continue;
          }
          inserts.push(result.incident);
          if (result.closed) updates.push(result.closed);
          outcome.opened.push(result.incident);
          let settings = notify.get(part);
          if (!settings) {
            const { configuration } = parts[part]!;
            settings = notificationSettings(configuration.connectionSpec(connection), configuration.defaultNotifications);
            notify.set(part, settings);
          }
          const opened = messagesOf(result.incident, 'open', settings, result.incident.firstSeen);
          messages.push(...opened);
          outcome.messages += opened.length;
        }
      }
      await tx.updateIncidents(updates);
      await tx.insertIncidents(inserts);
      await tx.enqueueMessages(messages);
    },
  };
}

/** The failures of the rows, one observation per grouping key, with each table's grouping settings. */
function observeRows(rows: readonly CheckResultInput[], configuration: IncidentConfiguration): Observation[] {
  const settings = new Map<string, { grouping: EffectiveGrouping; tablePriority: number | null }>();
  // rows come table by table: the last table's settings answer most rows without a lookup
  let last: { row: CheckResultInput; settings: { grouping: EffectiveGrouping; tablePriority: number | null } } | undefined;
  return observeFailures(rows, (row) => {
    if (last && last.row.tableName === row.tableName && last.row.schemaName === row.schemaName && last.row.connectionName === row.connectionName) return last.settings;
    const id = `${row.connectionName}\u0000${row.schemaName}\u0000${row.tableName}`;
    let known = settings.get(id);
    if (!known) {
      const tableSpec = configuration.tableSpec(row.connectionName, row.schemaName, row.tableName);
      known = {
        grouping: effectiveGrouping(configuration.connectionSpec(row.connectionName), tableSpec),
        tablePriority: typeof tableSpec?.priority === 'number' ? tableSpec.priority : null,
      };
      settings.set(id, known);
    }
    last = { row, settings: known };
    return known;
  });
}

/**
 * One outbox message per recipient of this event; each with its own idempotency key, kept across retries. The
 * incident must be written (inserted or updated) before the messages: the outbox copies it from its row.
 */
export function messagesOf(incident: IncidentRecord, status: IncidentStatus, settings: NotificationSettings, at: string): OutboxInput[] {
  return recipientsOf(status, incident, settings).map((recipient) => ({
    idempotencyKey: randomUUID(),
    incidentId: incident.id,
    event: status,
    address: recipient.address,
    filterName: recipient.filterName,
    filterMessage: recipient.message,
    createdAt: at,
  }));
}
