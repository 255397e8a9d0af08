import type { LiveSummary, ObjectKind } from '../model/index.js';
import type { Store } from '../store/store.js';

/**
 * What the live store holds (`dqctl state list`): every object, who manages it, where it came from, and whether
 * a git-managed object was changed outside git since it was applied. The shape is the JSON the command prints.
 */
export interface LiveStateListing {
  store: { engine: Store['engine']; location: string; revision: number };
  objects: LiveStateEntry[];
}

export interface LiveStateEntry {
  kind: ObjectKind;
  name: string;
  managed_by: LiveSummary['managedBy'];
  owner: string;
  origin: { file: string | null; commit: string | null };
  revision: number;
  content_hash: string;
  /** Managed by git, and its content is no longer what the last apply wrote. */
  drifted: boolean;
}

export async function listLiveState(store: Store, options: { kind?: ObjectKind } = {}): Promise<LiveStateListing> {
  const [revision, objects] = await Promise.all([store.revision(), store.listSummaries(options.kind ? { kind: options.kind } : undefined)]);
  return {
    store: { engine: store.engine, location: store.description, revision },
    objects: objects.map((o) => ({
      kind: o.kind,
      name: o.name,
      managed_by: o.managedBy,
      owner: o.owner,
      origin: { file: o.originFile, commit: o.originCommit },
      revision: o.revision,
      content_hash: o.contentHash,
      drifted: o.managedBy === 'git' && o.appliedHash !== o.contentHash,
    })),
  };
}
