import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../model/index.js';

/**
 * Hash of an object's normalized content. Keys are serialized in sorted order so that jsonb (which reorders
 * keys) and YAML (which keeps the author's order) hash alike.
 */
export function contentHash(spec: JsonObject, attachments: JsonObject): string {
  return createHash('sha256').update(canonicalJson({ spec, attachments })).digest('hex');
}

export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}
