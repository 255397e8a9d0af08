/**
 * How one catalog sensor becomes SQL. Most sensors are an aggregate expression over the analyzed rows, so any
 * number of them share one scan of the table (`aggregate`). A few need more than one aggregate level
 * (`subquery`), run a query the user wrote (`custom`), or read the system catalog instead of the rows
 * (`metadata`, `availability`). Definitions are plain values in a registry keyed by the catalog's sensor name.
 */
import type { JsonValue } from '../../model/index.js';
import type { SqlDialect } from '../dialects/dialect.js';
import type { SqlParameterType } from './sqlParameters.js';

/** A sensor that cannot be built (missing column, missing or wrongly typed parameter, …). */
export class SensorBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SensorBuildError';
  }
}

/** What every SQL-producing definition can ask about its sensor. */
export interface SensorSqlContext {
  readonly sensorName: string;
  /** The SQL dialect of the data source: what differs between engines is asked of it. */
  readonly dialect: SqlDialect;
  /** `"schema"."table"` of the analyzed table (or the data source's relation, e.g. files on DuckDB). */
  readonly table: string;
  /** The sensor parameter after defaults and type checks (null when unset and without default). */
  param(name: string): JsonValue;
  /** A bound placeholder (`$n::type` on PostgreSQL). */
  bind(value: unknown, type: SqlParameterType): string;
  /** The run's start time, bound: `$n::timestamptz`. */
  readonly now: string;
  /** The run's start time as a value (to bind times computed from it, e.g. now + n days). */
  readonly nowValue: Date;
  /**
   * A table named in a parameter (foreign_table, referenced_table): `table` is in the analyzed table's schema,
   * `schema.table` is split on the first dot. Quoted.
   */
  tableRef(name: string): string;
}

/** Context of an aggregate in the merged scan; rows are `analyzed_table`. */
export interface ScanContext extends SensorSqlContext {
  /** `analyzed_table."column"`; a build error for a sensor without a column. */
  readonly column: string;
  /** The column as text in the dialect: `(analyzed_table."column")::text` on PostgreSQL. */
  readonly text: string;
  /** The type snapshot of the analyzed column (`columnTypes` of the request), undefined when unknown. */
  readonly columnType: string | undefined;
  /** The table's column names known from its type snapshots (`columnTypes` of the request), in their order. */
  readonly tableColumns: string[];
  /** An aggregate call limited to rows meeting `condition` and the check's filter: `call FILTER (WHERE …)`. */
  aggregate(call: string, condition?: string): string;
  /** `count(*)` of the rows meeting the condition (and the check's filter). */
  count(condition?: string): string;
  /** `count(column)`: the non-null values meeting the condition (and the check's filter). */
  countValues(condition?: string): string;
  /** `100 * numerator / denominator` as double precision, `empty` when the denominator is 0. */
  percent(numerator: string, denominator: string, empty: 0 | 100 | null): string;
  /** Adds `LEFT JOIN (subquery) AS alias ON on(alias)` to the scan (the subquery must not multiply rows). */
  leftJoin(subquery: string, on: (alias: string) => string): string;
  /** Repository SQL with `{alias}`, `{table}` and `{column}` replaced. */
  userSql(sql: string): string;
  /** `analyzed_table."<timestamp column>"` from the table's timestamp_columns; a build error when unset. */
  timestampColumn(kind: 'event' | 'ingestion'): string;
  /** The type snapshot of that timestamp column (`columnTypes` of the request), undefined when unknown. */
  timestampColumnType(kind: 'event' | 'ingestion'): string | undefined;
  /** The timestamp column's type as stored: its snapshot in any case, else the source's (`sourceColumnTypes`). */
  timestampColumnStoredType(kind: 'event' | 'ingestion'): string | undefined;
}

/** The SQL of an aggregate sensor: its value, and for accuracy sensors the reference value. */
export interface AggregateSql {
  actual: string;
  expected?: string;
}

/** The analyzed rows of a query, shared by the scan and the subquery sensors. */
export interface RowSource {
  /** `"schema"."table" AS analyzed_table` plus joins. */
  from: string;
  /** Conditions ANDed in the WHERE clause (table filter, partition window). */
  where: string[];
  /**
   * Grouping expressions (data grouping columns, then the partition period): what to GROUP BY, what to select
   * for it (text) and the output alias the parser reads.
   */
  groups: Array<{ expression: string; select: string; alias: string }>;
}

export interface SubqueryContext extends ScanContext {
  /** The check's filter (with tokens replaced), or undefined. */
  readonly checkFilter: string | undefined;
  readonly source: RowSource;
}

/**
 * Context of a failing-rows condition (error samples): the scan context of ONE sample query over the analyzed
 * rows, whose aggregate helpers do not add the check's filter (the sample query puts it in WHERE); `source` and
 * `checkFilter` as for a subquery sensor, for a condition that needs a subquery of its own (duplicates);
 * `leftJoin` adds a join to the sample query.
 */
export type FailingRowsContext = SubqueryContext;

/** A failing-rows condition and, when the sample is not the column's value, what to show as the sample. */
export interface FailingRowsSql {
  condition: string;
  /** SQL of the sampled value (cast to text); null: no value (the row ids identify the row). */
  value?: string | null;
}

export interface CustomQueryContext extends SensorSqlContext {
  /** Repository SQL with `{table}`, `{column}` (quoted, no alias) and `{alias}` replaced. */
  userSql(sql: string): string;
  /**
   * SQL with DQOps's name tokens of import_custom_result replaced by the bare names, as DQOps does (the query
   * quotes them itself where it must): `{schema_name}`, `{table_name}`, and `{column_name}` for a column sensor.
   */
  namesSql(sql: string): string;
}

export interface TableMetadataColumn {
  name: string;
  /** format_type() of the column, e.g. `character varying(20)`. */
  type: string;
  nullable: boolean;
  ordinal: number;
}

export interface TableMetadata {
  /** False when the table does not exist (or is not visible to the user). */
  found: boolean;
  columns: TableMetadataColumn[];
}

interface DefinitionBase {
  /** One line for the table of docs/sensors.md: what the value means. */
  meaning: string;
  /** True for column sensors. */
  needsColumn: boolean;
}

export type SensorDefinition =
  | (DefinitionBase & {
      kind: 'aggregate';
      /** False when the aggregate is user SQL that cannot take a FILTER clause; a check filter then moves to WHERE. */
      acceptsCheckFilter?: boolean;
      build(ctx: ScanContext): AggregateSql | string;
      /**
       * Error samples: a row-level condition selecting the rows this sensor counts as failing (the predicate of
       * its FILTER (WHERE …), or its negation for a sensor that measures the share of valid values). Absent when
       * the value has no failing rows to show (an aggregate of the values, a share with no failing side).
       */
      failingRows?(ctx: FailingRowsContext): string | FailingRowsSql;
    })
  | (DefinitionBase & {
      kind: 'subquery';
      /** A full SELECT returning the group aliases of `ctx.source.groups` and `actual_value`. */
      build(ctx: SubqueryContext): string;
      /** Error samples, as for an aggregate sensor. */
      failingRows?(ctx: FailingRowsContext): string | FailingRowsSql;
    })
  | (DefinitionBase & {
      kind: 'custom';
      /** A full SELECT returning `actual_value` (and optionally `expected_value`, `severity`). */
      build(ctx: CustomQueryContext): string;
      /** True when every returned row is a readout (import_custom_result); else the first row is. */
      manyRows?: boolean;
    })
  | (DefinitionBase & {
      kind: 'metadata';
      compute(metadata: TableMetadata, column: string | undefined): number | null;
    })
  | (DefinitionBase & { kind: 'availability' });
