import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { API_SCHEMAS_DIR } from '../app/packageFiles.js';

/**
 * The API model schemas live in schemas/api/<Model>.json (`$id` = the model name, e.g. `RuleModel`), beside the
 * file schemas: routes refer to them as `{ $ref: 'RuleModel#' }` for bodies and responses, fastify validates
 * and serializes with them (so a response never carries a field its schema does not name), and the OpenAPI
 * document is generated from them.
 */
export { API_SCHEMAS_DIR };

let cache: Array<Record<string, unknown>> | undefined;

export function apiSchemas(): Array<Record<string, unknown>> {
  cache ??= readdirSync(API_SCHEMAS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(API_SCHEMAS_DIR, f), 'utf8')) as Record<string, unknown>);
  return cache;
}

export function registerApiSchemas(app: FastifyInstance): void {
  for (const schema of apiSchemas()) app.addSchema(schema);
}

/** `{ $ref: 'Name#' }`, and an array of them. */
export const ref = (name: string) => ({ $ref: `${name}#` });
export const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });
