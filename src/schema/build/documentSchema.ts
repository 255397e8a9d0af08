/**
 * The envelope every file kind shares: `{apiVersion, kind, spec}` with fixed apiVersion and kind, as a
 * self-contained draft 2020-12 schema with an `$id` under https://dqctl.dev/schemas/.
 */
import type { Schema } from './schemaShapes.js';

export const SCHEMA_BASE_URL = 'https://dqctl.dev/schemas/';
export const JSON_SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';

export interface DocumentSchemaOptions {
  file: string;
  title: string;
  description: string;
  apiVersion: string;
  kind: string;
  spec: Schema;
  defs: Record<string, Schema>;
}

export function documentSchema(options: DocumentSchemaOptions): Schema {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    $id: `${SCHEMA_BASE_URL}${options.file}`,
    title: options.title,
    description: options.description,
    type: 'object',
    required: ['apiVersion', 'kind', 'spec'],
    properties: {
      apiVersion: { const: options.apiVersion, description: `Always ${options.apiVersion}.` },
      kind: { const: options.kind, description: `Always ${options.kind} in this file.` },
      spec: options.spec,
    },
    additionalProperties: false,
    $defs: sortedKeys(options.defs),
  };
}

/** Defs in name order, so that regenerating gives the same file. */
function sortedKeys(defs: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(defs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
