import { applyPlan, type ApplyResult } from '../apply/applyPlan.js';
import { isDqError } from '../model/index.js';
import { nothingToApply } from '../plan/plan.js';
import { toPlanDocument, type PlanDocument } from '../plan/planDocument.js';
import type { Store } from '../store/store.js';
import { checkExpectedFingerprint, desiredFromRequest, type GitopsRequest } from './gitopsRequest.js';
import { planDesiredState } from './planRepository.js';

/**
 * The server side of `plan|apply --server`: the desired state a client sent (checked and recomputed by
 * desiredFromRequest), planned against this server's store and, for apply, applied under its store lock. The
 * answers are the very objects the local commands print: a PlanDocument, and `{plan, applied}` as
 * `apply --format json` prints it.
 */
export interface RemoteApplyResult {
  plan: PlanDocument;
  applied: ApplyResult | null;
}

export interface RemoteApplyOptions {
  /** Lock holder shown to others. */
  holder: string;
  /** Recorded in the audit log. */
  appliedBy: string;
  lockTimeoutMs: number;
}

export async function planRequest(store: Store, request: GitopsRequest): Promise<PlanDocument> {
  const desired = desiredFromRequest(request);
  const plan = await planDesiredState(desired, {
    store,
    pruneUnmanaged: request.options.prune_unmanaged,
    keepDrift: request.options.keep_drift,
    allowMassDelete: request.options.allow_mass_delete,
  });
  return toPlanDocument(plan);
}

/** Another writer may slip in between planning and taking the lock; without an expected plan, plan again. */
const ATTEMPTS = 3;

/**
 * Plans and applies. With `expected_fingerprint` (the plan the user reviewed, or a saved one) the plan must be
 * that one: a moved repository or store is STALE_PLAN. Without it, the plan made now is applied; applyPlan
 * refuses it if the store moved before the lock was taken, and then it is planned again (at most 3 times).
 * Callers serialize calls on one server, so two remote applies never race each other.
 */
export async function applyRequest(store: Store, request: GitopsRequest, options: RemoteApplyOptions): Promise<RemoteApplyResult> {
  const desired = desiredFromRequest(request);
  for (let attempt = 1; ; attempt++) {
    const plan = await planDesiredState(desired, {
      store,
      pruneUnmanaged: request.options.prune_unmanaged,
      keepDrift: request.options.keep_drift,
      allowMassDelete: request.options.allow_mass_delete,
    });
    if (request.expected_fingerprint) checkExpectedFingerprint(plan.fingerprint, request.expected_fingerprint);
    const doc = toPlanDocument(plan);
    if (nothingToApply(plan)) return { plan: doc, applied: null };
    try {
      const applied = await applyPlan(plan, store, { ...options, switchEnvironment: request.options.switch_env === true });
      return { plan: doc, applied };
    } catch (error) {
      const retry = !request.expected_fingerprint && attempt < ATTEMPTS && isDqError(error) && error.code === 'STALE_PLAN';
      if (!retry) throw error;
    }
  }
}
