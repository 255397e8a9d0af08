import { diff, type DiffOptions } from '../diff/diff.js';
import type { LiveSnapshot } from '../inspect/inspectLive.js';
import type { DesiredState, RepositoryIdentity } from '../manifest/desiredState.js';
import type { RepositorySettings } from '../manifest/settings.js';
import { buildPlan, planEnvironment, type Plan, type PlanOptions } from './plan.js';

/**
 * Pairs a desired state with a live snapshot and plans the difference: pure, so `plan`, `apply`, a reconcile
 * pass and a remote plan all get the same answer for the same inputs. The repository's own settings
 * (`dqctl.yaml`) are the defaults of the request's options.
 */
export interface PlanRequestOptions {
  pruneUnmanaged?: boolean;
  keepDrift?: boolean;
  allowMassDelete?: boolean;
  now?: Date;
}

export interface StoreDescription {
  engine: string;
  description: string;
}

/** The options a plan of this desired state runs with, and the diff options they imply (what inspectLive needs). */
export function planOptionsOf(desired: Pick<DesiredState, 'settings'>, request: PlanRequestOptions): { plan: PlanOptions; diff: DiffOptions } {
  const plan: PlanOptions = {
    pruneUnmanaged: request.pruneUnmanaged ?? desired.settings.prune.unmanaged,
    keepDrift: request.keepDrift ?? false,
    allowMassDelete: request.allowMassDelete ?? false,
    massDeleteThreshold: desired.settings.prune.massDeleteThreshold,
  };
  const diffOptions: DiffOptions = {
    namespace: desired.settings.namespace,
    protectedPatterns: desired.settings.protected,
    pruneUnmanaged: plan.pruneUnmanaged,
    keepDrift: plan.keepDrift,
  };
  return { plan, diff: diffOptions };
}

export function planDesiredState(desired: DesiredState, live: LiveSnapshot, store: StoreDescription, request: PlanRequestOptions): Plan {
  const options = planOptionsOf(desired, request);
  const result = diff(desired.objects, live.summaries, live.details, options.diff);
  return buildPlan(result, {
    repository: desired.repository,
    store: { engine: store.engine, description: store.description, revision: live.revision },
    namespace: desired.settings.namespace,
    desiredFingerprint: desired.fingerprint,
    managedCount: live.summaries.filter((s) => s.managedBy === 'git' && s.owner === desired.settings.namespace).length,
    options: options.plan,
    environment: planEnvironment(desired.environment, live.environment?.environment ?? null),
    createdAt: (request.now ?? new Date()).toISOString(),
    inputDigest: desired.inputDigest,
  });
}

/**
 * The plan of a repository whose inputs the store says it was last applied from, with nothing written since
 * (store.unchangedSince): that apply left nothing to plan (plan.ts, leavesNothingToPlan), so this plan has no
 * step, whatever its options, and is made without loading the repository or listing the live objects.
 */
export interface UnchangedInputs {
  settings: RepositorySettings;
  repository: RepositoryIdentity;
  environment: string | null;
  inputDigest: string;
  /** What the store answered: the revision of that apply (still the store's), its desired fingerprint, its environment. */
  revision: number;
  desiredFingerprint: string;
  liveEnvironment: string | null;
}

export function planUnchanged(inputs: UnchangedInputs, store: StoreDescription, request: PlanRequestOptions): Plan {
  const options = planOptionsOf(inputs, request);
  return buildPlan(
    { changes: [], kept: [], drift: [], conflicts: [], resynced: [] },
    {
      repository: inputs.repository,
      store: { engine: store.engine, description: store.description, revision: inputs.revision },
      namespace: inputs.settings.namespace,
      desiredFingerprint: inputs.desiredFingerprint,
      managedCount: 0, // the base of the mass-delete guard, and there is nothing to delete
      options: options.plan,
      environment: planEnvironment(inputs.environment, inputs.liveEnvironment),
      createdAt: (request.now ?? new Date()).toISOString(),
      inputDigest: inputs.inputDigest,
    },
  );
}
