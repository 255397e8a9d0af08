import { diff, keysNeedingDetail, type DiffOptions } from '../diff/diff.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { loadRepository } from '../manifest/loadRepository.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { DqError, keyId, type LiveObject, type LiveSummary, type ProgressReporter } from '../model/index.js';
import { buildPlan, type Plan, type PlanOptions } from '../plan/plan.js';
import type { Store } from '../store/store.js';
import { ValidationFailed } from './validationFailed.js';

/** The use case behind `dqctl plan` (and the first half of `apply`): load, validate, inspect live, diff, plan. */
export interface PlanRequest {
  repository: string | RepositorySource;
  store: Store;
  pruneUnmanaged?: boolean;
  keepDrift?: boolean;
  allowMassDelete?: boolean;
  now?: Date;
  /** A terminal's progress: files loaded, then planning. */
  progress?: ProgressReporter;
}

/** Loads the repository and refuses it when it has errors: an invalid revision is never planned or applied. */
export async function loadValidRepository(repository: string | RepositorySource, progress?: ProgressReporter): Promise<DesiredState> {
  const desired = await loadRepository(repository, { progress });
  if (errorCount(desired) > 0) throw new ValidationFailed(desired);
  return desired;
}

export async function planRepository(request: PlanRequest): Promise<{ desired: DesiredState; plan: Plan }> {
  const desired = await loadValidRepository(request.repository, request.progress);
  request.progress?.({ phase: 'plan' });
  const plan = await planDesiredState(desired, request);
  return { desired, plan };
}

export async function planDesiredState(desired: DesiredState, request: Omit<PlanRequest, 'repository'>): Promise<Plan> {
  const options: PlanOptions = {
    pruneUnmanaged: request.pruneUnmanaged ?? desired.settings.prune.unmanaged,
    keepDrift: request.keepDrift ?? false,
    allowMassDelete: request.allowMassDelete ?? false,
    massDeleteThreshold: desired.settings.prune.massDeleteThreshold,
  };
  const diffOptions: DiffOptions = {
    namespace: desired.settings.namespace,
    protectedPatterns: desired.settings.protected,
    pruneUnmanaged: options.pruneUnmanaged,
    keepDrift: options.keepDrift,
  };
  const live = await inspectLive(request.store, desired, diffOptions);
  const result = diff(desired.objects, live.summaries, live.details, diffOptions);
  return buildPlan(result, {
    repository: desired.repository,
    store: { engine: request.store.engine, description: request.store.description, revision: live.revision },
    namespace: desired.settings.namespace,
    desiredFingerprint: desired.fingerprint,
    managedCount: live.summaries.filter((s) => s.managedBy === 'git' && s.owner === desired.settings.namespace).length,
    options,
    createdAt: (request.now ?? new Date()).toISOString(),
  });
}

/**
 * Reads what the diff needs: every object's summary, and full specs only of the objects that differ. The
 * revision is read before and after; if a write slipped in between, the read is repeated, so the plan always
 * describes one consistent revision.
 */
async function inspectLive(
  store: Store,
  desired: DesiredState,
  options: DiffOptions,
): Promise<{ revision: number; summaries: LiveSummary[]; details: Map<string, LiveObject> }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const revision = await store.revision();
    const summaries = await store.listSummaries();
    const needed = keysNeedingDetail(desired.objects, summaries, options);
    const objects = needed.length > 0 ? await store.getObjects(needed) : [];
    if ((await store.revision()) !== revision) continue;
    return { revision, summaries, details: new Map(objects.map((o) => [keyId(o), o])) };
  }
  throw new DqError('STALE_PLAN', 'the live store kept changing while it was read; try again');
}
