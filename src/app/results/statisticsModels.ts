import { isJsonObject, type JsonObject, type JsonValue } from '../../model/index.js';
import type { StatisticsRow } from '../../store/store.js';
import { epochMs, localDateTime, type Target } from './checkResults.js';

/**
 * The statistics `collect statistics` stored (src/store/statistics.ts) as DQOps's statistics models
 * (TableStatisticsModel, TableColumnsStatisticsModel, ColumnStatisticsModel), each from the latest collection,
 * with the job template that collects them again.
 */
/** Collectors whose number is a count (DQOps's `integer` result), the others' numbers are `float`. */
const INTEGER_COLLECTORS = /(_count|_length)$/;

/** A value's StatisticsResultDataType, as DQOps names them. */
function dataTypeOf(value: JsonValue, collector: string): string {
  if (typeof value === 'number') return Number.isInteger(value) && (INTEGER_COLLECTORS.test(collector) || collector === 'row_count') ? 'integer' : 'float';
  if (typeof value === 'boolean') return 'boolean';
  return value === null ? 'null' : 'string';
}

/**
 * The StatisticsMetricModel entries of one stored statistic, in DQOps's camelCase keys: one entry for a value;
 * for the most common values (top_values) one entry per value, its `sampleIndex` and how often it occurs
 * (`sampleCount`), as DQOps's column sampling answers. `dataGroup` and `errorMessage` are dqctl's additions.
 */
function metricsOf(row: StatisticsRow): JsonObject[] {
  const common = {
    category: row.collectorCategory,
    collector: row.collectorName,
    collectedAt: localDateTime(row.collectedAt),
    executedAt: epochMs(row.collectedAt),
    dataGroup: row.dataGroup,
  };
  if (row.errorMessage !== null) return [{ ...common, resultDataType: 'null', result: null, errorMessage: row.errorMessage }];
  if (Array.isArray(row.resultJson)) {
    return row.resultJson.map((sample, index) => {
      const value = isJsonObject(sample) ? (sample.value ?? null) : sample;
      const count = isJsonObject(sample) && typeof sample.count === 'number' ? sample.count : undefined;
      return { ...common, resultDataType: dataTypeOf(value, row.collectorName), result: value, sampleIndex: index, ...(count !== undefined ? { sampleCount: count } : {}) };
    });
  }
  const result: JsonValue = row.resultDouble ?? row.resultText ?? row.resultJson ?? null;
  return [{ ...common, resultDataType: dataTypeOf(result, row.collectorName), result }];
}

function physicalTableName(target: Target): JsonObject {
  return { schema_name: target.schema, table_name: target.table };
}

export function columnStatisticsModel(target: Target, column: string, rows: readonly StatisticsRow[], canCollect: boolean): JsonObject {
  const columns = isJsonObject(target.tableSpec.columns) ? target.tableSpec.columns : {};
  const spec = isJsonObject(columns[column]) ? columns[column] : {};
  return {
    connection_name: target.connection,
    table: physicalTableName(target),
    column_name: column,
    disabled: spec.disabled === true,
    ...(isJsonObject(spec.type_snapshot) ? { type_snapshot: spec.type_snapshot } : {}),
    statistics: rows.flatMap(metricsOf),
    collect_column_statistics_job_template: { connection: target.connection, fullTableName: `${target.schema}.${target.table}`, enabled: true, columnNames: [column], collectorTarget: 'column' },
    can_collect_statistics: canCollect,
    can_delete_statistics: canCollect,
  };
}


export function tableStatisticsModel(target: Target, rows: readonly StatisticsRow[], canCollect: boolean): JsonObject {
  const fullTableName = `${target.schema}.${target.table}`;
  return {
    connection_name: target.connection,
    table: physicalTableName(target),
    statistics: rows.flatMap(metricsOf),
    collect_table_statistics_job_template: { connection: target.connection, fullTableName, enabled: true, collectorTarget: 'table' },
    collect_table_and_column_statistics_job_template: { connection: target.connection, fullTableName, enabled: true },
    can_collect_statistics: canCollect,
    can_delete_statistics: canCollect,
  };
}

/** Every column's statistics: the table's columns, and columns that have statistics but left the table file, by name. */
export function tableColumnsStatisticsModel(target: Target, rows: readonly StatisticsRow[], canCollect: boolean): JsonObject {
  const byColumn = new Map<string, StatisticsRow[]>();
  for (const row of rows) if (row.columnName !== null) byColumn.set(row.columnName, [...(byColumn.get(row.columnName) ?? []), row]);
  const declared = Object.keys(isJsonObject(target.tableSpec.columns) ? target.tableSpec.columns : {});
  const columns = [...new Set([...declared, ...byColumn.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    connection_name: target.connection,
    table: physicalTableName(target),
    column_statistics: columns.map((column) => columnStatisticsModel(target, column, byColumn.get(column) ?? [], canCollect)),
    collect_column_statistics_job_template: { connection: target.connection, fullTableName: `${target.schema}.${target.table}`, enabled: true, collectorTarget: 'column' },
    can_collect_statistics: canCollect,
    can_delete_statistics: canCollect,
  };
}
