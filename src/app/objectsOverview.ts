import { objectIndex, type ObjectIndex } from './objectIndex.js';
import type { LiveObjects } from './services.js';
import { parseTableKey, resultStatusOf, type ObjectKind, type QualityStatus } from '../model/index.js';
import type { Reconciler } from '../reconcile/reconciler.js';
import type { ObjectStatus, ObjectSyncStatus, ReconcileStatus } from '../reconcile/status.js';
import { statusFromStore } from '../reconcile/storeStatus.js';
import type { JobRecord, JobStatus } from '../store/jobRows.js';
import type { ConnectionSeverityRow, TableSeverityRow } from '../store/store.js';

/**
 * What the web console's overview and objects list show: the live objects' index (objectIndex.ts, from the
 * summaries, kept until an object changes), the sync status (the reconcile loop's when one runs, otherwise the
 * store's own records) and the newest check results of each table, joined per request: GET /api/overview here,
 * GET /api/objects in objectList.ts. The status lists only the objects not in sync; every other object is in
 * sync (or, created through the API, extraneous). Severity and sync are words, as everywhere in the API. The
 * overview is bounded: counts, the connections, at most 200 objects not in sync, 20 tables, 20 jobs.
 */
/** Worst first when sorting; `execution_error` ranks between valid and warning (a check could not say). */
const RANK: Record<QualityStatus, number> = { not_run: 0, valid: 1, execution_error: 2, warning: 3, error: 4, fatal: 5 };

export function worstOf(a: QualityStatus, b: QualityStatus): QualityStatus {
  return RANK[b] > RANK[a] ? b : a;
}

export interface ObjectRow {
  kind: ObjectKind;
  name: string;
  /** The connection a source, table is part of; null for rules and policies. */
  connection: string | null;
  schema: string | null;
  table: string | null;
  managed_by: 'git' | 'api';
  origin_file: string | null;
  sync_status: ObjectSyncStatus;
  /** Tables: the worst severity of each check's newest run; connections: the worst of their tables; others not_run. */
  quality_status: QualityStatus;
}

export interface SeverityCounts {
  valid: number;
  warning: number;
  error: number;
  fatal: number;
  execution_error: number;
  not_run: number;
}

export interface ConnectionOverview {
  name: string;
  managed_by: 'git' | 'api';
  /** The connection's own sync status, or the worst of its tables' (OutOfSync > Drifted > Missing > Extraneous > Synced). */
  sync_status: ObjectSyncStatus;
  tables: number;
  quality_status: QualityStatus;
  tables_by_quality: SeverityCounts;
}

export interface Overview {
  generated_at: string;
  sync: {
    sync: ReconcileStatus['sync'];
    health: ReconcileStatus['health'];
    message: string | null;
    /** true when this server runs the reconcile loop (serve --repo | --git); otherwise the store's records only. */
    loop: boolean;
    repository: { type: 'folder' | 'git'; location: string; branch: string | null; revision: string | null; short_revision: string | null } | null;
    last_applied: { revision: string | null; short_revision: string | null; applied_at: string; applied_by: string } | null;
    environment: { loaded: string | null; applied: string | null };
    last_pass: { finished_at: string; result: string; error: string | null } | null;
    counts: Record<ObjectSyncStatus, number>;
    compared_at: string | null;
  };
  objects: { total: number; by_kind: Record<ObjectKind, { git: number; api: number }>; by_owner: { git: number; api: number } };
  /** Objects not in sync with the repository (drifted, out of sync, missing, extraneous), at most 200. */
  not_synced: Array<Pick<ObjectStatus, 'kind' | 'name' | 'status' | 'reason' | 'fields' | 'changes' | 'drifted' | 'file'>>;
  not_synced_count: number;
  connections: ConnectionOverview[];
  quality: {
    tables_by_quality: SeverityCounts;
    results: { valid: number; warnings: number; errors: number; fatals: number; execution_errors: number };
    last_executed_at: string | null;
    /** The tables in the worst state (fatal, error, warning, execution error), worst first, at most 20. */
    worst_tables: Array<{ connection: string; schema: string; table: string; quality_status: QualityStatus; errors: number; warnings: number; fatals: number }>;
  };
  jobs: { queued: number; running: number; active: Array<{ job_id: number; job_type: string; status: string; created_at: string; started_at: string | null; created_by: string | null }> };
}

/**
 * The sync status as this server knows it, listing only the objects not in sync: the loop's last comparison, or
 * the store's records (computed once per store revision: they change only with a write).
 */
export async function currentStatus(objects: LiveObjects, reconciler: Reconciler | undefined, now = new Date()): Promise<ReconcileStatus> {
  if (reconciler) return reconciler.status();
  const status = await objects.memo('storeStatus', async () => {
    const fromStore = await statusFromStore(objects.store);
    const drifted = fromStore.counts.Drifted;
    fromStore.message =
      `this server runs no reconcile loop (start it with dqctl serve --repo DIR or --git URL): the sync status comes from the store's records only` +
      (drifted > 0 ? `; ${drifted} object(s) changed through the API since the last apply` : '');
    return fromStore;
  });
  return { ...status, compared_at: now.toISOString() };
}

function short(revision: string | null | undefined): string | null {
  return revision ? revision.slice(0, 7) : null;
}

export function qualityOf(row: TableSeverityRow | undefined): QualityStatus {
  if (!row) return 'not_run';
  return resultStatusOf(row.severity);
}

/**
 * A connection's quality from its tables folded in the store (store.connectionSeverities): the worst of its
 * tables' qualities, as `qualityLookup(...).connection` makes it from every table's row.
 */
export function connectionQualityOf(row: ConnectionSeverityRow | undefined): QualityStatus {
  if (!row) return 'not_run';
  let worst: QualityStatus = row.severity === null ? 'not_run' : resultStatusOf(row.severity);
  if (row.executionErrorTables) worst = worstOf(worst, 'execution_error');
  return worst;
}

const SYNC_RANK: Record<ObjectSyncStatus, number> = { Synced: 0, Extraneous: 1, Missing: 2, Drifted: 3, OutOfSync: 4 };

/** The sync status of any object: as the status lists it, else in sync (extraneous when the API created it). */
export function syncLookup(status: ReconcileStatus): (kind: ObjectKind, name: string, managedBy: 'git' | 'api') => ObjectSyncStatus {
  // by kind, then name: looked up with the object's own strings, no key built per object (100,000 per search)
  const listed = new Map<ObjectKind, Map<string, ObjectSyncStatus>>();
  for (const o of status.objects) {
    let names = listed.get(o.kind);
    if (!names) listed.set(o.kind, (names = new Map()));
    names.set(o.name, o.status);
  }
  return (kind, name, managedBy) => listed.get(kind)?.get(name) ?? (managedBy === 'api' ? 'Extraneous' : 'Synced');
}

/** The quality of each existing table and of each connection (the worst of its tables'). */
export interface QualityLookup {
  table(connection: string, schema: string, table: string): QualityStatus;
  connection(name: string): QualityStatus;
  /** A connection's tables by quality (those without results are not_run). */
  connectionCounts(name: string, tables: number): SeverityCounts;
  /** Every table by quality. */
  allCounts: SeverityCounts;
}

export function qualityLookup(index: ObjectIndex, severities: readonly TableSeverityRow[]): QualityLookup {
  // nested maps looked up with the row's own strings: no key is built per row (20,000 rows at 100,000 tables)
  const tables = new Map<string, Map<string, Map<string, QualityStatus>>>();
  const connections = new Map<string, QualityStatus>();
  const counts = new Map<string, SeverityCounts>();
  let withResults = 0;
  for (const row of severities) {
    if (!index.hasTable(row.connectionName, row.schemaName, row.tableName)) continue; // results of a table that no longer exists
    const quality = qualityOf(row);
    let schemas = tables.get(row.connectionName);
    if (!schemas) tables.set(row.connectionName, (schemas = new Map()));
    let names = schemas.get(row.schemaName);
    if (!names) schemas.set(row.schemaName, (names = new Map()));
    names.set(row.tableName, quality);
    withResults++;
    connections.set(row.connectionName, worstOf(connections.get(row.connectionName) ?? 'not_run', quality));
    let count = counts.get(row.connectionName);
    if (!count) counts.set(row.connectionName, (count = emptyCounts()));
    count[quality]++;
  }
  const allCounts = emptyCounts();
  for (const count of counts.values()) for (const [k, n] of Object.entries(count)) allCounts[k as QualityStatus] += n;
  allCounts.not_run = index.tableCount - withResults;
  return {
    allCounts,
    table: (connection, schema, table) => tables.get(connection)?.get(schema)?.get(table) ?? 'not_run',
    connection: (name) => connections.get(name) ?? 'not_run',
    connectionCounts: (name, total) => {
      const count = { ...(counts.get(name) ?? emptyCounts()) };
      count.not_run += total - Object.values(count).reduce((a, b) => a + b, 0);
      return count;
    },
  };
}

function emptyCounts(): SeverityCounts {
  return { valid: 0, warning: 0, error: 0, fatal: 0, execution_error: 0, not_run: 0 };
}

export interface OverviewInputs {
  index: ObjectIndex;
  /** The objects not in sync (the status without `all`). */
  status: ReconcileStatus;
  severities: readonly TableSeverityRow[];
  /** The newest runs not ended (top-level jobs: a run's tables are counted, not listed), at most 20. */
  activeJobs: readonly JobRecord[];
  /** Every job not ended, by status (a run's tables included). */
  unfinishedJobs: Partial<Record<JobStatus, number>>;
  loop: boolean;
  now: Date;
}

export function buildOverview(input: OverviewInputs): Overview {
  const { status, index } = input;
  const sync = syncLookup(status);
  const quality = qualityLookup(index, input.severities);
  const connections = new Map<string, ConnectionOverview>();
  for (const c of index.connections) {
    connections.set(c.name, {
      name: c.name,
      managed_by: c.managed_by,
      sync_status: sync('source', c.name, c.managed_by),
      tables: c.tables,
      quality_status: quality.connection(c.name),
      tables_by_quality: quality.connectionCounts(c.name, c.tables),
    });
  }
  // a connection's sync: its own, or the worst of its tables' (the status lists only those not in sync)
  for (const o of status.objects) {
    if (o.kind !== 'table' || o.status === 'Extraneous') continue;
    const table = parseTableKey(o.name);
    const connection = table && index.hasTable(table.connection, table.schema, table.table) ? connections.get(table.connection) : undefined;
    if (connection && SYNC_RANK[o.status] > SYNC_RANK[connection.sync_status]) connection.sync_status = o.status;
  }
  const tablesByQuality = quality.allCounts;
  const results = { valid: 0, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 };
  let lastExecutedAt: string | null = null;
  for (const s of input.severities) {
    results.valid += s.valid;
    results.warnings += s.warnings;
    results.errors += s.errors;
    results.fatals += s.fatals;
    results.execution_errors += s.executionErrors;
    if (!lastExecutedAt || s.lastExecutedAt > lastExecutedAt) lastExecutedAt = s.lastExecutedAt;
  }
  const worst = input.severities
    .filter((s) => RANK[qualityOf(s)] >= RANK.execution_error)
    .map((s) => ({ connection: s.connectionName, schema: s.schemaName, table: s.tableName, quality_status: qualityOf(s), errors: s.errors, warnings: s.warnings, fatals: s.fatals }))
    .sort((a, b) => RANK[b.quality_status] - RANK[a.quality_status] || b.fatals - a.fatals || b.errors - a.errors || b.warnings - a.warnings)
    .slice(0, 20);
  const notSynced = status.objects.filter((o) => o.status !== 'Synced');
  const last = status.last_pass;
  return {
    generated_at: input.now.toISOString(),
    sync: {
      sync: status.sync,
      health: status.health,
      message: status.message,
      loop: input.loop,
      repository: status.repository
        ? { type: status.repository.type, location: status.repository.location, branch: status.repository.branch, revision: status.repository.revision, short_revision: short(status.repository.revision) }
        : null,
      last_applied: status.last_applied
        ? { revision: status.last_applied.revision, short_revision: short(status.last_applied.revision), applied_at: status.last_applied.applied_at, applied_by: status.last_applied.applied_by }
        : null,
      environment: status.environment,
      last_pass: last ? { finished_at: last.finished_at, result: last.result, error: last.error } : null,
      counts: status.counts,
      compared_at: status.compared_at,
    },
    objects: { total: index.objects.length, by_kind: index.byKind, by_owner: index.byOwner },
    not_synced: notSynced
      .slice(0, 200)
      .map((o) => ({ kind: o.kind, name: o.name, status: o.status, reason: o.reason, fields: o.fields, changes: o.changes, drifted: o.drifted, file: o.file })),
    not_synced_count: notSynced.length,
    connections: [...connections.values()],
    quality: { tables_by_quality: tablesByQuality, results, last_executed_at: lastExecutedAt, worst_tables: worst },
    jobs: {
      queued: input.unfinishedJobs.queued ?? 0,
      running: (input.unfinishedJobs.running ?? 0) + (input.unfinishedJobs.waiting ?? 0) + (input.unfinishedJobs.cancel_requested ?? 0),
      active: input.activeJobs.slice(0, 20).map((j) => ({ job_id: j.id, job_type: j.jobType, status: j.status, created_at: j.createdAt, started_at: j.startedAt, created_by: j.createdBy })),
    },
  };
}

/** Reads what the overview needs, in parallel. */
export async function readOverview(objects: LiveObjects, reconciler: Reconciler | undefined, now = new Date()): Promise<Overview> {
  const [index, status, severities, activeJobs, unfinishedJobs] = await Promise.all([
    objectIndex(objects),
    currentStatus(objects, reconciler, now),
    objects.store.tableSeverities(),
    objects.store.jobs.list({ limit: 20, topLevel: true, statuses: ['queued', 'running', 'waiting', 'cancel_requested'] }),
    objects.store.jobs.countUnfinished(),
  ]);
  return buildOverview({ index, status, severities, activeJobs, unfinishedJobs, loop: Boolean(reconciler), now });
}
