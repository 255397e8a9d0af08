import type { CatalogParameter } from '../catalog/index.js';
import type { JsonObject } from '../model/index.js';

/** A built-in sensor's or rule's parameters as DQOps's `fields` (ParameterDefinitionSpec) of its definition. */
export function catalogFields(parameters: readonly CatalogParameter[]): JsonObject[] {
  return parameters.map((p) => {
    const field: JsonObject = { field_name: p.name, display_name: p.name, help_text: '', data_type: p.type, required: p.required };
    if (p.allowedValues) field.allowed_values = [...p.allowedValues];
    if (p.default !== null && p.default !== undefined) field.default_value = p.default;
    if (p.hint !== undefined) field.display_hint = p.hint;
    return field;
  });
}
