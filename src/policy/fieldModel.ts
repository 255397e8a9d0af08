/**
 * FieldModel: one sensor or rule parameter in the API models, as DQOps's clients expect it: the parameter's
 * definition, `optional` (not required), and the value in the one value field that matches the data type
 * (`long_value` for a long, `string_list_value` for a string list, …).
 *
 * Decisions: display_name is the field name and help_text is empty (we do not copy DQOps's texts);
 * `allowed_values`, `default_value` and `display_hint` are left out when the catalog has none, and so is the
 * value field when there is no value. `default_value` is the typed default (a number for a long), not a string.
 */
import type { CatalogParameter } from '../catalog/index.js';
import type { JsonValue } from '../model/index.js';

/** Data types of parameter definitions: the catalog's, plus those DQOps clients may send. */
export type FieldDataType =
  | 'string' | 'boolean' | 'integer' | 'long' | 'double' | 'date' | 'datetime' | 'column_name' | 'enum'
  | 'string_list' | 'integer_list';

export interface ParameterDefinitionModel {
  field_name: string;
  display_name: string;
  help_text: string;
  data_type: FieldDataType | string;
  required: boolean;
  allowed_values?: string[];
  default_value?: JsonValue;
  display_hint?: string;
}

export interface FieldModel {
  definition: ParameterDefinitionModel;
  optional: boolean;
  string_value?: string;
  boolean_value?: boolean;
  integer_value?: number;
  long_value?: number;
  double_value?: number;
  datetime_value?: string;
  column_name_value?: string;
  enum_value?: string;
  string_list_value?: string[];
  integer_list_value?: number[];
  date_value?: string;
}

export type FieldValueKey = Exclude<keyof FieldModel, 'definition' | 'optional'>;

export const VALUE_FIELD_OF_TYPE: Readonly<Record<FieldDataType, FieldValueKey>> = {
  string: 'string_value',
  boolean: 'boolean_value',
  integer: 'integer_value',
  long: 'long_value',
  double: 'double_value',
  date: 'date_value',
  datetime: 'datetime_value',
  column_name: 'column_name_value',
  enum: 'enum_value',
  string_list: 'string_list_value',
  integer_list: 'integer_list_value',
};

const VALUE_FIELDS = Object.values(VALUE_FIELD_OF_TYPE);

export function parameterDefinition(parameter: CatalogParameter): ParameterDefinitionModel {
  const definition: ParameterDefinitionModel = {
    field_name: parameter.name,
    display_name: parameter.name,
    help_text: '',
    data_type: parameter.type,
    required: parameter.required,
  };
  if (parameter.allowedValues !== null) definition.allowed_values = [...parameter.allowedValues];
  if (parameter.default !== null && parameter.default !== undefined) definition.default_value = parameter.default;
  if (parameter.hint !== undefined) definition.display_hint = parameter.hint;
  return definition;
}

/** The field of a parameter holding `configured` when it is set, else the parameter's default. */
export function fieldModel(parameter: CatalogParameter, configured: JsonValue | undefined): FieldModel {
  const field: FieldModel = { definition: parameterDefinition(parameter), optional: !parameter.required };
  const value = coerceFieldValue(parameter.type, configured ?? parameter.default);
  if (value !== null) (field as unknown as Record<string, JsonValue>)[VALUE_FIELD_OF_TYPE[parameter.type]] = value;
  return field;
}

/**
 * The value a client sent in a field: the value field of the definition's data type, or, when the client used
 * another one, the first value field that is set. null when none is.
 */
export function fieldValue(field: FieldModel): JsonValue {
  const record = field as unknown as Record<string, JsonValue | undefined>;
  const type = field.definition?.data_type;
  const own = isFieldDataType(type) ? record[VALUE_FIELD_OF_TYPE[type]] : undefined;
  if (own !== undefined && own !== null) return coerceFieldValue(type as FieldDataType, own);
  for (const key of VALUE_FIELDS) {
    const value = record[key];
    if (value !== undefined && value !== null) return isFieldDataType(type) ? coerceFieldValue(type, value) : value;
  }
  return null;
}

function isFieldDataType(type: unknown): type is FieldDataType {
  return typeof type === 'string' && Object.hasOwn(VALUE_FIELD_OF_TYPE, type);
}

/** A value as its data type holds it (YAML may give `"5"` for a long); null when it cannot be one. */
export function coerceFieldValue(type: FieldDataType, value: JsonValue | undefined): JsonValue {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
    case 'date':
    case 'datetime':
    case 'column_name':
    case 'enum':
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return value === 'true' ? true : value === 'false' ? false : null;
    case 'integer':
    case 'long': {
      const n = toNumber(value);
      return n !== null && Number.isInteger(n) ? n : null;
    }
    case 'double':
      return toNumber(value);
    case 'string_list':
      return Array.isArray(value) ? value.filter((v) => v !== null && typeof v !== 'object').map(String) : null;
    case 'integer_list':
      return Array.isArray(value) ? value.map(toNumber).filter((n): n is number => n !== null && Number.isInteger(n)) : null;
    default: {
      const unreachable: never = type;
      throw new Error(`unknown field data type ${String(unreachable)}`);
    }
  }
}

function toNumber(value: JsonValue): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}
