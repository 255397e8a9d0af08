import { resolve } from 'node:path';
import { planLive } from './planLive.js';
import { errorCount } from '../manifest/desiredState.js';
import { loadRepository } from '../manifest/loadRepository.js';
import type { Store } from '../store/store.js';
import {
  countStatuses,
  objectStatuses,
  storeObjectStatuses,
  summarizeDiagnostics,
  syncOf,
  type ObjectStatus,
  type ReconcileStatus,
  type SyncStatus,
} from './status.js';

/**
 * `dqctl status` without --server: the status as the store alone can tell it, in the same model the server
 * answers. With a repository folder, the per-object sync comes from a fresh plan of it, the plan `dqctl apply`
 * would execute with its defaults (drift restored); without one, from the store's own records (changed through the API → Drifted, created
 * through it → Extraneous) and the last apply of the audit log. There is no loop here, so no last pass.
 */
export async function statusFromStore(store: Store, options: { repository?: string; all?: boolean; environment?: string | null } = {}): Promise<ReconcileStatus> {
  const [lock, history] = await Promise.all([store.currentLock(), store.history(1)]);
  const last = history[0];
  const base: ReconcileStatus = {
    repository: null,
    environment: { loaded: options.environment ?? null, applied: null },
    last_applied: last ? { revision: last.commit, applied_at: last.appliedAt, applied_by: last.appliedBy, store_revision: last.storeRevision } : null,
    sync: 'Unknown',
    health: 'Healthy',
    message: null,
    diagnostics: [],
    diagnostic_count: { errors: 0, warnings: 0 },
    settings: null,
    replica: null,
    suspended: null,
    compared_at: new Date().toISOString(),
    counts: countStatuses([]),
    objects: [],
    last_pass: null,
    pass_running: false,
    pass_queued: false,
    passes: 0,
    lock,
  };
  const finish = (objects: ObjectStatus[], sync: SyncStatus): ReconcileStatus => ({
    ...base,
    sync,
    counts: countStatuses(objects),
    objects: options.all ? objects : objects.filter((o) => o.status !== 'Synced'),
  });

  if (!options.repository) {
    const objects = storeObjectStatuses(await store.listSummaries());
    const drifted = objects.filter((o) => o.status === 'Drifted').length;
    base.message = `no repository given (--repo DIR) and no server (--server URL): per-object status from the store's records only${drifted > 0 ? `; ${drifted} object(s) changed through the API since the last apply` : ''}`;
    return finish(objects, drifted > 0 ? 'OutOfSync' : 'Unknown');
  }

  const location = resolve(options.repository);
  const desired = await loadRepository(location, { environment: options.environment });
  base.repository = { type: 'folder', location, branch: null, path: null, revision: desired.repository.commit, reachable: null, last_fetch_at: null, fetch_error: null };
  base.diagnostics = summarizeDiagnostics(desired.diagnostics);
  base.diagnostic_count = {
    errors: errorCount(desired),
    warnings: desired.diagnostics.filter((d) => d.severity === 'warning').length,
  };
  if (errorCount(desired) > 0) {
    base.health = 'Degraded';
    base.message = `the repository has ${errorCount(desired)} validation error(s); it cannot be compared with the store (dqctl validate shows them)`;
    return finish([], 'Unknown');
  }
  // what `dqctl apply` would do with its defaults (drift restored): the same plan `dqctl plan` shows
  const plan = await planLive(desired, store, { keepDrift: false });
  base.environment = { loaded: plan.environment.name, applied: plan.environment.live };
  const objects = objectStatuses(plan, desired.objects);
  const blocking = plan.findings.find((f) => f.severity === 'error');
  if (blocking) {
    base.health = 'Degraded';
    base.message = `applying this repository would be refused: ${blocking.message}`;
  }
  return finish(objects, syncOf(objects));
}
