import { isJsonObject, type JsonValue, appendAll } from '../model/index.js';
import type { FieldChange } from './change.js';

/**
 * Field-level differences between two normalized values. Objects are compared key by key; arrays and scalars
 * as wholes (a list of labels that changed shows as one `old -> new` line, as Terraform does for sets).
 */
export function fieldChanges(before: JsonValue | undefined, after: JsonValue | undefined, path: string[] = []): FieldChange[] {
  if (isJsonObject(before) && isJsonObject(after)) {
    const out: FieldChange[] = [];
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) appendAll(out, fieldChanges(before[key], after[key], [...path, key]));
    return out;
  }
  if (deepEqual(before, after)) return [];
  return [{ path, before, after }];
}

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const ao = a as Record<string, JsonValue>;
  const bo = b as Record<string, JsonValue>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}
