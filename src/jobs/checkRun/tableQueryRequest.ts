import type { TableQueryRequest } from '../../datasource/sensors/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../model/index.js';
import { partitionColumnOf, type PlannedCheck } from './plannedChecks.js';

/**
 * The sensor request of some checks of ONE table and ONE check type and time scale: the rows a check run
 * analyses (the table's filter, its default data grouping, the partition window of partitioned checks, its
 * timestamp columns). Shared by the check runner and the error-sample collector, so both look at the same rows.
 */
export interface TimeWindowOverride {
  daily_partitioning_recent_days?: number;
  daily_partitioning_include_today?: boolean;
  monthly_partitioning_recent_months?: number;
  monthly_partitioning_include_current_month?: boolean;
}

function numberOr(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** The column types the table file records (`type_snapshot.column_type`), for the sensors' text of a value. */
export function columnTypesOf(spec: JsonObject): { columnTypes?: Record<string, string> } {
  const columns = isJsonObject(spec.columns) ? spec.columns : {};
  const types: Record<string, string> = {};
  for (const [name, column] of Object.entries(columns)) {
    const snapshot = isJsonObject(column) && isJsonObject(column.type_snapshot) ? column.type_snapshot : undefined;
    if (typeof snapshot?.column_type === 'string') types[name] = snapshot.column_type;
  }
  return Object.keys(types).length > 0 ? { columnTypes: types } : {};
}

export function tableQueryRequestOf(
  checks: readonly PlannedCheck[],
  options: { now: Date; grouping: boolean; timeWindow?: TimeWindowOverride },
): TableQueryRequest {
  const [first] = checks;
  const { table, checkType, timeScale } = first;
  const spec = table.spec;
  const timestamps = isJsonObject(spec.timestamp_columns) ? spec.timestamp_columns : {};
  const window = isJsonObject(spec.incremental_time_window) ? spec.incremental_time_window : {};
  const override = options.timeWindow ?? {};
  const partitionColumn = partitionColumnOf(spec);
  const levels = options.grouping ? first.grouping : [];
  return {
    schema: table.schema,
    table: table.table,
    sensors: checks.map((c) => ({
      id: String(c.checkHash),
      sensorName: c.catalog.sensor,
      ...(c.column === null ? {} : { column: c.column }),
      parameters: isJsonObject(c.spec.parameters) ? c.spec.parameters : {},
    })),
    ...(typeof spec.filter === 'string' && spec.filter !== '' ? { filter: spec.filter } : {}),
    ...(levels.length > 0 ? { grouping: { levels } } : {}),
    ...(checkType === 'partitioned' && partitionColumn && timeScale
      ? {
          partitioning: {
            column: partitionColumn,
            timeScale,
            window: {
              recentDays: override.daily_partitioning_recent_days ?? numberOr(window.daily_partitioning_recent_days),
              recentMonths: override.monthly_partitioning_recent_months ?? numberOr(window.monthly_partitioning_recent_months),
              includeToday:
                timeScale === 'daily'
                  ? (override.daily_partitioning_include_today ?? window.daily_partitioning_include_today === true)
                  : (override.monthly_partitioning_include_current_month ?? window.monthly_partitioning_include_current_month === true),
            },
          },
        }
      : {}),
    ...columnTypesOf(spec),
    timestampColumns: {
      ...(typeof timestamps.event_timestamp_column === 'string' ? { eventTimestampColumn: timestamps.event_timestamp_column } : {}),
      ...(typeof timestamps.ingestion_timestamp_column === 'string' ? { ingestionTimestampColumn: timestamps.ingestion_timestamp_column } : {}),
    },
    now: options.now,
  };
}
