import { diffDesired, type DesiredDiff } from '../diff/diffDesired.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { loadRepository } from '../manifest/loadRepository.js';
import { ParseCache } from '../manifest/parseCache.js';
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
import { ValidationFailed } from './validationFailed.js';

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
  /** The live store whose tables are counted too, and how to name it. */
  live?: { store: StoreReader; engine: string; description: string };
}

export async function diffRevisions(request: DiffRevisionsRequest): Promise<RevisionDiff> {
  // One cache for both loads: the head re-parses only the files whose blob differs from the base's.
  const cache = new ParseCache();
  const environment = request.environment ?? null;
  const base = await loadRepository(request.base.source, { cache, environment });
  const head = await loadRepository(request.head.source, { cache, environment });
  const headErrors = errorCount(head);
  if (headErrors > 0) {
    const error = new ValidationFailed(head);
    error.message = `the head ${request.head.ref} has ${headErrors} validation error${headErrors === 1 ? '' : 's'}; nothing was compared`;
    throw error;
  }
  const warnings: string[] = [];
  const baseErrors = errorCount(base);
  if (baseErrors > 0) {
    warnings.push(
      `the base ${request.base.ref} has ${baseErrors} validation error${baseErrors === 1 ? '' : 's'}; it is compared by its valid files, so objects of its broken files show as added`,
    );
  }
  const diff = diffDesired(base, head);

  let live: RevisionDiff['live'] = null;
  let liveUniverse: TableUniverse | undefined;
  if (request.live) {
    const store = request.live.store;
    const revision = await store.revision();
    const [tables, sources] = await Promise.all([store.listObjects({ kind: 'table' }), store.listObjects({ kind: 'source' })]);
    liveUniverse = tableUniverse([...sources, ...tables]);
    live = { engine: request.live.engine, description: request.live.description, revision };
  }

  return {
    repository: head.repository.description,
    environment,
    base: { ref: request.base.ref, commit: base.repository.commit, errorCount: baseErrors },
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
