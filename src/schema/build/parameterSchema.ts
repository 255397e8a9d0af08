/**
 * The JSON Schema of one sensor or rule parameter, from its catalog data type. Required flags are not
 * enforced: DQOps fills defaults for most of them, and a check written as `{}` only collects the sensor value.
 */
import type { CatalogParameter } from '../../catalog/index.js';
import type { Schema } from './schemaShapes.js';

export function parameterSchema(parameter: CatalogParameter): Schema {
  const schema = typeSchema(parameter);
  if (parameter.default !== null && parameter.default !== undefined) schema.default = parameter.default;
  return schema;
}

function typeSchema(parameter: CatalogParameter): Schema {
  switch (parameter.type) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
    case 'long':
      return { type: 'integer' };
    case 'double':
      return { type: 'number' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'enum':
      return { type: 'string', enum: [...(parameter.allowedValues ?? [])] };
    case 'string_list':
      return { type: 'array', items: { type: 'string' } };
    case 'integer_list':
      return { type: 'array', items: { type: 'integer' } };
    default: {
      const unreachable: never = parameter.type;
      throw new Error(`unknown parameter type ${String(unreachable)}`);
    }
  }
}
