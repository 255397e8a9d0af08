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
