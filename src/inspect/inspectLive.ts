import { keysNeedingDetail, type DiffOptions } from '../diff/diff.js';
import { DqError, keyId, type AppliedEnvironment, type DesiredObject, type LiveObject, type LiveSummary } from '../model/index.js';
import type { StoreReader } from '../store/store.js';

/**
 * The Inspector: one consistent snapshot of the live objects, what a plan compares the repository with.
 * Every object's summary is read, and the full spec only of the objects that differ (the diff decides which).
 * The store revision is read before and after; if a write slipped in between, the read is repeated, so a
 * snapshot always describes exactly one revision.
 */
export interface LiveSnapshot {
  revision: number;
  summaries: LiveSummary[];
  /** Full objects of the summaries that differ from the desired state, by keyId. */
  details: Map<string, LiveObject>;
  /** The environment the plan's namespace was last applied with (null: none recorded). */
  environment: AppliedEnvironment | null;
}

const ATTEMPTS = 5;

export async function inspectLive(store: StoreReader, desired: readonly DesiredObject[], options: DiffOptions): Promise<LiveSnapshot> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const revision = await store.revision();
    const summaries = await store.listSummaries();
    const needed = keysNeedingDetail(desired, summaries, options);
    const [objects, environment] = await Promise.all([needed.length > 0 ? store.getObjects(needed) : [], store.appliedEnvironment(options.namespace)]);
    if ((await store.revision()) !== revision) continue;
    return { revision, summaries, details: new Map(objects.map((o) => [keyId(o), o])), environment };
  }
  throw new DqError('STALE_PLAN', 'the live store kept changing while it was read; try again');
}
