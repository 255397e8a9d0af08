/**
 * dqctl's own settings, from the optional `dqctl.yaml` at the repository root (DQOps ignores the file).
 * - namespace: the owner recorded on every object this repository applies; an apply never touches objects
 *   owned by another namespace, so several repositories can share one store.
 * - protected: `kind:name` patterns (`*` wildcards) of objects that are never deleted.
 * - prune.unmanaged: also delete objects created through the API (same as --prune-unmanaged).
 * - prune.mass_delete_threshold: a plan deleting more than this share of the managed objects is refused.
 * - environments: `<name>.vars.<var>: value`, the values `${var.NAME}` stands for in the object files when a
 *   command runs with `--env <name>` (one repository, several stores: dev, staging, prod).
 */
export interface RepositorySettings {
  namespace: string;
  protected: string[];
  prune: { unmanaged: boolean; massDeleteThreshold: number };
  environments: Record<string, EnvironmentSettings>;
}

/** A variable's value: a scalar, typed as YAML typed it in dqctl.yaml (`max: 5` is the number 5). */
export type VariableValue = string | number | boolean;

export interface EnvironmentSettings {
  vars: Record<string, VariableValue>;
}
