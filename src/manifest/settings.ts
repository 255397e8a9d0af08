import { isJsonObject, type EnvironmentSettings, type JsonValue, type RepositorySettings, type VariableValue } from '../model/index.js';

export type { RepositorySettings };

export const DEFAULT_SETTINGS: RepositorySettings = {
  namespace: 'default',
  protected: [],
  prune: { unmanaged: false, massDeleteThreshold: 0.5 },
  environments: {},
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
    environments: readEnvironments(spec.environments),
  };
}

function readEnvironments(value: JsonValue | undefined): Record<string, EnvironmentSettings> {
  const out: Record<string, EnvironmentSettings> = {};
  if (!isJsonObject(value)) return out;
  for (const [name, environment] of Object.entries(value)) {
    const vars: Record<string, VariableValue> = {};
    const given = isJsonObject(environment) && isJsonObject(environment.vars) ? environment.vars : {};
    for (const [variable, v] of Object.entries(given)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') vars[variable] = v;
    }
    out[name] = { vars };
  }
  return out;
}
