import type { LiveSummary, ObjectKind } from '../model/index.js';
import { OBJECT_KINDS, parseTableKey, resultStatusOf, tableKey, type QualityStatus } from '../model/index.js';
import type { Reconciler } from '../reconcile/reconciler.js';
import type { ObjectStatus, ObjectSyncStatus, ReconcileStatus } from '../reconcile/status.js';
import { statusFromStore } from '../reconcile/storeStatus.js';
import type { JobRecord } from '../store/jobRows.js';
import type { Store, TableSeverityRow } from '../store/store.js';

/**
 * What the web console's overview and objects list show, computed once per request from the live store, the
 * sync status (the reconcile loop's when one runs, otherwise the store's own records) and the newest check
 * results: GET /api/overview and GET /api/objects. Severity and sync are words, as everywhere in the API.
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

/** The sync status as this server knows it: the loop's last comparison, or the store's records. */
export async function currentStatus(store: Store, reconciler: Reconciler | undefined): Promise<ReconcileStatus> {
  if (reconciler) return reconciler.status({ all: true });
  const status = await statusFromStore(store, { all: true });
  const drifted = status.counts.Drifted;
  status.message =
    `this server runs no reconcile loop (start it with dqctl serve --repo DIR or --git URL): the sync status comes from the store's records only` +
    (drifted > 0 ? `; ${drifted} object(s) changed through the API since the last apply` : '');
  return status;
}

function short(revision: string | null | undefined): string | null {
  return revision ? revision.slice(0, 7) : null;
}

function qualityOf(row: TableSeverityRow | undefined): QualityStatus {
  if (!row) return 'not_run';
  return resultStatusOf(row.severity);
}

const SYNC_RANK: Record<ObjectSyncStatus, number> = { Synced: 0, Extraneous: 1, Missing: 2, Drifted: 3, OutOfSync: 4 };

/** Every live object with its owner, sync and quality status, sorted by kind then name. */
export function objectRows(summaries: readonly LiveSummary[], status: ReconcileStatus, severities: readonly TableSeverityRow[]): ObjectRow[] {
  const syncOf = new Map(status.objects.map((o) => [`${o.kind}\u0000${o.name}`, o.status]));
  const quality = new Map(severities.map((s) => [tableKey({ connection: s.connectionName, schema: s.schemaName, table: s.tableName }), s]));
  const rows: ObjectRow[] = summaries.map((s) => {
    const table = s.kind === 'table' ? (parseTableKey(s.name) ?? null) : null;
    return {
      kind: s.kind,
      name: s.name,
      connection: s.kind === 'source' ? s.name : (table?.connection ?? null),
      schema: table?.schema ?? null,
      table: table?.table ?? null,
      managed_by: s.managedBy,
      origin_file: s.originFile,
      // objects the loop did not list are in sync (it lists only the others without ?all)
      sync_status: syncOf.get(`${s.kind}\u0000${s.name}`) ?? (s.managedBy === 'api' ? 'Extraneous' : 'Synced'),
      quality_status: s.kind === 'table' ? qualityOf(quality.get(s.name)) : 'not_run',
    };
  });
  // a connection's quality is the worst of its tables'
  const byConnection = new Map<string, QualityStatus>();
  for (const row of rows) if (row.kind === 'table' && row.connection) byConnection.set(row.connection, worstOf(byConnection.get(row.connection) ?? 'not_run', row.quality_status));
  for (const row of rows) if (row.kind === 'source') row.quality_status = byConnection.get(row.name) ?? 'not_run';
  const kindOrder = (k: ObjectKind) => OBJECT_KINDS.indexOf(k);
  return rows.sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function emptyCounts(): SeverityCounts {
  return { valid: 0, warning: 0, error: 0, fatal: 0, execution_error: 0, not_run: 0 };
}

export interface OverviewInputs {
  summaries: readonly LiveSummary[];
  status: ReconcileStatus;
  severities: readonly TableSeverityRow[];
  activeJobs: readonly JobRecord[];
  loop: boolean;
  now: Date;
}

export function buildOverview(input: OverviewInputs): Overview {
  const { status } = input;
  const rows = objectRows(input.summaries, status, input.severities);
  const byKind = Object.fromEntries(OBJECT_KINDS.map((k) => [k, { git: 0, api: 0 }])) as Overview['objects']['by_kind'];
  const byOwner = { git: 0, api: 0 };
  for (const row of rows) {
    byKind[row.kind][row.managed_by]++;
    byOwner[row.managed_by]++;
  }
  const connections = new Map<string, ConnectionOverview>();
  for (const row of rows) {
    if (row.kind !== 'source') continue;
    connections.set(row.name, { name: row.name, managed_by: row.managed_by, sync_status: row.sync_status, tables: 0, quality_status: row.quality_status, tables_by_quality: emptyCounts() });
  }
  const tablesByQuality = emptyCounts();
  for (const row of rows) {
    if (row.kind !== 'table') continue;
    tablesByQuality[row.quality_status]++;
    const connection = row.connection ? connections.get(row.connection) : undefined;
    if (!connection) continue;
    connection.tables++;
    connection.tables_by_quality[row.quality_status]++;
    if (SYNC_RANK[row.sync_status] > SYNC_RANK[connection.sync_status] && row.sync_status !== 'Extraneous') connection.sync_status = row.sync_status;
  }
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
    .map((s) => ({ connection: s.connectionName, schema: s.schemaName, table: s.tableName, quality_status: qualityOf(s), errors: s.errors, warnings: s.warnings, fatals: s.fatals }))
    .filter((t) => RANK[t.quality_status] >= RANK.execution_error)
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
    objects: { total: rows.length, by_kind: byKind, by_owner: byOwner },
    not_synced: notSynced
      .slice(0, 200)
      .map((o) => ({ kind: o.kind, name: o.name, status: o.status, reason: o.reason, fields: o.fields, changes: o.changes, drifted: o.drifted, file: o.file })),
    not_synced_count: notSynced.length,
    connections: [...connections.values()],
    quality: { tables_by_quality: tablesByQuality, results, last_executed_at: lastExecutedAt, worst_tables: worst },
    jobs: {
      queued: input.activeJobs.filter((j) => j.status === 'queued').length,
      running: input.activeJobs.filter((j) => j.status !== 'queued').length,
      active: input.activeJobs.slice(0, 20).map((j) => ({ job_id: j.id, job_type: j.jobType, status: j.status, created_at: j.createdAt, started_at: j.startedAt, created_by: j.createdBy })),
    },
  };
}

/** Reads what the overview needs, in parallel. */
export async function readOverview(store: Store, reconciler: Reconciler | undefined, now = new Date()): Promise<Overview> {
  const [summaries, status, severities, activeJobs] = await Promise.all([
    store.listSummaries(),
    currentStatus(store, reconciler),
    store.tableSeverities(),
    store.jobs.list({ limit: 100, statuses: ['queued', 'running', 'waiting', 'cancel_requested'] }),
  ]);
  return buildOverview({ summaries, status, severities, activeJobs, loop: Boolean(reconciler), now });
}

export async function readObjectRows(store: Store, reconciler: Reconciler | undefined): Promise<ObjectRow[]> {
  const [summaries, status, severities] = await Promise.all([store.listSummaries(), currentStatus(store, reconciler), store.tableSeverities()]);
  return objectRows(summaries, status, severities);
}
