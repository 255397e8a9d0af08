import type { Reconciler } from '../reconcile/reconciler.js';
import type { ReconcileStatus } from '../reconcile/status.js';
import { statusFromStore } from '../reconcile/storeStatus.js';
import type { Store } from '../store/store.js';

/**
 * The sync status every view reads (`dqctl status`, GET /api/gitops/status, the overview, the console, the
 * metrics): the reconcile loop's comparison when this process runs one (made again first when the store moved),
 * otherwise a comparison of `repository` with the store made now (the plan `dqctl apply` would execute), or,
 * without a repository, the store's own records.
 */
export async function syncStatus(
  source: { reconciler: Reconciler } | { store: Store; repository?: string; environment?: string | null },
  options: { all?: boolean } = {},
): Promise<ReconcileStatus> {
  if ('reconciler' in source) return source.reconciler.status(options);
  return statusFromStore(source.store, { repository: source.repository, environment: source.environment, all: options.all });
}

export type { ReconcileStatus };
export type { FieldStatus, ObjectStatus, ObjectSyncStatus, SyncStatus } from '../reconcile/status.js';

/** The per-object sync statuses, in the order views list them (the metrics' labels). */
export { OBJECT_SYNC_STATUSES } from '../reconcile/status.js';
