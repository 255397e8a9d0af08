import {
  compareKeys,
  keyId,
  type DesiredObject,
  type LiveObject,
  type LiveSummary,
  type ObjectKey,
} from '../model/index.js';
import type { Change, Conflict, Drift, Kept } from './change.js';
import { isProtected } from './protectedPatterns.js';
import { apiChanges, changesWithOrigin, keepDriftMerge } from './threeWay.js';

/**
 * Pairs the desired objects with the live ones and decides, object by object, what apply must do.
 * Pure: the caller reads the live store (summaries for everything, full objects for `keysNeedingDetail`).
 * Ownership rules: objects of another namespace are never touched; objects created through the API are
 * deleted only with `pruneUnmanaged`; protected objects are never deleted.
 */
export interface DiffOptions {
  namespace: string;
  protectedPatterns: readonly string[];
  pruneUnmanaged: boolean;
  /** Leave objects changed through the API as they are when the repository did not change them. */
  keepDrift: boolean;
}

export interface DiffResult {
  changes: Change[];
  kept: Kept[];
  drift: Drift[];
  conflicts: Conflict[];
  /** Drifted objects the repository now agrees with: apply only records them as in sync again. */
  resynced: DesiredObject[];
}

type Decision =
  | { type: 'noop' }
  | { type: 'resync' }
  | { type: 'create' }
  | { type: 'update'; reason: 'repository_changed' | 'restore_drift' | 'adopt'; drifted: boolean }
  | { type: 'drift_only' }
  | { type: 'conflict' };

function decide(desired: DesiredObject, live: LiveSummary | undefined, options: DiffOptions): Decision {
  if (!live) return { type: 'create' };
  if (live.managedBy === 'api') return { type: 'update', reason: 'adopt', drifted: false };
  if (live.owner !== options.namespace) return { type: 'conflict' };
  const drifted = live.appliedHash !== live.contentHash;
  if (desired.hash === live.contentHash) return drifted ? { type: 'resync' } : { type: 'noop' };
  if (drifted && desired.hash === live.appliedHash) {
    return options.keepDrift ? { type: 'drift_only' } : { type: 'update', reason: 'restore_drift', drifted: true };
  }
  return { type: 'update', reason: 'repository_changed', drifted };
}

function liveOutcome(live: LiveSummary, options: DiffOptions): 'ignore' | 'delete' | 'prune' | 'keep_unmanaged' | 'keep_protected' {
  if (live.managedBy === 'git' && live.owner !== options.namespace) return 'ignore';
  const wouldDelete = live.managedBy === 'git' || options.pruneUnmanaged;
  if (!wouldDelete) return 'keep_unmanaged';
  if (isProtected(live, options.protectedPatterns)) return 'keep_protected';
  return live.managedBy === 'git' ? 'delete' : 'prune';
}

/** The live objects whose full spec the diff needs: everything that is not a plain no-op. */
export function keysNeedingDetail(desired: readonly DesiredObject[], live: readonly LiveSummary[], options: DiffOptions): ObjectKey[] {
  const liveById = new Map(live.map((l) => [keyId(l), l]));
  const desiredIds = new Set<string>();
  const keys: ObjectKey[] = [];
  for (const d of desired) {
    const id = keyId(d);
    desiredIds.add(id);
    const l = liveById.get(id);
    const decision = decide(d, l, options);
    if (decision.type === 'update' || decision.type === 'drift_only') keys.push({ kind: d.kind, name: d.name });
  }
  for (const l of live) {
    if (desiredIds.has(keyId(l))) continue;
    const outcome = liveOutcome(l, options);
    if (outcome === 'delete' || outcome === 'prune') keys.push({ kind: l.kind, name: l.name });
  }
  return keys;
}

export function diff(
  desired: readonly DesiredObject[],
  live: readonly LiveSummary[],
  details: ReadonlyMap<string, LiveObject>,
  options: DiffOptions,
): DiffResult {
  const liveById = new Map(live.map((l) => [keyId(l), l]));
  const detail = (key: ObjectKey): LiveObject => {
    const found = details.get(keyId(key));
    if (!found) throw new Error(`diff: live detail missing for ${keyId(key)} (call keysNeedingDetail first)`);
    return found;
  };
  const result: DiffResult = { changes: [], kept: [], drift: [], conflicts: [], resynced: [] };
  const desiredIds = new Set<string>();

  for (const d of desired) {
    const key: ObjectKey = { kind: d.kind, name: d.name };
    const id = keyId(key);
    desiredIds.add(id);
    const l = liveById.get(id);
    const decision = decide(d, l, options);
    switch (decision.type) {
      case 'noop':
        break;
      case 'resync':
        result.resynced.push(d);
        break;
      case 'create':
        result.changes.push({ action: 'create', key, desired: d });
        break;
      case 'conflict':
        result.conflicts.push({ key, owner: l!.owner, file: d.origin.file });
        break;
      case 'drift_only': {
        const full = detail(key);
        result.drift.push({ key, live: full, fields: apiChanges(d, full), restored: false });
        break;
      }
      case 'update': {
        const full = detail(key);
        let fields = changesWithOrigin(d, full);
        // --keep-drift on an object both sides changed: the repository's changes are applied, the API's kept
        const merge = decision.drifted && decision.reason === 'repository_changed' && options.keepDrift ? keepDriftMerge(d, full) : null;
        if (merge) fields = fields.map((f) => (f.origin === 'api' ? { ...f, kept: true } : f));
        result.changes.push({ action: 'update', key, desired: d, live: full, fields, reason: decision.reason, ...(merge ? { write: merge } : {}) });
        if (decision.drifted) result.drift.push({ key, live: full, fields: apiChanges(d, full), restored: merge === null });
        break;
      }
      default: {
        const unreachable: never = decision;
        throw new Error(`diff: unknown decision ${JSON.stringify(unreachable)}`);
      }
    }
  }

  for (const l of live) {
    const key: ObjectKey = { kind: l.kind, name: l.name };
    if (desiredIds.has(keyId(key))) continue;
    const outcome = liveOutcome(l, options);
    switch (outcome) {
      case 'ignore':
        break;
      case 'keep_unmanaged':
        result.kept.push({ key, live: l, reason: 'unmanaged' });
        break;
      case 'keep_protected':
        result.kept.push({ key, live: l, reason: 'protected' });
        break;
      case 'delete':
        result.changes.push({ action: 'delete', key, live: detail(key), reason: 'not_in_repository' });
        break;
      case 'prune':
        result.changes.push({ action: 'delete', key, live: detail(key), reason: 'prune_unmanaged' });
        break;
    }
  }
  result.changes.sort((a, b) => compareKeys(a.key, b.key));
  result.kept.sort((a, b) => compareKeys(a.key, b.key));
  result.drift.sort((a, b) => compareKeys(a.key, b.key));
  return result;
}
