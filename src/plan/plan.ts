import { createHash } from 'node:crypto';
import type { Change, Conflict, Drift, Kept } from '../diff/change.js';
import type { DiffResult } from '../diff/diff.js';
import { isSecretKey, isSecretReference } from '../diff/secrets.js';
import { isJsonObject, type DesiredObject, type ObjectKey } from '../model/index.js';

/**
 * A plan is a value: what apply would do, why, and the fingerprint that ties it to one desired state and one
 * live revision. Apply refuses a plan whose fingerprint no longer matches (a stale plan).
 */
export const PLAN_FORMAT_VERSION = '1.0';

export interface PlanOptions {
  pruneUnmanaged: boolean;
  keepDrift: boolean;
  allowMassDelete: boolean;
  massDeleteThreshold: number;
}

/**
 * The environment (`--env`) of the plan and the one the live store was last applied with, for this namespace.
 * Another environment than the live one is a switch: the plan says so first, and apply refuses it without
 * --switch-env. A store that never recorded one (or recorded none) is bound to no environment.
 */
export interface PlanEnvironment {
  /** The environment the repository was loaded with; null without --env. */
  name: string | null;
  /** The environment of the last apply of this namespace; null: none recorded. */
  live: string | null;
  /** live is an environment and name is not that one. */
  switching: boolean;
}

export function planEnvironment(name: string | null, live: string | null): PlanEnvironment {
  return { name, live, switching: live !== null && live !== name };
}

/** True when apply has nothing to write: no change, no object to mark in sync, the same environment recorded. */
export function nothingToApply(plan: Pick<Plan, 'changes' | 'resynced' | 'environment'>): boolean {
  return plan.changes.length === 0 && plan.resynced.length === 0 && plan.environment.name === plan.environment.live;
}

export interface PlanContext {
  /** dirtyFiles: the files that differ from `commit` (see manifest/desiredState.ts). */
  repository: { description: string; commit: string | null; dirtyFiles?: string[] | null };
  store: { engine: string; description: string; revision: number };
  namespace: string;
  desiredFingerprint: string;
  /** Live objects managed by this repository (git, same namespace): the base of the mass-delete guard. */
  managedCount: number;
  options: PlanOptions;
  environment: PlanEnvironment;
  createdAt: string;
  /** The digest of the repository's inputs the desired state was loaded from (manifest/repositoryInputs.ts), when known. */
  inputDigest?: string | null;
}

/** An analyzer's finding. Errors block apply (and make `plan` fail); warnings are shown. */
export interface Finding {
  code: 'MASS_DELETE' | 'OWNERSHIP_CONFLICT' | 'PLAINTEXT_SECRET' | 'ENVIRONMENT_SWITCH';
  severity: 'error' | 'warning';
  message: string;
  objects: string[];
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  createdAt: string;
  repository: PlanContext['repository'];
  store: PlanContext['store'];
  namespace: string;
  options: PlanOptions;
  environment: PlanEnvironment;
  changes: Change[];
  kept: Kept[];
  drift: Drift[];
  conflicts: Conflict[];
  resynced: DesiredObject[];
  summary: { add: number; change: number; destroy: number };
  findings: Finding[];
  fingerprint: { desired: string; liveRevision: number; plan: string };
  /**
   * The digest of the repository's inputs this plan was made from (manifest/repositoryInputs.ts), when it was
   * made from files read in this process; apply records it when the plan leaves nothing behind (see
   * `leavesNothingToPlan`), so that the next plan of the same files against an untouched store is answered at once.
   */
  inputDigest?: string;
}

/**
 * After applying this plan, would a plan of the same desired state find nothing at all, whatever its options?
 * Yes when nothing is kept (no unmanaged or protected object the repository leaves alone), nothing conflicts and
 * every drift is restored: then the live objects of the namespace are exactly the desired ones, and no object
 * managed through the API remains for --prune-unmanaged to see.
 */
export function leavesNothingToPlan(plan: Pick<Plan, 'kept' | 'conflicts' | 'drift'>): boolean {
  return plan.kept.length === 0 && plan.conflicts.length === 0 && plan.drift.every((d) => d.restored);
}

export function planFingerprint(desired: string, liveRevision: number, options: PlanOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ desired, liveRevision, prune: options.pruneUnmanaged, keepDrift: options.keepDrift }))
    .digest('hex');
}

/** Steps in the order they are shown and applied: creates and updates parents first, deletes children first. */
const CREATE_ORDER = ['default_schedules', 'source', 'dictionary', 'rule', 'sensor', 'check', 'default_table_checks', 'default_column_checks', 'table', 'default_notifications'];

function orderChanges(changes: Change[]): Change[] {
  const rank = (c: Change) => {
    const kindRank = CREATE_ORDER.indexOf(c.key.kind);
    return c.action === 'delete' ? 100 + (CREATE_ORDER.length - kindRank) : kindRank;
  };
  return [...changes].sort((a, b) => rank(a) - rank(b) || (a.key.name < b.key.name ? -1 : a.key.name > b.key.name ? 1 : 0));
}

export function buildPlan(result: DiffResult, context: PlanContext): Plan {
  const changes = orderChanges(result.changes);
  const summary = {
    add: changes.filter((c) => c.action === 'create').length,
    change: changes.filter((c) => c.action === 'update').length,
    destroy: changes.filter((c) => c.action === 'delete').length,
  };
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: context.createdAt,
    repository: context.repository,
    store: context.store,
    namespace: context.namespace,
    options: context.options,
    environment: context.environment,
    changes,
    kept: result.kept,
    drift: result.drift,
    conflicts: result.conflicts,
    resynced: result.resynced,
    summary,
    findings: analyze(changes, result.conflicts, context),
    fingerprint: {
      desired: context.desiredFingerprint,
      liveRevision: context.store.revision,
      plan: planFingerprint(context.desiredFingerprint, context.store.revision, context.options),
    },
    ...(context.inputDigest ? { inputDigest: context.inputDigest } : {}),
  };
}

export function blockingFindings(plan: Pick<Plan, 'findings'>): Finding[] {
  return plan.findings.filter((f) => f.severity === 'error');
}

/** A warning, not an error: the plan is shown (and may be saved); apply refuses it without --switch-env. */
export function environmentSwitch(environment: PlanEnvironment, namespace: string): Finding {
  const target = environment.name === null ? 'no environment (no --env)' : `the environment ${environment.name}`;
  return {
    code: 'ENVIRONMENT_SWITCH',
    severity: 'warning',
    message: `the live store was applied with the environment ${environment.live} (namespace ${namespace}); this plan is for ${target}: apply refuses it without --switch-env`,
    objects: [],
  };
}

function label(key: ObjectKey): string {
  return `${key.kind} ${key.name}`;
}

function analyze(changes: Change[], conflicts: Conflict[], context: PlanContext): Finding[] {
  const findings: Finding[] = [];
  if (context.environment.switching) findings.push(environmentSwitch(context.environment, context.namespace));
  const managedDeletes = changes.filter((c) => c.action === 'delete' && c.reason === 'not_in_repository');
  const { managedCount, options } = context;
  if (!options.allowMassDelete && managedDeletes.length > 0 && managedCount > 0) {
    const all = managedDeletes.length >= managedCount;
    const share = managedDeletes.length / managedCount;
    if (all || share > options.massDeleteThreshold) {
      findings.push({
        code: 'MASS_DELETE',
        severity: 'error',
        message: all
          ? `this plan deletes ALL ${managedCount} objects managed by this repository (an empty or broken checkout?); pass --allow-mass-delete if that is what you want`
          : `this plan deletes ${managedDeletes.length} of the ${managedCount} objects managed by this repository (${Math.round(share * 100)}%, over the ${Math.round(options.massDeleteThreshold * 100)}% limit); pass --allow-mass-delete if that is what you want`,
        objects: managedDeletes.map((c) => label(c.key)),
      });
    }
  }
  if (conflicts.length > 0) {
    findings.push({
      code: 'OWNERSHIP_CONFLICT',
      severity: 'error',
      message: `${conflicts.length} object(s) in the repository are managed by another namespace in the live store: ${conflicts
        .slice(0, 5)
        .map((c) => `${label(c.key)} (owner ${c.owner}, from ${c.file})`)
        .join(', ')}${conflicts.length > 5 ? ', …' : ''}`,
      objects: conflicts.map((c) => label(c.key)),
    });
  }
  const literalSecrets = changes.filter(
    (c) =>
      c.action !== 'delete' &&
      c.key.kind === 'source' &&
      Object.values(c.desired.spec).some(
        (block) => isJsonObject(block) && Object.entries(block).some(([k, v]) => isSecretKey(k) && typeof v === 'string' && v !== '' && !isSecretReference(v)),
      ),
  );
  if (literalSecrets.length > 0) {
    findings.push({
      code: 'PLAINTEXT_SECRET',
      severity: 'warning',
      message: `${literalSecrets.length} connection(s) carry a literal password instead of a \${ENV} reference; it is stored but never shown`,
      objects: literalSecrets.map((c) => label(c.key)),
    });
  }
  return findings;
}
