import { readFile } from 'node:fs/promises';
import { applyPlan, type ApplyResult } from '../apply/applyPlan.js';
import { DqError } from '../model/index.js';
import type { Plan } from '../plan/plan.js';
import { parsePlanDocument, type PlanDocument } from '../plan/planDocument.js';
import type { Store } from '../store/store.js';
import { planRepository } from './planRepository.js';

/**
 * `apply plan.json`: the saved plan is a gate. The repository is loaded again and planned again; if either
 * the repository or the live store moved since the plan was saved, the fingerprints differ and the apply is
 * refused as stale. Otherwise the fresh plan, identical to the saved one, is applied.
 */
export async function readSavedPlan(file: string): Promise<PlanDocument> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DqError('PLAN_FILE_INVALID', `cannot read the plan file ${file}: ${(error as Error).message}`);
  }
  return parsePlanDocument(text, file);
}

export async function replanSavedPlan(saved: PlanDocument, store: Store | Promise<Store>, repository?: string): Promise<Plan> {
  const { plan } = await planRepository({
    repository: repository ?? saved.repository.path,
    store,
    pruneUnmanaged: saved.options.prune_unmanaged,
    keepDrift: saved.options.keep_drift,
    allowMassDelete: saved.options.allow_mass_delete,
    environment: saved.environment.name,
  });
  if (plan.fingerprint.desired !== saved.fingerprint.desired) {
    throw new DqError('STALE_PLAN', 'stale plan: the repository changed since the plan was saved; run plan again');
  }
  if (plan.fingerprint.liveRevision !== saved.fingerprint.live_revision) {
    throw new DqError(
      'STALE_PLAN',
      `stale plan: the live store changed since the plan was saved (revision ${saved.fingerprint.live_revision} then, ${plan.fingerprint.liveRevision} now); run plan again`,
    );
  }
  if (plan.fingerprint.plan !== saved.fingerprint.plan) {
    throw new DqError('STALE_PLAN', 'stale plan: it was made with other options; run plan again');
  }
  return plan;
}

export type { ApplyResult };
export { applyPlan };
