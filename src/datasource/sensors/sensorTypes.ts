/**
 * The contract between the check runner and sensor SQL. The runner describes what to measure on one table
 * (its sensors, the table's filter, the data grouping, the partitioning of partitioned checks); this module
 * answers with SQL text and bound values to run on the data source, and parses the rows those queries return
 * into readouts per sensor. It never connects to anything itself.
 */
import type { JsonValue, SeverityNumber, TimeScale } from '../../model/index.js';
import type { SqlDialect } from '../dialects/dialect.js';

export interface SensorRequest {
  /** Chosen by the caller (e.g. the check's hash); readouts are returned under this id. Unique per request. */
  id: string;
  /** Catalog sensor name, e.g. `column/nulls/null_count`. */
  sensorName: string;
  /** The column of a column sensor; absent for table sensors. */
  column?: string;
  /**
   * The check's `parameters` as written in the YAML: the sensor's catalog parameters (defaults applied here when
   * absent) and `filter`, the check-level SQL condition (repository SQL, see docs/sensors.md).
   */
  parameters?: Readonly<Record<string, JsonValue>>;
  /** A custom sensor: its rendered template (sensorName then names a sensor of sensors/, not of the catalog). */
  template?: RenderedSensorTemplate;
}

/** What a check run rendered for a custom sensor (datasource/templates and the Python renderer). */
export interface RenderedSensorTemplate {
  sql: string;
  /** SCAN_REFERENCE_TEMPLATE rendered with the sensor's variables but no check filter. */
  reference: string;
  supportsGrouping: boolean;
  disableMergingQueries: boolean;
  /** The sensor definition's `default_value`: the readout when its query returns no row. */
  defaultValue?: number;
}

export type DataGroupingLevel = { column: string } | { tag: string };

export type DataGroupingRequest = { columns: readonly string[] } | { levels: readonly DataGroupingLevel[] };

export interface PartitioningRequest {
  /** timestamp_columns.partition_by_column of the table (a date, timestamp or timestamptz column). */
  column: string;
  timeScale: TimeScale;
  /**
   * The incremental time window: the `recentDays` days (daily) or `recentMonths` months (monthly) before the
   * current day or month, plus the current one when `includeToday` (for monthly: the current month) is set.
   * Defaults: 7 days, 1 month, not including the current one (DQOps's defaults).
   */
  window?: { recentDays?: number; recentMonths?: number; includeToday?: boolean };
}

export interface TableQueryRequest {
  schema: string;
  table: string;
  /** The SQL dialect of the data source (default PostgreSQL); the data source's `sqlTarget` gives it. */
  dialect?: SqlDialect;
  /**
   * What the queries read in place of the quoted `"schema"."table"`: a table function over files on DuckDB
   * (`read_parquet([...])`); the data source's `sqlTarget` gives it. Default: the quoted table name.
   */
  relation?: string;
  /**
   * What a table named in a parameter (foreign_table, referenced_table) reads: its files on DuckDB; the data
   * source's `sqlTarget` gives it. Default: the quoted `"schema"."table"`.
   */
  tableRelation?: (schema: string, table: string) => string;
  sensors: readonly SensorRequest[];
  /** The table's `filter` (repository SQL) added to the WHERE clause. */
  filter?: string;
  /**
   * Data grouping: one readout per distinct combination of the grouping columns. Either `columns`, or `levels`
   * for a DQOps data grouping configuration whose levels mix column values and static tags (a tag only names
   * the group: `{ levels: [{ tag: 'eu' }, { column: 'country' }] }` gives groups `eu, PL`, `eu, DE`, …).
   */
  grouping?: DataGroupingRequest;
  /** For partitioned checks: one readout per day or month of the partition column, over the time window. */
  partitioning?: PartitioningRequest;
  /**
   * The database types of columns when known (the table file's `type_snapshot.column_type`). Only changes how a
   * value reads as text where a cast would differ from the value's own display: `inet` (`10.1.2.3`, not
   * `10.1.2.3/32`).
   */
  columnTypes?: Readonly<Record<string, string>>;
  /**
   * The column types the data source reports (SqlTarget.describeColumns), for columns without a type snapshot. They
   * never change which reading of a value DQOps's templates choose (that follows the snapshot); they only let a
   * timeliness sensor take the newest value before its cast to timestamp when the cast keeps the order, which
   * gives the same value without casting every row.
   */
  sourceColumnTypes?: Readonly<Record<string, string>>;
    /** timestamp_columns of the table, used by the timeliness sensors. */
  timestampColumns?: { eventTimestampColumn?: string; ingestionTimestampColumn?: string };
  /** The time the run started; bound into timeliness sensors and partition windows. Default: now. */
  now?: Date;
}

/** The name of the table's event or ingestion timestamp column (`timestampColumns`), undefined when unset. */
export function timestampColumnName(request: Pick<TableQueryRequest, 'timestampColumns'>, kind: 'event' | 'ingestion'): string | undefined {
  return kind === 'event' ? request.timestampColumns?.eventTimestampColumn : request.timestampColumns?.ingestionTimestampColumn;
}

export interface SensorReadout {
  /** The data group: grouping values joined with ', ' (a NULL value is `null`), or `all data`. */
  dataGroup: string;
  /** Start of the partition (`YYYY-MM-DD`, the first day of a month for monthly) in partitioned queries. */
  timePeriod?: string;
  actualValue: number | null;
  /** Set by sensors that also measure a reference (accuracy sensors, imported custom results). */
  expectedValue?: number | null;
  /** Set only by `import_custom_result` when the query returns a `severity` column. */
  severity?: SeverityNumber | null;
}

export type SensorReadouts = Map<string, SensorReadout[]>;

/**
 * `scan`: the one merged query over the table's rows; `subquery`: a sensor that needs a query of its own over
 * the rows (top values, an aggregate that cannot take a FILTER); `custom`: a query the user wrote
 * (`sql_query` parameters); `metadata`: the schema sensors, from the system catalog; `availability`: the
 * table_availability probe.
 */
export type SensorQueryKind = 'scan' | 'subquery' | 'custom' | 'metadata' | 'availability';

export interface SensorQuery {
  kind: SensorQueryKind;
  /** One SQL statement with `$n` placeholders; no trailing semicolon. */
  text: string;
  values: unknown[];
  /**
   * Always `extended`: pg's extended protocol runs exactly one statement, even for a query without bound
   * values. Pass the object to `client.query(query)` as it is, or copy text, values and queryMode.
   */
  queryMode: 'extended';
  /** The ids of the sensors this query measures. */
  sensorIds: string[];
  /** Readouts per sensor id from the rows the query returned (pg's `result.rows`). */
  parse(rows: readonly Record<string, unknown>[]): SensorReadouts;
  /**
   * Set only when a failing query is itself the measurement (table_availability: a failure is the readout
   * 1.0). Otherwise a failed query is an execution error of each of its sensors.
   */
  parseError?(error: unknown): SensorReadouts;
}

export interface RejectedSensor {
  id: string;
  sensorName: string;
  /** Why no SQL can be built: unknown or unsupported sensor, a missing or wrongly typed parameter, … */
  reason: string;
}

export interface SensorQueryPlan {
  queries: SensorQuery[];
  rejected: RejectedSensor[];
}

export const ALL_DATA_GROUP = 'all data';
