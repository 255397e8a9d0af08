import { contentHash } from './contentHash.js';
import type { FieldChange, FieldOrigin } from './change.js';
import { deepEqual, fieldChanges } from './fieldChanges.js';
import { isJsonObject, type DesiredObject, type JsonObject, type JsonValue, type LiveObject, type ObjectContent } from '../model/index.js';

/**
 * The three-way comparison of one object: the version last applied (the base, which the store keeps while the
 * live object differs from it), the live version and the repository's. A field that differs between live and
 * repository was changed by the repository (repository ≠ base), outside git (live ≠ base), or by both (a
 * conflict). Every view (plan, status, the console, the metrics) reads these origins; nothing else guesses them.
 */

/** The base of the comparison: the applied content, or the repository's when it did not change since (same hash). */
export function baseOf(desired: DesiredObject, live: LiveObject): ObjectContent | null {
  if (live.applied) return live.applied;
  if (desired.hash === live.appliedHash) return { spec: desired.spec, attachments: desired.attachments };
  return null;
}

/** Field changes from live to the repository's version, each credited to the side that made it. */
export function changesWithOrigin(desired: DesiredObject, live: LiveObject): FieldChange[] {
  const base = baseOf(desired, live);
  const liveContent = contentOf(live);
  const desiredContent = contentOf(desired);
  return withoutAttachmentPrefix(
    fieldChanges(liveContent, desiredContent).map((f) => ({ ...f, origin: originAt(f.path, base, liveContent, desiredContent) })),
  );
}

/**
 * What the API changed and the repository does not hold, each field from the repository's value (`before`) to the
 * live one (`after`): origin `api`, or `both` where the repository changed the field too (or the base is unknown).
 */
export function apiChanges(desired: DesiredObject, live: LiveObject): FieldChange[] {
  const base = baseOf(desired, live);
  const liveContent = contentOf(live);
  const desiredContent = contentOf(desired);
  const out: FieldChange[] = [];
  for (const change of fieldChanges(base ? contentOf(base) : desiredContent, liveContent)) {
    const repositoryValue = valueAt(desiredContent, change.path);
    if (deepEqual(repositoryValue, change.after)) continue; // both sides made the same change
    const origin: FieldOrigin = base && deepEqual(repositoryValue, change.before) ? 'api' : 'both';
    out.push({ path: change.path, before: repositoryValue, after: change.after, origin });
  }
  return withoutAttachmentPrefix(out);
}

/**
 * The content a keep-drift apply writes to an object both sides changed: the repository's version with the fields
 * only the API changed kept at their live values (a conflicting field takes the repository's value). Null when
 * the base is unknown (the repository's version is written whole).
 */
export function keepDriftMerge(desired: DesiredObject, live: LiveObject): (ObjectContent & { hash: string }) | null {
  const base = baseOf(desired, live);
  if (!base) return null;
  const merged = structuredClone(contentOf(desired)) as JsonObject;
  const liveContent = contentOf(live);
  for (const change of fieldChanges(contentOf(base), liveContent)) {
    if (!deepEqual(valueAt(contentOf(desired), change.path), change.before)) continue; // the repository changed it too
    setAt(merged, change.path, change.after);
  }
  const spec = merged.spec as JsonObject;
  const attachments = (merged.attachments ?? {}) as JsonObject;
  return { spec, attachments, hash: contentHash(spec, attachments) };
}

function originAt(path: string[], base: ObjectContent | null, live: JsonObject, desired: JsonObject): FieldOrigin {
  if (!base) return 'both';
  const baseContent = contentOf(base);
  const repositoryChanged = !deepEqual(valueAt(baseContent, path), valueAt(desired, path));
  const apiChanged = !deepEqual(valueAt(baseContent, path), valueAt(live, path));
  if (repositoryChanged && apiChanged) return 'both';
  return apiChanged ? 'api' : 'repository';
}

function contentOf(object: ObjectContent): JsonObject {
  return { spec: object.spec, attachments: object.attachments };
}

/** Attachments are shown by their own name (`module.py`), specs under `spec.`. */
function withoutAttachmentPrefix(fields: FieldChange[]): FieldChange[] {
  return fields.map((f) => (f.path[0] === 'attachments' ? { ...f, path: f.path.slice(1) } : f));
}

function valueAt(value: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let at = value;
  for (const key of path) {
    if (!isJsonObject(at)) return undefined;
    at = at[key];
  }
  return at;
}

function setAt(target: JsonObject, path: readonly string[], value: JsonValue | undefined): void {
  let at: JsonObject = target;
  for (const key of path.slice(0, -1)) {
    if (!isJsonObject(at[key])) at[key] = {};
    at = at[key] as JsonObject;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete at[last];
  else at[last] = value;
}
