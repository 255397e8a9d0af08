import { diffDesired, type DesiredDiff } from '../diff/diffDesired.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import type { DesiredObject, JsonObject, ObjectKind } from '../model/index.js';
import {
  compareReach,
  isPolicyKind,
  policyReach,
  reachKey,
  tableUniverse,
  type PolicyKind,
  type TableUniverse,
} from '../policy/blastRadius.js';
import type { PolicyObject } from '../policy/compilePolicies.js';
import type { StoreReader } from '../store/store.js';
import type { PolicyBlastRadius, RevisionDiff } from '../plan/revisionDiff.js';
import { redactSpec } from './connectionSecrets.js';
import { loadRevisionPair } from './loadRevisionPair.js';

/**
 * The use case behind `dqctl diff --base --head`: what a pull request changes, object by object, and for
 * every changed policy how far it reaches before and after. No live store is needed; when one is given, the
 * policies are also matched against the tables it holds. An invalid head is refused (the diagnostics are the
 * answer); an invalid base is compared by its valid part, with a warning.
 */
export interface DiffRevisionsRequest {
  base: { source: RepositorySource; ref: string };
  head: { source: RepositorySource; ref: string };
  /** The environment both revisions are loaded with (`--env`): the diff shows its effective values. */
  environment?: string | null;
  /** The live store's tables, counted too (`livePolicyTargets`, read here or by a server). */
  live?: LivePolicyTargets;
}

/**
 * What the policies of a diff are matched against in a live store: its connections (secrets redacted: only
 * their labels and names matter) and tables, of one revision, and how to name the store. `dqctl diff` reads it
 * from the store it opened, or with --server from GET /api/gitops/policy-targets (the same function there).
 */
export interface LivePolicyTargets {
  engine: string;
  description: string;
  revision: number;
  objects: Array<{ kind: 'source' | 'table'; name: string; spec: JsonObject }>;
}

export async function livePolicyTargets(store: StoreReader & { engine: string; description: string }): Promise<LivePolicyTargets> {
  const revision = await store.revision();
  const [sources, tables] = await Promise.all([store.listObjects({ kind: 'source' }), store.listObjects({ kind: 'table' })]);
  return {
    engine: store.engine,
    description: store.description,
    revision,
    objects: [
      ...sources.map((o) => ({ kind: 'source' as const, name: o.name, spec: redactSpec(o.spec) })),
      ...tables.map((o) => ({ kind: 'table' as const, name: o.name, spec: o.spec })),
    ],
  };
}

export async function diffRevisions(request: DiffRevisionsRequest): Promise<RevisionDiff> {
  const { base, head, warnings } = await loadRevisionPair(request, {
    nothing: 'nothing was compared',
    baseConsequence: 'it is compared by its valid files, so objects of its broken files show as added',
  });
  const diff = diffDesired(base, head);

  let live: RevisionDiff['live'] = null;
  let liveUniverse: TableUniverse | undefined;
  if (request.live) {
    liveUniverse = tableUniverse(request.live.objects);
    live = { engine: request.live.engine, description: request.live.description, revision: request.live.revision };
  }

  return {
    repository: head.repository.description,
    environment: request.environment ?? null,
    base: { ref: request.base.ref, commit: base.repository.commit, errorCount: errorCount(base) },
    head: { ref: request.head.ref, commit: head.repository.commit, errorCount: 0 },
    live,
    diff,
    blastRadius: blastRadiusOf(diff, base, head, liveUniverse),
    warnings,
  };
}

function blastRadiusOf(diff: DesiredDiff, base: DesiredState, head: DesiredState, liveUniverse: TableUniverse | undefined): PolicyBlastRadius[] {
  const before: DesiredObject[] = [];
  const after: DesiredObject[] = [];
  const changed: Array<{ kind: PolicyKind; name: string; action: PolicyBlastRadius['action'] }> = [];
  for (const change of diff.changes) {
    const kind: ObjectKind = change.key.kind;
    if (!isPolicyKind(kind)) continue;
    changed.push({ kind, name: change.key.name, action: change.action });
    if (change.action !== 'added') before.push(change.base);
    if (change.action !== 'removed') after.push(change.head);
  }
  if (changed.length === 0) return [];
  const asPolicies = (objects: DesiredObject[]): PolicyObject[] => objects.map((o) => ({ kind: o.kind, name: o.name, spec: o.spec }));
  const baseReach = policyReach(asPolicies(before), tableUniverse(base.objects));
  const headReach = policyReach(asPolicies(after), tableUniverse(head.objects));
  const liveBefore = liveUniverse ? policyReach(asPolicies(before), liveUniverse) : undefined;
  const liveAfter = liveUniverse ? policyReach(asPolicies(after), liveUniverse) : undefined;
  const specOf = (objects: DesiredObject[], kind: PolicyKind, name: string) => objects.find((o) => o.kind === kind && o.name === name)?.spec;
  return changed.map(({ kind, name, action }) => {
    const key = reachKey(kind, name);
    const beforeSpec = specOf(before, kind, name);
    const afterSpec = specOf(after, kind, name);
    return {
      kind,
      name,
      action,
      disabled: { before: beforeSpec ? beforeSpec.disabled === true : null, after: afterSpec ? afterSpec.disabled === true : null },
      target: { before: beforeSpec ? targetOf(beforeSpec) : null, after: afterSpec ? targetOf(afterSpec) : null },
      repository: compareReach(baseReach.get(key), headReach.get(key)),
      live: liveBefore && liveAfter ? compareReach(liveBefore.get(key), liveAfter.get(key)) : null,
    };
  });
}

function targetOf(spec: JsonObject): JsonObject {
  const target = spec.target;
  return target !== null && typeof target === 'object' && !Array.isArray(target) ? target : {};
}
