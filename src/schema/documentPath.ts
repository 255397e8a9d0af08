/**
 * Converts ajv's instance paths (JSON pointers) into the path arrays of SchemaViolation, with numbers for array
 * indexes, so that the manifest can find the YAML node (keys that look like numbers stay strings in mappings).
 */
import type { DocumentPath } from './schemaViolation.js';

export function toDocumentPath(pointer: string, document: unknown): DocumentPath {
  if (pointer === '') return [];
  const path: DocumentPath = [];
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) {
      const index = Number(segment);
      path.push(index);
      current = current[index];
    } else {
      path.push(segment);
      current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

/** The value at a path, or undefined. */
export function valueAt(document: unknown, path: DocumentPath): unknown {
  let current = document;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** `spec.columns.id.type_snapshot` / `spec.source_tables[0]`: for messages. */
export function formatPath(path: DocumentPath): string {
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}
