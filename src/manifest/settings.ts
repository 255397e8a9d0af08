import { isJsonObject, type JsonValue, type RepositorySettings } from '../model/index.js';

export type { RepositorySettings };

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
