import type { RepositorySettings } from '../model/index.js';
import { compareKeys, keyId, type DesiredObject, type JsonObject, type ObjectKey } from '../model/index.js';
import type { FieldChange } from './change.js';
import { fieldChanges } from './fieldChanges.js';

/**
 * What a pull request changes: two desired states (base and head revisions of one repository), compared
 * object by object with the same normalization a plan uses (both sides went through normalizeSpec, so a
 * re-indented file or reordered keys is no change). Pure, and independent of any live store: ownership,
 * drift and pruning are plan questions, not diff ones.
 */
export type DesiredChange =
  | { action: 'added'; key: ObjectKey; head: DesiredObject }
  | { action: 'changed'; key: ObjectKey; base: DesiredObject; head: DesiredObject; fields: FieldChange[] }
  | { action: 'removed'; key: ObjectKey; base: DesiredObject };

export interface DesiredDiff {
  /** Sorted by kind, then name. */
  changes: DesiredChange[];
  /** Changes to dqctl.yaml (namespace, protected, prune), as `spec.…` paths of that file. */
  settings: FieldChange[];
}

export interface DesiredSide {
  objects: readonly DesiredObject[];
  settings: RepositorySettings;
}

export function diffDesired(base: DesiredSide, head: DesiredSide): DesiredDiff {
  const baseById = new Map(base.objects.map((o) => [keyId(o), o]));
  const headIds = new Set<string>();
  const changes: DesiredChange[] = [];
  for (const h of head.objects) {
    const key: ObjectKey = { kind: h.kind, name: h.name };
    const id = keyId(key);
    headIds.add(id);
    const b = baseById.get(id);
    if (!b) {
      changes.push({ action: 'added', key, head: h });
      continue;
    }
    if (b.hash === h.hash) continue;
    const fields = objectFields(b, h);
    // Equal content under different hashes cannot happen (the hash is of the normalized content); keep the guard anyway.
    if (fields.length > 0) changes.push({ action: 'changed', key, base: b, head: h, fields });
  }
  for (const b of base.objects) {
    if (!headIds.has(keyId(b))) changes.push({ action: 'removed', key: { kind: b.kind, name: b.name }, base: b });
  }
  changes.sort((a, b) => compareKeys(a.key, b.key));
  return { changes, settings: fieldChanges(settingsAsWritten(base.settings), settingsAsWritten(head.settings), ['spec']) };
}

/** Settings under the keys of dqctl.yaml, so a change reads as the line to look for in the file. */
function settingsAsWritten(settings: RepositorySettings): JsonObject {
  return {
    namespace: settings.namespace,
    protected: [...settings.protected],
    prune: { unmanaged: settings.prune.unmanaged, mass_delete_threshold: settings.prune.massDeleteThreshold },
  };
}

/** `spec.…` paths, and the attachments (a rule's `python_module`) by their own name, as plans show them. */
function objectFields(base: DesiredObject, head: DesiredObject): FieldChange[] {
  const fields = fieldChanges({ spec: base.spec, attachments: base.attachments }, { spec: head.spec, attachments: head.attachments });
  return fields.map((f) => (f.path[0] === 'attachments' ? { ...f, path: f.path.slice(1) } : f));
}
