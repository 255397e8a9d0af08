import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../model/index.js';

/**
 * Hash of an object's NORMALIZED content (normalizeSpec sorts keys at every level, so its JSON text is already
 * canonical and serializing it once is enough). jsonb reorders keys and YAML keeps the author's order; both
 * hash alike because both go through normalizeSpec first. A test holds `JSON.stringify(normalized)` equal to
 * `canonicalJson(normalized)` on real repositories.
 */
export function contentHash(spec: JsonObject, attachments: JsonObject): string {
  return contentHashOfJson(JSON.stringify(spec), attachments);
}

/** contentHash of a normalized spec given as its JSON.stringify text (a spec made as text is not made again). */
export function contentHashOfJson(specJson: string, attachments: JsonObject): string {
  const hash = createHash('sha256').update('{"attachments":');
  hash.update(canonicalJson(attachments));
  hash.update(',"spec":');
  hash.update(specJson);
  return hash.update('}').digest('hex');
}

/** JSON with object keys sorted at every level, whatever order they were built in. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}
