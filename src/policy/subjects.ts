/**
 * What a policy target is matched against: a table (with its connection's labels) or a column of a table.
 * Built once per table or column from the plain specs and reused for every policy, so that evaluating many
 * policies costs a few comparisons each. Tables are named by their parts; `tableRefOf` splits the object name
 * `connection/schema.table` (first `/`, then first `.`, as table file names are split).
 */
import { isJsonObject, parseTableKey, type JsonObject, type JsonValue } from '../model/index.js';
import { dataTypeCategoryOf, type DataTypeCategory } from './dataTypeCategory.js';

/** A table as the policy functions take it: its name parts and its spec (snake_case, as in the YAML file). */
export interface TableRef {
  connection: string;
  schema: string;
  table: string;
  spec: JsonObject;
}

export interface TableSubject {
  readonly connection: string;
  readonly schema: string;
  readonly table: string;
  readonly spec: JsonObject;
  readonly stage: string | undefined;
  readonly priority: number | undefined;
  /** Labels of the connection and of the table. */
  readonly labels: readonly string[];
  /** `timestamp_columns.partition_by_column` is set: partitioned checks of policies apply. */
  readonly partitioned: boolean;
  readonly disabled: boolean;
}

export interface ColumnSubject {
  readonly table: TableSubject;
  readonly column: string;
  /** The column's spec; {} when the table spec does not list the column. */
  readonly spec: JsonObject;
  readonly columnType: string | undefined;
  readonly category: DataTypeCategory | undefined;
  /** Labels of the connection, the table and the column. */
  readonly labels: readonly string[];
  /** The column or its table is disabled. */
  readonly disabled: boolean;
}

/** Splits `connection/schema.table`; undefined when the name has no `/` or no `.` after it. */
export function tableRefOf(name: string, spec: JsonObject): TableRef | undefined {
  const identity = parseTableKey(name);
  return identity && { ...identity, spec };
}

export function tableSubject(table: TableRef, connectionSpec: JsonObject | undefined): TableSubject {
  const spec = table.spec;
  const timestampColumns = spec.timestamp_columns;
  const partitionColumn = isJsonObject(timestampColumns) ? timestampColumns.partition_by_column : undefined;
  return {
    connection: table.connection,
    schema: table.schema,
    table: table.table,
    spec,
    stage: typeof spec.stage === 'string' ? spec.stage : undefined,
    priority: numberOf(spec.priority),
    labels: [...labelsOf(connectionSpec?.labels), ...labelsOf(spec.labels)],
    partitioned: typeof partitionColumn === 'string' && partitionColumn.trim() !== '',
    disabled: spec.disabled === true,
  };
}

export function columnSubject(table: TableSubject, column: string): ColumnSubject {
  const columns = table.spec.columns;
  const raw = isJsonObject(columns) ? columns[column] : undefined;
  const spec = isJsonObject(raw) ? raw : {};
  const typeSnapshot = spec.type_snapshot;
  const rawType = isJsonObject(typeSnapshot) ? typeSnapshot.column_type : undefined;
  const columnType = typeof rawType === 'string' ? rawType : undefined;
  const columnLabels = labelsOf(spec.labels);
  return {
    table,
    column,
    spec,
    columnType,
    category: dataTypeCategoryOf(columnType),
    labels: columnLabels.length === 0 ? table.labels : [...table.labels, ...columnLabels],
    disabled: table.disabled || spec.disabled === true,
  };
}

/** Names of the columns a table spec lists, sorted. */
export function columnNamesOf(spec: JsonObject): string[] {
  return isJsonObject(spec.columns) ? Object.keys(spec.columns).sort() : [];
}

function labelsOf(value: JsonValue | undefined): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((label): label is string => typeof label === 'string');
}

export function numberOf(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}
