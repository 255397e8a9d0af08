import { isJsonObject, type JsonValue } from '../model/index.js';

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

export const DEFAULT_SETTINGS: RepositorySettings = {
  namespace: 'default',
  protected: [],
  prune: { unmanaged: false, massDeleteThreshold: 0.5 },
};

/** Reads an already schema-validated settings document. */
export function readSettings(document: JsonValue | undefined): RepositorySettings {
  const spec = isJsonObject(document) && isJsonObject(document.spec) ? document.spec : {};
  const prune = isJsonObject(spec.prune) ? spec.prune : {};
  return {
    namespace: typeof spec.namespace === 'string' ? spec.namespace : DEFAULT_SETTINGS.namespace,
    protected: Array.isArray(spec.protected) ? spec.protected.filter((p): p is string => typeof p === 'string') : [],
    prune: {
      unmanaged: prune.unmanaged === true,
      massDeleteThreshold:
        typeof prune.mass_delete_threshold === 'number' ? prune.mass_delete_threshold : DEFAULT_SETTINGS.prune.massDeleteThreshold,
    },
  };
}
