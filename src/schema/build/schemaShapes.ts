/**
 * Small constructors for the JSON Schema fragments the generator writes again and again. Objects are closed
 * (`additionalProperties: false`) unless they are one of the free maps the formats define.
 */

/** A JSON Schema node (draft 2020-12). */
export type Schema = { [keyword: string]: unknown };

export function closedObject(properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return { type: 'object', ...extra, properties, additionalProperties: false };
}

/** A map with free keys whose values all follow `values`. */
export function mapOf(values: Schema, extra: Schema = {}): Schema {
  return { type: 'object', ...extra, additionalProperties: values };
}

/** An object accepted as it is (provider blocks of providers we do not run, free-form settings). */
export function freeObject(description?: string): Schema {
  return description === undefined ? { type: 'object' } : { type: 'object', description };
}

export function str(description?: string): Schema {
  return description === undefined ? { type: 'string' } : { type: 'string', description };
}

export function bool(description?: string): Schema {
  return description === undefined ? { type: 'boolean' } : { type: 'boolean', description };
}

export function int(description?: string, extra: Schema = {}): Schema {
  return description === undefined ? { type: 'integer', ...extra } : { type: 'integer', description, ...extra };
}

export function enumOf(values: readonly string[], description?: string): Schema {
  return description === undefined ? { type: 'string', enum: [...values] } : { type: 'string', enum: [...values], description };
}

export function arrayOf(items: Schema, description?: string): Schema {
  return description === undefined ? { type: 'array', items } : { type: 'array', items, description };
}

export function ref(defName: string): Schema {
  return { $ref: `#/$defs/${defName}` };
}

export function stringMap(description?: string): Schema {
  return mapOf({ type: 'string' }, description === undefined ? {} : { description });
}
