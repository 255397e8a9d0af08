import type { DesiredObject, JsonObject, JsonValue, LiveObject, LiveSummary, ObjectKey } from '../model/index.js';

/**
 * Who changed a field since the last apply (the three-way comparison of diff/threeWay.ts): the repository, an
 * API or console write (outside git), or both (a conflict: apply writes the repository's value).
 */
export type FieldOrigin = 'repository' | 'api' | 'both';

/** One field that differs, at a path below the object (`spec.columns.id.type_snapshot.nullable`). */
export interface FieldChange {
  path: string[];
  /** undefined = absent */
  before: JsonValue | undefined;
  after: JsonValue | undefined;
  /** Who made the difference (set on updates and drift: the live store against the repository). */
  origin?: FieldOrigin;
  /** An API change that this apply leaves as it is (--keep-drift on an object the repository changed too). */
  kept?: boolean;
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
      /**
       * What apply writes when it is not the repository's version: with --keep-drift, an object both sides
       * changed gets the repository's changes and keeps the API's (the repository's version is still recorded as
       * the one applied, so the kept fields stay drift).
       */
      write?: { spec: JsonObject; attachments: JsonObject; hash: string };
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
  /**
   * What the API changed and the repository does not hold: from the applied value to the live one, origin `api`,
   * or `both` where the repository changed the field too (then apply writes the repository's value).
   */
  fields: FieldChange[];
  /** True when the plan restores the repository's version of these fields. */
  restored: boolean;
}

/** A desired object the live store holds under another namespace: the plan cannot take it. */
export interface Conflict {
  key: ObjectKey;
  owner: string;
  file: string;
}
