import type { DqopsKind } from '../store/index.js';

/**
 * DQOps's `.data/` layout, as its Parquet reference and column-name classes describe it (facts, not code): one folder
 * per kind, Hive partitions `c=<connection>/t=<schema.table>/m=<YYYY-MM-01>/` (incidents: no `t=` level), one file
 * per partition, and per kind its columns with their types. `TIMESTAMP` is a local date-time (Parquet
 * isAdjustedToUTC=false), `TIMESTAMPTZ` an instant (isAdjustedToUTC=true).
 */
export type DqopsColumnType = 'VARCHAR' | 'DOUBLE' | 'BIGINT' | 'INTEGER' | 'BOOLEAN' | 'TIMESTAMP' | 'TIMESTAMPTZ' | 'DATE' | 'TIME';

export interface KindLayout {
  kind: DqopsKind;
  fileName: string;
  /** The column whose month names the `m=` folder. */
  monthColumn: string;
  /** Whether partitions have the `t=` level. */
  tableLevel: boolean;
  columns: ReadonlyArray<readonly [name: string, type: DqopsColumnType]>;
  /** Columns a file must have (the store needs them): a file without one is refused. */
  required: readonly string[];
}

const S = 'VARCHAR';
const GROUPING_LEVELS = Array.from({ length: 9 }, (_, i) => [`grouping_level_${i + 1}`, S] as const);

const READOUT_COLUMNS = [
  ['id', S], ['actual_value', 'DOUBLE'], ['expected_value', 'DOUBLE'], ['time_period', 'TIMESTAMP'], ['time_period_utc', 'TIMESTAMPTZ'],
  ['time_gradient', S], ...GROUPING_LEVELS, ['data_group_hash', 'BIGINT'], ['data_group_name', S], ['data_grouping_configuration', S],
  ['connection_hash', 'BIGINT'], ['connection_name', S], ['provider', S], ['table_hash', 'BIGINT'], ['schema_name', S], ['table_name', S],
  ['table_name_pattern', S], ['table_stage', S], ['table_priority', 'INTEGER'], ['column_hash', 'BIGINT'], ['column_name', S],
  ['column_name_pattern', S], ['check_hash', 'BIGINT'], ['check_name', S], ['check_display_name', S], ['check_type', S],
  ['check_category', S], ['table_comparison', S], ['quality_dimension', S], ['sensor_name', S], ['time_series_id', S],
  ['executed_at', 'TIMESTAMPTZ'], ['duration_ms', 'INTEGER'], ['created_at', 'TIMESTAMPTZ'], ['updated_at', 'TIMESTAMPTZ'],
  ['created_by', S], ['updated_by', S],
] as const satisfies ReadonlyArray<readonly [string, DqopsColumnType]>;

const CHECK_REQUIRED = ['id', 'connection_name', 'schema_name', 'table_name', 'check_type', 'time_gradient', 'check_category', 'check_name', 'check_hash', 'time_period'];

const TYPED_RESULT_COLUMNS = [
  ['result_type', S], ['result_string', S], ['result_integer', 'BIGINT'], ['result_float', 'DOUBLE'], ['result_boolean', 'BOOLEAN'],
  ['result_date', 'DATE'], ['result_date_time', 'TIMESTAMP'], ['result_instant', 'TIMESTAMPTZ'], ['result_time', 'TIME'],
] as const satisfies ReadonlyArray<readonly [string, DqopsColumnType]>;

export const LAYOUTS: Readonly<Record<DqopsKind, KindLayout>> = {
  sensor_readouts: { kind: 'sensor_readouts', fileName: 'sensor_readout.0.parquet', monthColumn: 'time_period', tableLevel: true, columns: READOUT_COLUMNS, required: CHECK_REQUIRED },
  check_results: {
    kind: 'check_results',
    fileName: 'check_results.0.parquet',
    monthColumn: 'time_period',
    tableLevel: true,
    columns: [
      ...READOUT_COLUMNS, ['severity', 'INTEGER'], ['incident_hash', 'BIGINT'], ['reference_connection', S], ['reference_schema', S],
      ['reference_table', S], ['reference_column', S], ['include_in_kpi', 'BOOLEAN'], ['include_in_sla', 'BOOLEAN'],
      ['fatal_lower_bound', 'DOUBLE'], ['fatal_upper_bound', 'DOUBLE'], ['error_lower_bound', 'DOUBLE'], ['error_upper_bound', 'DOUBLE'],
      ['warning_lower_bound', 'DOUBLE'], ['warning_upper_bound', 'DOUBLE'],
    ],
    required: [...CHECK_REQUIRED, 'severity'],
  },
  errors: {
    kind: 'errors',
    fileName: 'errors.0.parquet',
    monthColumn: 'error_timestamp',
    tableLevel: true,
    columns: [...READOUT_COLUMNS, ['readout_id', S], ['error_message', S], ['error_source', S], ['error_timestamp', 'TIMESTAMP']],
    required: [...CHECK_REQUIRED, 'error_message', 'error_timestamp'],
  },
  statistics: {
    kind: 'statistics',
    fileName: 'statistics.0.parquet',
    monthColumn: 'collected_at',
    tableLevel: true,
    columns: [
      ['id', S], ['collected_at', 'TIMESTAMP'], ['status', S], ...TYPED_RESULT_COLUMNS, ['sample_index', 'INTEGER'], ['sample_count', 'BIGINT'],
      ['scope', S], ...GROUPING_LEVELS, ['data_group_hash', 'BIGINT'], ['data_group_name', S], ['data_grouping_configuration', S],
      ['connection_hash', 'BIGINT'], ['connection_name', S], ['provider', S], ['table_hash', 'BIGINT'], ['schema_name', S], ['table_name', S],
      ['table_stage', S], ['column_hash', 'BIGINT'], ['column_name', S], ['collector_hash', 'BIGINT'], ['collector_name', S],
      ['collector_target', S], ['collector_category', S], ['sensor_name', S], ['time_series_id', S], ['executed_at', 'TIMESTAMPTZ'],
      ['duration_ms', 'INTEGER'], ['error_message', S], ['created_at', 'TIMESTAMPTZ'], ['updated_at', 'TIMESTAMPTZ'], ['created_by', S], ['updated_by', S],
    ],
    required: ['id', 'connection_name', 'schema_name', 'table_name', 'collector_category', 'collector_name', 'collected_at'],
  },
  error_samples: {
    kind: 'error_samples',
    fileName: 'errorsamples.0.parquet',
    monthColumn: 'collected_at',
    tableLevel: true,
    columns: [
      ['id', S], ['collected_at', 'TIMESTAMP'], ['scope', S], ...GROUPING_LEVELS, ['data_group_hash', 'BIGINT'], ['data_group_name', S],
      ['data_grouping_configuration', S], ['connection_hash', 'BIGINT'], ['connection_name', S], ['provider', S], ['table_hash', 'BIGINT'],
      ['schema_name', S], ['table_name', S], ['table_stage', S], ['table_priority', 'INTEGER'], ['column_hash', 'BIGINT'], ['column_name', S],
      ['check_hash', 'BIGINT'], ['check_name', S], ['check_display_name', S], ['check_type', S], ['time_gradient', S], ['check_category', S],
      ['quality_dimension', S], ['table_comparison', S], ['sensor_name', S], ['time_series_id', S], ...TYPED_RESULT_COLUMNS,
      ['sample_index', 'INTEGER'], ['sample_filter', S], ['row_id_1', S], ['row_id_2', S], ['row_id_3', S], ['row_id_4', S], ['row_id_5', S],
      ['executed_at', 'TIMESTAMPTZ'], ['duration_ms', 'INTEGER'], ['created_at', 'TIMESTAMPTZ'], ['updated_at', 'TIMESTAMPTZ'], ['created_by', S], ['updated_by', S],
    ],
    required: ['id', 'connection_name', 'schema_name', 'table_name', 'check_type', 'time_gradient', 'check_category', 'check_name', 'check_hash', 'sample_index', 'collected_at'],
  },
  incidents: {
    kind: 'incidents',
    fileName: 'incidents.0.parquet',
    monthColumn: 'first_seen',
    tableLevel: false,
    columns: [
      ['id', S], ['incident_hash', 'BIGINT'], ['schema_name', S], ['table_name', S], ['table_priority', 'INTEGER'], ['data_group_name', S],
      ['quality_dimension', S], ['check_category', S], ['check_type', S], ['check_name', S], ['highest_severity', 'INTEGER'],
      ['minimum_severity', 'INTEGER'], ['first_seen', 'TIMESTAMPTZ'], ['last_seen', 'TIMESTAMPTZ'], ['incident_until', 'TIMESTAMPTZ'],
      ['failed_checks_count', 'INTEGER'], ['issue_url', S], ['resolved_by', S], ['status', S], ['created_at', 'TIMESTAMPTZ'],
      ['updated_at', 'TIMESTAMPTZ'], ['created_by', S], ['updated_by', S],
    ],
    required: ['id', 'incident_hash', 'schema_name', 'table_name', 'highest_severity', 'minimum_severity', 'first_seen', 'last_seen', 'incident_until', 'failed_checks_count', 'status'],
  },
};

/**
 * The DuckDB types a file may have for a column of each DQOps type: the type itself, or a narrower one of the same
 * family (a reader widens it). A timestamp may come with or without zone: both name an instant, read as UTC.
 */
export const ACCEPTED_TYPES: Readonly<Record<DqopsColumnType, readonly string[]>> = {
  VARCHAR: ['VARCHAR'],
  DOUBLE: ['DOUBLE', 'FLOAT'],
  BIGINT: ['BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT'],
  INTEGER: ['INTEGER', 'SMALLINT', 'TINYINT'],
  BOOLEAN: ['BOOLEAN'],
  TIMESTAMP: ['TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP_S', 'TIMESTAMP WITH TIME ZONE'],
  TIMESTAMPTZ: ['TIMESTAMP WITH TIME ZONE', 'TIMESTAMP', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP_S'],
  DATE: ['DATE'],
  TIME: ['TIME'],
};

/** The folder of a kind's files under `.data/`. */
export function kindOfFolder(folder: string): DqopsKind | undefined {
  return (Object.keys(LAYOUTS) as DqopsKind[]).find((kind) => kind === folder);
}

/** Characters DQOps's path sanitizer writes as `%XX` (its escape `%` included); a space becomes `+` in partition folders. */
const ENCODED = new Set(['/', '\\', '<', '>', ':', '"', "'", '|', '?', '*', '&', '%']);

/** A name as a partition folder value: `%XX` for the sanitizer's characters, `+` for a space, `default` for an empty name. */
export function encodePartitionName(name: string): string {
  if (name.trim() === '') return 'default';
  let out = '';
  for (const c of name) out += ENCODED.has(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : c;
  return out.replace(/ /g, '+');
}

/** A partition folder value back to the name (`+` is a space; a `%` not followed by two hex digits stays). */
export function decodePartitionName(value: string): string {
  return value.replace(/\+/g, ' ').replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** `c=<connection>/t=<schema.table>/m=<YYYY-MM-01>` of a row, as DQOps names its partition folders. */
export function partitionPath(kind: DqopsKind, connection: string, schema: string, table: string, month: string): string[] {
  const parts = [`c=${encodePartitionName(connection)}`];
  if (LAYOUTS[kind].tableLevel) parts.push(`t=${encodePartitionName(`${schema || 'default'}.${table || 'default'}`)}`);
  parts.push(`m=${month}`);
  return parts;
}
