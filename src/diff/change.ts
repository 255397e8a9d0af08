import type { DesiredObject, JsonValue, LiveObject, LiveSummary, ObjectKey } from '../model/index.js';

/** One field that differs, at a path below the object (`spec.columns.id.type_snapshot.nullable`). */
export interface FieldChange {
  path: string[];
  /** undefined = absent */
  before: JsonValue | undefined;
  after: JsonValue | undefined;
}

export type UpdateReason =
  /** The repository changed the object. */
  | 'repository_changed'
  /** The repository did not change it, but an API write did; apply restores the repository's version. */
  | 'restore_drift'
  /** The object was created through the API and now appears in the repository: apply takes it over. */
  | 'adopt';

export type DeleteReason =
  /** A git-managed object whose file left the repository. */
  | 'not_in_repository'
  /** An object created through the API, deleted because of --prune-unmanaged. */
  | 'prune_unmanaged';

export type KeepReason =
  /** Created through the API; kept unless --prune-unmanaged. */
  | 'unmanaged'
  /** Matches a `protected` pattern of dqctl.yaml; never deleted. */
  | 'protected'
  /** Deletion left out with --keep-drift... or a drifted object whose repository version did not change. */
  | 'drift_kept';

/** The closed set of changes a plan is made of. */
export type Change =
  | { action: 'create'; key: ObjectKey; desired: DesiredObject }
  | {
      action: 'update';
      key: ObjectKey;
      desired: DesiredObject;
      live: LiveObject;
      fields: FieldChange[];
      reason: UpdateReason;
    }
  | { action: 'delete'; key: ObjectKey; live: LiveObject; reason: DeleteReason };

/** A live object the repository does not have, left alone, and why. */
export interface Kept {
  key: ObjectKey;
  live: LiveSummary;
  reason: KeepReason;
}

/** A git-managed object changed through the API since the last apply. */
export interface Drift {
  key: ObjectKey;
  live: LiveObject;
  /** What the API write changed, relative to the repository's version (empty if the repository left too). */
  fields: FieldChange[];
  /** True when the plan restores the repository's version. */
  restored: boolean;
}

/** A desired object the live store holds under another namespace: the plan cannot take it. */
export interface Conflict {
  key: ObjectKey;
  owner: string;
  file: string;
}
