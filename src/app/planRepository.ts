import { inspectLive } from '../inspect/inspectLive.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import type { ProgressReporter } from '../model/index.js';
import type { Plan } from '../plan/plan.js';
import { planDesiredState as planSnapshot, planOptionsOf, type PlanRequestOptions } from '../plan/planDesiredState.js';
import type { Store } from '../store/store.js';
import { loadRepositoryCached } from './repositoryParseCache.js';
import { ValidationFailed } from './validationFailed.js';

/** The use case behind `dqctl plan` (and the first half of `apply`): load, validate, inspect live, diff, plan. */
export interface PlanRequest extends PlanRequestOptions {
  repository: string | RepositorySource;
  store: Store;
  /** A terminal's progress: files loaded, then planning. */
  progress?: ProgressReporter;
  /** The environment of dqctl.yaml whose vars fill `${var.…}` (`--env`). */
  environment?: string | null;
}

/** Loads the repository and refuses it when it has errors: an invalid revision is never planned or applied. */
export async function loadValidRepository(
  repository: string | RepositorySource,
  progress?: ProgressReporter,
  environment?: string | null,
): Promise<DesiredState> {
  const desired = await loadRepositoryCached(repository, { progress, environment });
  if (errorCount(desired) > 0) throw new ValidationFailed(desired);
  return desired;
}

export async function planRepository(request: PlanRequest): Promise<{ desired: DesiredState; plan: Plan }> {
  const desired = await loadValidRepository(request.repository, request.progress, request.environment);
  request.progress?.({ phase: 'plan' });
  const plan = await planDesiredState(desired, request);
  return { desired, plan };
}

/** Inspects the live store (one consistent revision) and plans the desired state against it. */
export async function planDesiredState(desired: DesiredState, request: Omit<PlanRequest, 'repository'>): Promise<Plan> {
  const live = await inspectLive(request.store, desired.objects, planOptionsOf(desired, request).diff);
  return planSnapshot(desired, live, request.store, request);
}
