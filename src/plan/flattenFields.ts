import { isJsonObject, type JsonValue } from '../model/index.js';

/** Leaf paths of a value (`spec.columns.id.type_snapshot.nullable`), arrays kept whole: how creates are listed. */
export function flattenFields(value: JsonValue | null | undefined, prefix = ''): Array<[path: string, value: JsonValue]> {
  if (value === null || value === undefined) return [];
  if (isJsonObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) return prefix ? [[prefix, {}]] : [];
    return keys.flatMap((k) => flattenFields(value[k], prefix ? `${prefix}.${k}` : k));
  }
  return [[prefix, value]];
}

/** A value as plans print it: JSON, with long multi-line strings (a rule's Python module) summarized. */
export function formatValue(value: JsonValue | null | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string' && value.includes('\n')) {
    return `<<${value.split('\n').length} lines>>`;
  }
  return JSON.stringify(value);
}
