import {
  customSensorOf,
  parameterProblem,
  POSTGRESQL_DIALECT_TEMPLATE,
  POSTGRESQL_DIALECT_TEMPLATE_NAME,
  SCAN_REFERENCE_TEMPLATE,
  templateContext,
  type CustomSensorDefinition,
  type SensorRequest,
  type TableQueryRequest,
} from '../../datasource/sensors/index.js';
import { expandDictionaries, type JsonObject, type JsonValue } from '../../model/index.js';
import type { CheckRules } from './checkRules.js';

/**
 * Prepares the sensors of one table query for planSensorQueries: every list parameter's `${dictionary://…}`
 * elements expanded (built-in and custom sensors alike, as DQOps expands them), and each custom sensor's template
 * rendered, with dqctl's dialect file, by the Python workers' Jinja2 (one request for the whole query), together
 * with the scan's reference query rendered with the same variables (which tells whether it can join the scan).
 * A sensor that cannot be rendered (no PostgreSQL template, wrong parameters, a template error) is left out of
 * the request and reported in `failures`, to become an execution error of its check.
 */
export async function renderCustomSensors(
  request: TableQueryRequest,
  rules: CheckRules | undefined,
  tableSpec: JsonObject,
): Promise<{ request: TableQueryRequest; failures: Map<string, string> }> {
  const failures = new Map<string, string>();
  const dictionaries = rules?.dictionaries ?? new Map<string, string>();
  const expanded = request.sensors.map((sensor) => (dictionaries.size > 0 ? withDictionaries(sensor, dictionaries) : sensor));
  const custom = rules?.sensors ?? new Map();
  const pending: Array<{ sensor: SensorRequest; definition: CustomSensorDefinition; context: JsonObject }> = [];
  const kept: SensorRequest[] = [];
  for (const sensor of expanded) {
    const definition = custom.get(sensor.sensorName);
    if (definition === undefined) {
      kept.push(sensor);
      continue;
    }
    const problem = 'error' in definition ? definition.error : parameterProblem(definition, sensor.parameters ?? {});
    if (problem !== undefined) {
      failures.set(sensor.id, problem);
      continue;
    }
    const sensorDefinition = definition as CustomSensorDefinition;
    const missingTimestamp = (['event', 'ingestion'] as const).find(
      (kind) => sensorDefinition.definition[`requires_${kind}_timestamp`] === true && !request.timestampColumns?.[`${kind}TimestampColumn`],
    );
    if (missingTimestamp !== undefined) {
      failures.set(sensor.id, `the custom sensor ${sensor.sensorName} needs timestamp_columns.${missingTimestamp}_timestamp_column of the table`);
      continue;
    }
    if (request.partitioning !== undefined && !sensorDefinition.supportsPartitionedChecks) {
      failures.set(sensor.id, `the custom sensor ${sensor.sensorName} does not support partitioned checks (supports_partitioned_checks: false)`);
      continue;
    }
    pending.push({ sensor, definition: sensorDefinition, context: templateContext(request, sensor, sensorDefinition, { tableSpec }) });
  }
  if (pending.length > 0 && rules) {
    const templates: Record<string, string> = { [POSTGRESQL_DIALECT_TEMPLATE_NAME]: POSTGRESQL_DIALECT_TEMPLATE, [REFERENCE_NAME]: SCAN_REFERENCE_TEMPLATE };
    for (const { definition } of pending) templates[templateNameOf(definition.name)] = definition.sqlTemplate;
    const items = pending.flatMap(({ definition, context }) => [
      { template: templateNameOf(definition.name), context },
      { template: REFERENCE_NAME, context: { ...context, parameters: {} } },
    ]);
    const outcomes = await rules.python.render(templates, items);
    pending.forEach(({ sensor, definition }, index) => {
      const rendered = outcomes[2 * index];
      const reference = outcomes[2 * index + 1];
      if ('error' in rendered) failures.set(sensor.id, `the template of the custom sensor ${definition.name} cannot be rendered: ${rendered.error}`);
      else if ('error' in reference) failures.set(sensor.id, `the dialect macros cannot be rendered: ${reference.error}`);
      else {
        kept.push({
          ...sensor,
          template: {
            sql: rendered.sql,
            reference: reference.sql,
            supportsGrouping: definition.supportsGrouping,
            disableMergingQueries: definition.disableMergingQueries,
            ...(typeof definition.definition.default_value === 'number' ? { defaultValue: definition.definition.default_value } : {}),
          },
        });
      }
    });
  }
  return { request: { ...request, sensors: kept }, failures };
}

const REFERENCE_NAME = 'dqctl/scan_reference.sql.jinja2';

export function templateNameOf(sensorName: string): string {
  return `sensors/${sensorName}/postgresql.sql.jinja2`;
}

/** The sensor with its list parameters' `${dictionary://…}` elements expanded. */
export function withDictionaries(sensor: SensorRequest, dictionaries: ReadonlyMap<string, string>): SensorRequest {
  const parameters = sensor.parameters;
  if (!parameters || !Object.values(parameters).some(Array.isArray)) return sensor;
  const out: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(parameters)) out[name] = Array.isArray(value) ? (expandDictionaries(value, dictionaries) as JsonValue[]) : value;
  return { ...sensor, parameters: out };
}

