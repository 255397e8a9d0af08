/**
 * A custom sensor as a check run uses it: its PostgreSQL template and provider settings, and its fields, whose
 * values a check's `parameters` must match before anything is rendered (a number field takes a finite number,
 * an integer list integers), so a template that writes a numeric parameter into its SQL writes a number.
 */
import { isJsonObject, sensorProviders, type JsonObject, type JsonValue } from '../../model/index.js';

export const TEMPLATE_PROVIDER = 'postgresql';

export interface CustomSensorDefinition {
  name: string;
  /** The sensor definition's spec (fields, parameters, …), given to the template as `sensor_definition`. */
  definition: JsonObject;
  /** The provider file's spec, given as `provider_sensor_definition`. */
  provider: JsonObject;
  sqlTemplate: string;
  /** The error sampling template (`postgresql.sample.sql.jinja2`); undefined when the sensor has none. */
  sampleTemplate?: string;
  supportsGrouping: boolean;
  supportsPartitionedChecks: boolean;
  disableMergingQueries: boolean;
}

/** The sensor's PostgreSQL provider, or why it cannot run on PostgreSQL. */
export function customSensorOf(name: string, spec: JsonObject, attachments: JsonObject): CustomSensorDefinition | { error: string } {
  const files = sensorProviders(attachments).get(TEMPLATE_PROVIDER);
  if (!files?.definition || files.sqlTemplate === undefined) {
    return { error: `the custom sensor ${name} has no ${TEMPLATE_PROVIDER}.dqoprovidersensor.yaml with ${TEMPLATE_PROVIDER}.sql.jinja2` };
  }
  if ((files.definition.type ?? 'sql_template') !== 'sql_template') {
    return { error: `the custom sensor ${name} is of type ${String(files.definition.type)}; dqctl runs sql_template sensors` };
  }
  return {
    name,
    definition: spec,
    provider: files.definition,
    sqlTemplate: files.sqlTemplate,
    ...(files.sampleTemplate !== undefined ? { sampleTemplate: files.sampleTemplate } : {}),
    supportsGrouping: files.definition.supports_grouping !== false,
    supportsPartitionedChecks: files.definition.supports_partitioned_checks !== false,
    disableMergingQueries: files.definition.disable_merging_queries === true,
  };
}

/** Why the parameters do not fit the sensor's fields (undefined when they do). */
export function parameterProblem(sensor: CustomSensorDefinition, parameters: Readonly<Record<string, JsonValue>>): string | undefined {
  const fields = Array.isArray(sensor.definition.fields) ? sensor.definition.fields.filter(isJsonObject) : [];
  for (const field of fields) {
    const name = typeof field.field_name === 'string' ? field.field_name : undefined;
    if (name === undefined) continue;
    const value = parameters[name];
    if (value === undefined || value === null) {
      if (field.required === true) return `the parameter ${name} of the sensor ${sensor.name} is required`;
      continue;
    }
    const wrong = (what: string) => `the parameter ${name} of the sensor ${sensor.name} must be ${what}, not ${JSON.stringify(value)}`;
    const isInteger = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
    switch (field.data_type) {
      case 'integer':
      case 'long':
        if (!isInteger(value)) return wrong('an integer');
        break;
      case 'double':
        if (typeof value !== 'number' || !Number.isFinite(value)) return wrong('a number');
        break;
      case 'boolean':
        if (typeof value !== 'boolean') return wrong('true or false');
        break;
      case 'integer_list':
        if (!Array.isArray(value) || !value.every(isInteger)) return wrong('a list of integers');
        break;
      case 'string_list':
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return wrong('a list of texts');
        break;
      case 'enum':
        if (Array.isArray(field.allowed_values) && !field.allowed_values.includes(value)) return wrong(`one of ${field.allowed_values.join(', ')}`);
        break;
      case 'object':
        break;
      default:
        if (typeof value !== 'string') return wrong('a text');
    }
  }
  return undefined;
}
