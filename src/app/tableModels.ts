import { createHash } from 'node:crypto';
import {
  isJsonObject,
  tableKey,
  TIME_SCALES,
  type Capabilities,
  type JsonObject,
  type JsonValue,
  type LiveObject,
  type TableIdentity,
} from '../model/index.js';

/**
 * DQOps's table and column models (TableListModel, ColumnListModel, ColumnModel) of a live table: what the
 * tables routes answer. Hashes are stable numbers derived from the names, as DQOps's clients expect numbers.
 */
/** A stable non-negative integer naming an object (DQOps clients expect numeric hashes), below 2^53. */
export function nameHash(text: string): number {
  return Number.parseInt(createHash('sha256').update(text).digest('hex').slice(0, 13), 16);
}


/** A category map `{category: {check: {...}}}` holds at least one check. */
function categoriesHoldCheck(value: JsonValue | undefined): boolean {
  if (!isJsonObject(value)) return false;
  return Object.values(value).some((category) => isJsonObject(category) && Object.values(category).some(isJsonObject));
}

interface ConfiguredChecks {
  profiling: boolean;
  monitoring: boolean;
  partitioned: boolean;
}

function configuredChecksOf(spec: JsonObject): ConfiguredChecks {
  const scaled = (container: JsonValue | undefined) =>
    isJsonObject(container) && TIME_SCALES.some((scale) => categoriesHoldCheck(container[scale]));
  return {
    profiling: categoriesHoldCheck(spec.profiling_checks),
    monitoring: scaled(spec.monitoring_checks),
    partitioned: scaled(spec.partitioned_checks),
  };
}

export function columnsOf(spec: JsonObject): Record<string, JsonObject> {
  const columns = spec.columns;
  if (!isJsonObject(columns)) return {};
  const out: Record<string, JsonObject> = {};
  for (const [name, column] of Object.entries(columns)) out[name] = isJsonObject(column) ? column : {};
  return out;
}

function stringsOf(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function tableListModel(live: LiveObject, path: TableIdentity, capabilities: Capabilities): JsonObject {
  const spec = live.spec;
  const own = configuredChecksOf(spec);
  const columns = Object.values(columnsOf(spec)).map(configuredChecksOf);
  const any = (key: keyof ConfiguredChecks) => own[key] || columns.some((c) => c[key]);
  const timestampColumns = isJsonObject(spec.timestamp_columns) ? spec.timestamp_columns : {};
  const partitionBy = timestampColumns.partition_by_column;
  const model: JsonObject = {
    connection_name: path.connection,
    table_hash: nameHash(live.name),
    target: { schema_name: path.schema, table_name: path.table },
    disabled: spec.disabled === true,
    labels: stringsOf(spec.labels),
    has_any_configured_checks: any('profiling') || any('monitoring') || any('partitioned'),
    has_any_configured_profiling_checks: any('profiling'),
    has_any_configured_monitoring_checks: any('monitoring'),
    has_any_configured_partition_checks: any('partitioned'),
    partitioning_configuration_missing: typeof partitionBy !== 'string' || partitionBy.trim() === '',
    ...capabilities,
  };
  if (typeof spec.stage === 'string') model.stage = spec.stage;
  if (typeof spec.priority === 'number') model.priority = spec.priority;
  if (typeof spec.filter === 'string') model.filter = spec.filter;
  return model;
}

export function columnListModel(path: TableIdentity, name: string, spec: JsonObject, capabilities: Capabilities): JsonObject {
  const checks = configuredChecksOf(spec);
  const model: JsonObject = {
    connection_name: path.connection,
    table: { schema_name: path.schema, table_name: path.table },
    column_name: name,
    column_hash: nameHash(`${tableKey(path)}\u0000${name}`),
    disabled: spec.disabled === true,
    has_any_configured_checks: checks.profiling || checks.monitoring || checks.partitioned,
    has_any_configured_profiling_checks: checks.profiling,
    has_any_configured_monitoring_checks: checks.monitoring,
    has_any_configured_partition_checks: checks.partitioned,
    ...capabilities,
  };
  if (typeof spec.sql_expression === 'string') model.sql_expression = spec.sql_expression;
  if (typeof spec.id === 'number') model.id = spec.id;
  if (isJsonObject(spec.type_snapshot)) model.type_snapshot = spec.type_snapshot;
  return model;
}

export function columnModel(path: TableIdentity, name: string, spec: JsonObject, capabilities: Capabilities): JsonObject {
  return {
    connection_name: path.connection,
    table: { schema_name: path.schema, table_name: path.table },
    column_name: name,
    column_hash: nameHash(`${tableKey(path)}\u0000${name}`),
    spec,
    ...capabilities,
  };
}

/** The small parts of a table spec served on their own: GET answers the part (or its empty value), PUT replaces it. */
