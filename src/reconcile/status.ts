import type { FieldChange, FieldOrigin } from '../diff/change.js';
import type { Diagnostic, DesiredObject, LiveSummary, LockInfo, ObjectKind } from '../model/index.js';
import { compareKeys } from '../model/index.js';
import type { Plan } from '../plan/plan.js';

/**
 * The status of the reconcile loop, as one value: served at GET /api/gitops/status and printed by
 * `dqctl status`. Sync says whether the live store matches the repository (as of the last comparison), health
 * whether the loop is doing its job; per object, where each one stands. Field names are snake_case, like the
 * JSON plan.
 */
export type SyncStatus = 'Synced' | 'OutOfSync' | 'Unknown';
export type HealthStatus = 'Healthy' | 'Degraded' | 'Suspended';
export type ObjectSyncStatus = 'Synced' | 'OutOfSync' | 'Missing' | 'Extraneous' | 'Drifted';
export const OBJECT_SYNC_STATUSES: readonly ObjectSyncStatus[] = ['Synced', 'OutOfSync', 'Missing', 'Extraneous', 'Drifted'];

export interface ObjectStatus {
  kind: ObjectKind;
  name: string;
  status: ObjectSyncStatus;
  /** Why, as the plan's reason code: create, repository_changed, adopt, restore_drift, drift_kept, not_in_repository, … */
  reason: string;
  /** The changed field paths (OutOfSync and Drifted updates; for Drifted, what the API write changed). */
  fields: string[];
  /** The same fields, each credited to who changed it since the last apply (the plan's three-way comparison). */
  changes: FieldStatus[];
  /** Changed outside git (API, console) since the last apply: some of its fields are the API's. */
  drifted: boolean;
  /** The repository file (objects in the repository) or the origin file recorded in the store. */
  file: string | null;
}

export interface FieldStatus {
  path: string;
  /** repository: changed in git; api: changed outside git; both: a conflict (apply writes the repository's value). */
  origin: FieldOrigin;
  /** An API change that apply leaves as it is (kept drift). */
  kept: boolean;
}

function fieldStatuses(fields: readonly FieldChange[], kept: boolean): FieldStatus[] {
  return fields.map((f) => ({ path: f.path.join('.'), origin: f.origin ?? 'repository', kept: kept || f.kept === true }));
}

/** What a pass ended with. */
export type PassResult =
  /** The live store was changed to match the revision. */
  | 'applied'
  /** Nothing to apply (drift kept without --self-heal is reported, not applied). */
  | 'no_changes'
  /** Changes are pending: no --auto-apply, or another replica leads and applies. */
  | 'out_of_sync'
  /** The revision has validation errors: nothing applied, the last good state stays. */
  | 'invalid'
  /** The plan is refused (mass delete, ownership conflict): nothing applied. */
  | 'refused'
  /** The git remote could not be fetched: nothing applied; retried on the next tick. */
  | 'unreachable'
  /** Anything else failed (the store is down, the lock timed out, …): retried on the next trigger. */
  | 'error'
  /** The loop stopped during the pass. */
  | 'aborted';

export interface PassRecord {
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** What asked for the pass (several triggers fold into one pass): start, watch, timer, webhook, resume, leader, … */
  triggers: string[];
  result: PassResult;
  /** The commit of the revision the pass read (null for a folder outside git, or when it could not be read). */
  revision: string | null;
  /** What an applied pass changed. */
  applied: { add: number; change: number; destroy: number } | null;
  /** Object files the pass parsed, and those it reused unchanged from earlier passes (null: it read none). */
  files: { parsed: number; reused: number } | null;
  /**
   * Where the time went: reading the revision (git: the fetch; a folder: listing it), loading it (parse, validate,
   * normalize, cross-file checks), planning (reading the store, diff) and applying. Summed over the phases' runs.
   */
  timings: { read_ms: number; load_ms: number; plan_ms: number; apply_ms: number };
  error: string | null;
}

export interface DiagnosticSummary {
  severity: 'error' | 'warning';
  code: string;
  summary: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

export interface ReconcileStatus {
  /** null in `dqctl status` without --server and without --repo: the store alone knows no repository. */
  repository: {
    type: 'folder' | 'git';
    /** The folder, or the git URL without credentials. */
    location: string;
    branch: string | null;
    path: string | null;
    /** The commit of the revision read last (null when unknown). */
    revision: string | null;
    /** git: whether the last fetch worked (null for a folder). */
    reachable: boolean | null;
    last_fetch_at: string | null;
    fetch_error: string | null;
  } | null;
  /**
   * The environment of dqctl.yaml this status compares with (`--env`; null: none), and the one the live store was
   * last applied with (null: none recorded, or not known without a comparison).
   */
  environment: { loaded: string | null; applied: string | null };
  /** The last apply of the store's audit log (by this loop or anyone else). */
  last_applied: { revision: string | null; applied_at: string; applied_by: string; store_revision: number } | null;
  sync: SyncStatus;
  health: HealthStatus;
  /** Why the health is not Healthy, or what is pending. */
  message: string | null;
  /** Findings of the revision read last (errors first, at most 100). */
  diagnostics: DiagnosticSummary[];
  diagnostic_count: { errors: number; warnings: number };
  /** The loop's settings and this replica's role; null in `dqctl status` without --server (no loop there). */
  settings: { auto_apply: boolean; self_heal: boolean; interval_ms: number } | null;
  replica: { id: string; leader: boolean } | null;
  suspended: { by: string; since: string } | null;
  /** When the per-object status was computed (the last comparison of the repository with the store). */
  compared_at: string | null;
  counts: Record<ObjectSyncStatus, number>;
  /** Every object that is not Synced (all of them with `?all=true` / `dqctl status --all`). */
  objects: ObjectStatus[];
  last_pass: PassRecord | null;
  /** Whether a pass runs now, and whether triggers wait for one more after it. */
  pass_running: boolean;
  pass_queued: boolean;
  /** Passes run by this process. */
  passes: number;
  lock: LockInfo | null;
}

/** Per-object status from a plan and the desired objects it was made from. */
export function objectStatuses(plan: Plan, desired: readonly DesiredObject[]): ObjectStatus[] {
  const out = new Map<string, ObjectStatus>();
  const id = (kind: string, name: string) => `${kind}\u0000${name}`;
  const set = (status: ObjectStatus) => out.set(id(status.kind, status.name), status);
  const driftedIds = new Set(plan.drift.map((d) => id(d.key.kind, d.key.name)));
  const none = { fields: [], changes: [], drifted: false };
  for (const d of desired) set({ kind: d.kind, name: d.name, status: 'Synced', reason: 'in_sync', ...none, file: d.origin.file });
  for (const change of plan.changes) {
    const { kind, name } = change.key;
    switch (change.action) {
      case 'create':
        set({ kind, name, status: 'Missing', reason: 'create', ...none, file: change.desired.origin.file });
        break;
      case 'update':
        set({
          kind,
          name,
          status: change.reason === 'restore_drift' ? 'Drifted' : 'OutOfSync',
          reason: change.reason,
          fields: change.fields.map((f) => f.path.join('.')),
          changes: fieldStatuses(change.fields, false),
          drifted: driftedIds.has(id(kind, name)),
          file: change.desired.origin.file,
        });
        break;
      case 'delete':
        set({
          kind,
          name,
          status: change.reason === 'prune_unmanaged' ? 'Extraneous' : 'OutOfSync',
          reason: change.reason,
          ...none,
          drifted: change.live.appliedHash !== null && change.live.appliedHash !== change.live.contentHash,
          file: change.live.originFile,
        });
        break;
      default: {
        const unreachable: never = change;
        throw new Error(`objectStatuses: unknown change ${JSON.stringify(unreachable)}`);
      }
    }
  }
  const updated = new Set(plan.changes.map((c) => id(c.key.kind, c.key.name)));
  for (const drift of plan.drift) {
    if (updated.has(id(drift.key.kind, drift.key.name))) continue; // the update above says what apply does with it
    set({
      kind: drift.key.kind,
      name: drift.key.name,
      status: 'Drifted',
      reason: 'drift_kept',
      fields: drift.fields.map((f) => f.path.join('.')),
      changes: fieldStatuses(drift.fields, true),
      drifted: true,
      file: drift.live.originFile,
    });
  }
  for (const kept of plan.kept) {
    set({ kind: kept.key.kind, name: kept.key.name, status: 'Extraneous', reason: kept.reason, ...none, file: kept.live.originFile });
  }
  for (const conflict of plan.conflicts) {
    set({ kind: conflict.key.kind, name: conflict.key.name, status: 'OutOfSync', reason: `owned_by_${conflict.owner}`, ...none, file: conflict.file });
  }
  return [...out.values()].sort(compareKeys);
}

/**
 * Per-object status from the store alone (`dqctl status` without a repository): objects changed through the API
 * since the last apply are Drifted, objects created through the API Extraneous; git-managed objects are Synced
 * as far as the store can tell.
 */
export function storeObjectStatuses(live: readonly LiveSummary[]): ObjectStatus[] {
  return live
    .map((l): ObjectStatus => {
      const base = { kind: l.kind, name: l.name, fields: [], changes: [], drifted: false, file: l.originFile };
      if (l.managedBy === 'api') return { ...base, status: 'Extraneous', reason: 'unmanaged' };
      if (l.appliedHash !== l.contentHash) return { ...base, status: 'Drifted', reason: 'changed_through_api', drifted: true };
      return { ...base, status: 'Synced', reason: 'as_applied' };
    })
    .sort(compareKeys);
}

export function countStatuses(objects: readonly ObjectStatus[]): Record<ObjectSyncStatus, number> {
  const counts = Object.fromEntries(OBJECT_SYNC_STATUSES.map((s) => [s, 0])) as Record<ObjectSyncStatus, number>;
  for (const o of objects) counts[o.status]++;
  return counts;
}

/** Objects created through the API (Extraneous) do not make the store out of sync: git does not manage them. */
export function syncOf(objects: readonly ObjectStatus[]): SyncStatus {
  return objects.some((o) => o.status === 'OutOfSync' || o.status === 'Missing' || o.status === 'Drifted') ? 'OutOfSync' : 'Synced';
}

export function summarizeDiagnostics(diagnostics: readonly Diagnostic[], limit = 100): DiagnosticSummary[] {
  const ordered = [...diagnostics].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  return ordered.slice(0, limit).map((d) => ({
    severity: d.severity,
    code: d.code,
    summary: d.summary,
    file: d.range?.filename ?? null,
    line: d.range?.start.line ?? null,
    column: d.range?.start.column ?? null,
  }));
}
