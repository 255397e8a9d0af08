import { isJsonObject, type JsonValue } from '../model/index.js';
import { toDocumentPath } from './documentPath.js';
import { validatorFor } from './schemaCompiler.js';
import type { DocumentKind } from './schemaFiles.js';
import type { DocumentPath } from './schemaViolation.js';

/**
 * DQOps reads its YAML with Jackson, which coerces scalars: `min_count: "1000"` is the number 1000 and
 * `disabled: "true"` the boolean true. So a quoted number or boolean where the schema wants one is accepted
 * here too, converted in place (the stored spec holds the number), and reported once as a warning so the file
 * can be cleaned up. Only a string that reads as exactly that type is converted; anything else stays a
 * wrong_type error.
 */
export interface QuotedScalar {
  path: DocumentPath;
  written: string;
  value: number | boolean;
}

/** Converts the quoted scalars of `document` (mutated) that its schema wants as numbers or booleans. */
export function coerceQuotedScalars(kind: DocumentKind, document: unknown): QuotedScalar[] {
  const { validate } = validatorFor(kind);
  const coerced: QuotedScalar[] = [];
  // a conversion can reveal the next one (ajv stops a branch at its first error): a few rounds at most
  for (let round = 0; round < 5; round++) {
    if (validate(document)) break;
    let changed = false;
    for (const error of validate.errors ?? []) {
      if (error.keyword !== 'type' || typeof error.data !== 'string') continue;
      const value = scalarOf(error.data, [String(error.params.type)].flat().join(','));
      if (value === undefined) continue;
      const path = toDocumentPath(error.instancePath, document);
      if (path.length === 0 || !setAt(document, path, value)) continue;
      coerced.push({ path, written: error.data, value });
      changed = true;
    }
    if (!changed) break;
  }
  return coerced;
}

const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function scalarOf(text: string, wanted: string): number | boolean | undefined {
  const trimmed = text.trim();
  if (wanted.includes('integer') && INTEGER.test(trimmed) && Number.isSafeInteger(Number(trimmed))) return Number(trimmed);
  if (wanted.includes('number') && NUMBER.test(trimmed) && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (wanted.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return undefined;
}

function setAt(document: unknown, path: DocumentPath, value: JsonValue): boolean {
  let node: unknown = document;
  for (const segment of path.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(segment)] : isJsonObject(node) ? node[String(segment)] : undefined;
  }
  const last = path[path.length - 1];
  if (Array.isArray(node) && typeof last === 'number') node[last] = value;
  else if (isJsonObject(node)) node[String(last)] = value;
  else return false;
  return true;
}
