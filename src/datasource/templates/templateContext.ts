/**
 * The variables a custom sensor's template is rendered with: those DQOps gives a template (`connection`,
 * `table`, `target_table`, `column`, `column_name`, `parameters`, `effective_time_series`,
 * `effective_time_window_filter`, `effective_data_groupings`, `sensor_definition`, `provider_sensor_definition`,
 * `dialect_settings`, `actual_value_alias`, `expected_value_alias`, `additional_filters`, `error_sampling`),
 * built from the same TableQueryRequest as the built-in sensors, plus `dqctl.now` (the run's start) that the
 * dialect macros count partition windows from.
 */
import type { JsonObject, JsonValue } from '../../model/index.js';
import { groupingLevels } from '../sensors/rowSource.js';
import type { SensorRequest, TableQueryRequest } from '../sensors/sensorTypes.js';
import type { CustomSensorDefinition } from './customSensor.js';

export interface TemplateContextOptions {
  /** The table file's spec (columns with their type_snapshot and sql_expression, filter, timestamp_columns). */
  tableSpec: JsonObject;
  /** The connected database's name, for templates that read `connection.postgresql.database`. */
  database?: string;
}

const DEFAULT_RECENT_DAYS = 7;
const DEFAULT_RECENT_MONTHS = 1;

export function templateContext(
  request: TableQueryRequest,
  sensor: SensorRequest,
  definition: CustomSensorDefinition,
  options: TemplateContextOptions,
): JsonObject {
  const grouping = definition.supportsGrouping ? groupingLevels(request) : [];
  const groupings: JsonObject = {};
  grouping.forEach((level, index) => {
    groupings[`level_${index + 1}`] = 'tag' in level ? { source: 'tag', tag: level.tag } : { source: 'column_value', column: level.column };
  });
  const partitioning = request.partitioning;
  const window = partitioning?.window ?? {};
  const timeSeries: JsonValue = partitioning
    ? { mode: 'timestamp_column', timestamp_column: partitioning.column, time_gradient: partitioning.timeScale === 'daily' ? 'day' : 'month' }
    : null;
  const timeWindow: JsonValue = partitioning
    ? partitioning.timeScale === 'daily'
      ? { daily_partitioning_recent_days: window.recentDays ?? DEFAULT_RECENT_DAYS, daily_partitioning_include_today: window.includeToday === true }
      : { monthly_partitioning_recent_months: window.recentMonths ?? DEFAULT_RECENT_MONTHS, monthly_partitioning_include_current_month: window.includeToday === true }
    : null;
  const columns = (options.tableSpec.columns ?? {}) as JsonObject;
  const column = sensor.column === undefined ? null : ((columns[sensor.column] as JsonValue | undefined) ?? {});
  return {
    connection: { provider_type: 'postgresql', postgresql: options.database === undefined ? {} : { database: options.database } },
    table: { ...options.tableSpec, columns, ...(request.filter !== undefined ? { filter: request.filter } : {}) },
    target_table: { schema_name: request.schema, table_name: request.table },
    column,
    column_name: sensor.column ?? null,
    parameters: { ...(sensor.parameters ?? {}) },
    effective_time_series: timeSeries,
    effective_time_window_filter: timeWindow,
    effective_data_groupings: grouping.length > 0 ? groupings : null,
    sensor_definition: definition.definition,
    provider_sensor_definition: definition.provider,
    dialect_settings: { quote_begin: '"', quote_end: '"', quote_escape: '""' },
    actual_value_alias: 'actual_value',
    expected_value_alias: 'expected_value',
    additional_filters: [],
    error_sampling: { samples_limit: 5, total_samples_limit: 1000, id_columns: [] },
    dqctl: { now: (request.now ?? new Date()).toISOString() },
  };
}
