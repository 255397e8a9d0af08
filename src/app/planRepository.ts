import { inspectLive } from '../inspect/inspectLive.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { readRepositoryInputs, type RepositoryInputs } from '../manifest/repositoryInputs.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import type { ProgressReporter } from '../model/index.js';
import type { Plan } from '../plan/plan.js';
import { planDesiredState as planSnapshot, planOptionsOf, planUnchanged, type PlanRequestOptions } from '../plan/planDesiredState.js';
import type { Store } from '../store/store.js';
import { loadRepositoryCached } from './repositoryParseCache.js';
import { ValidationFailed } from './validationFailed.js';

/** The use case behind `dqctl plan` (and the first half of `apply`): load, validate, inspect live, diff, plan. */
export interface PlanRequest extends PlanRequestOptions {
  repository: string | RepositorySource;
  /**
   * The live store, or its opening (openStore's promise): a store still opening is awaited only once the files
   * are read and hashed, so the embedded store's open (PGlite, 1-4 s) runs beside the reads. The caller closes it.
   */
  store: Store | Promise<Store>;
  /** A terminal's progress: files loaded, then planning. */
  progress?: ProgressReporter;
  /** The environment of dqctl.yaml whose vars fill `${var.…}` (`--env`). */
  environment?: string | null;
  /**
   * Ask the store first whether the files are those of the namespace's last apply, untouched since (default true;
   * false always loads and compares everything: tests compare the two answers).
   */
  shortcut?: boolean;
}

/** Loads the repository and refuses it when it has errors: an invalid revision is never planned or applied. */
export async function loadValidRepository(
  repository: string | RepositorySource,
  progress?: ProgressReporter,
  environment?: string | null,
  source?: RepositorySource,
): Promise<DesiredState> {
  const desired = await loadRepositoryCached(repository, { progress, environment, source });
  if (errorCount(desired) > 0) throw new ValidationFailed(desired);
  return desired;
}

/**
 * Reads every file and hashes it first (manifest/repositoryInputs.ts). When the store says the namespace was last
 * applied from exactly these inputs and nothing was written since (store.unchangedSince), the plan is empty and
 * made at once: no parse, no listing of the live objects (`desired` is then null). Otherwise the files read are
 * loaded (each read once), validated and compared with the live store as always, and the plan carries the digest
 * for apply to record.
 */
export async function planRepository(request: PlanRequest): Promise<{ desired: DesiredState | null; plan: Plan }> {
  const environment = request.environment ?? null;
  const opening = Promise.resolve(request.store);
  // a store that fails to open is reported when awaited (after the reads), not as an unhandled rejection meanwhile
  opening.catch(() => undefined);
  let inputs: RepositoryInputs | null = await readRepositoryInputs(request.repository, { environment, progress: request.progress });
  const store = await opening;
  if (request.shortcut !== false && inputs.digest !== null && inputs.settings !== null) {
    const unchanged = await store.unchangedSince(inputs.settings.namespace, inputs.digest);
    if (unchanged) {
      request.progress?.({ phase: 'plan' });
      const [commit, dirtyFiles] = await Promise.all([inputs.source.commit(), inputs.source.dirtyFiles?.() ?? null]);
      const plan = planUnchanged(
        {
          settings: inputs.settings,
          repository: { description: inputs.source.description, commit, ...(commit && dirtyFiles ? { dirtyFiles } : {}) },
          environment,
          inputDigest: inputs.digest,
          revision: unchanged.revision,
          desiredFingerprint: unchanged.desiredFingerprint,
          liveEnvironment: unchanged.environment?.environment ?? null,
        },
        store,
        request,
      );
      return { desired: null, plan };
    }
  }
  const { digest } = inputs;
  const loaded = await loadValidRepository(request.repository, request.progress, environment, inputs.source);
  inputs = null; // the texts of every file it holds are not needed by the plan (100,000 tables: 200 MB and more)
  const desired: DesiredState = digest !== null ? { ...loaded, inputDigest: digest } : loaded;
  request.progress?.({ phase: 'plan' });
  const plan = await planDesiredState(desired, { ...request, store });
  return { desired, plan };
}

/** Inspects the live store (one consistent revision) and plans the desired state against it. */
export async function planDesiredState(desired: DesiredState, request: Omit<PlanRequest, 'repository' | 'store'> & { store: Store }): Promise<Plan> {
  const live = await inspectLive(request.store, desired.objects, planOptionsOf(desired, request).diff);
  return planSnapshot(desired, live, request.store, request);
}
