/**
 * dqctl's own settings, from the optional `dqctl.yaml` at the repository root (DQOps ignores the file).
 * - namespace: the owner recorded on every object this repository applies; an apply never touches objects
 *   owned by another namespace, so several repositories can share one store.
 * - protected: `kind:name` patterns (`*` wildcards) of objects that are never deleted.
 * - prune.unmanaged: also delete objects created through the API (same as --prune-unmanaged).
 * - prune.mass_delete_threshold: a plan deleting more than this share of the managed objects is refused.
 */
export interface RepositorySettings {
  namespace: string;
  protected: string[];
  prune: { unmanaged: boolean; massDeleteThreshold: number };
}
