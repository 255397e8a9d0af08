import { inspectLive } from '../inspect/inspectLive.js';
import type { DesiredState } from '../manifest/desiredState.js';
import type { Plan } from '../plan/plan.js';
import { planDesiredState, planOptionsOf } from '../plan/planDesiredState.js';
import type { Store } from '../store/store.js';

/** A reconcile pass's plan: the Inspector's snapshot of the store, then the pure planner. */
export async function planLive(desired: DesiredState, store: Store, options: { keepDrift: boolean }): Promise<Plan> {
  const live = await inspectLive(store, desired.objects, planOptionsOf(desired, options).diff);
  return planDesiredState(desired, live, store, options);
}

/**
 * The two plans a loop shows, from ONE snapshot of the store: what `dqctl apply` (and `apply --server`) does with
 * its defaults (drift restored), and what the loop itself applies (drift kept unless --self-heal). Both read the
 * same three-way comparison, so they credit every field to the same side and differ only in what they do with
 * the API's changes.
 */
export interface LivePlans {
  /** `dqctl apply` with its defaults: keepDrift false. */
  apply: Plan;
  /** The loop's own: keepDrift = !selfHeal (the same object as `apply` with --self-heal). */
  loop: Plan;
}

export async function planLiveForBoth(desired: DesiredState, store: Store, selfHeal: boolean): Promise<LivePlans> {
  // keysNeedingDetail reads the same objects with or without keepDrift: one snapshot serves both plans
  const live = await inspectLive(store, desired.objects, planOptionsOf(desired, { keepDrift: false }).diff);
  const apply = planDesiredState(desired, live, store, { keepDrift: false });
  return { apply, loop: selfHeal ? apply : planDesiredState(desired, live, store, { keepDrift: true, now: new Date(apply.createdAt) }) };
}
