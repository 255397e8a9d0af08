/**
 * The ScanContext a sensor definition builds its aggregate in: one per sensor, sharing the query's bound
 * parameters and joins. It resolves the column, the parameters and the check's filter, and turns build problems
 * (no column, no timestamp column) into SensorBuildErrors that reject only that sensor.
 */
import type { CatalogSensor } from '../../catalog/index.js';
import type { JsonValue } from '../../model/index.js';
import type { SqlDialect } from '../dialects/dialect.js';
import { quoteIdent, quoteQualified } from './quoteIdent.js';
import { column, relationOf, replaceTokens, TABLE_ALIAS, withoutTrailingSemicolons } from './rowSource.js';
import { SensorBuildError, type ScanContext } from './sensorDefinition.js';
import { timestampColumnName, type SensorRequest, type TableQueryRequest } from './sensorTypes.js';
import type { SqlParameters } from './sqlParameters.js';

export interface JoinClause {
  key: string;
  alias: string;
  sql: string;
}

/** Shared by all sensors of one query. */
export interface QueryState {
  request: TableQueryRequest;
  dialect: SqlDialect;
  params: SqlParameters;
  /** The bound run start time (bound on first use: an unused parameter would have no type). */
  now: () => string;
  nowValue: Date;
  joins: JoinClause[];
}

export function checkFilterOf(sensor: SensorRequest): string | undefined {
  const filter = sensor.parameters?.filter;
  return typeof filter === 'string' && filter.trim() !== '' ? withoutTrailingSemicolons(filter) : undefined;
}

/**
 * `table` in the analyzed table's schema, or `schema.table` split on the first dot: the quoted name, or what the
 * request's `tableRelation` reads for it (a DuckDB table's files).
 */
export function tableRefIn(request: Pick<TableQueryRequest, 'schema' | 'tableRelation'>, name: string): string {
  if (name.trim() === '') throw new SensorBuildError('a table name parameter is empty');
  const dot = name.indexOf('.');
  const [schema, table] = dot < 0 ? [request.schema, name] : [name.slice(0, dot), name.slice(dot + 1)];
  if (request.tableRelation === undefined) return quoteQualified(schema, table);
  try {
    return request.tableRelation(schema, table);
  } catch (error) {
    throw new SensorBuildError(`the table ${JSON.stringify(name)} cannot be read: ${(error as Error).message}`);
  }
}

export function createScanContext(
  state: QueryState,
  sensor: SensorRequest,
  catalogSensor: CatalogSensor,
  parameters: ReadonlyMap<string, JsonValue>,
  options: { applyCheckFilter: boolean },
): ScanContext {
  const { request, params } = state;
  const table = relationOf(request);
  const requireColumn = (): string => {
    if (sensor.column === undefined || sensor.column === '') throw new SensorBuildError(`the column sensor ${sensor.sensorName} needs a column`);
    return column(sensor.column);
  };
  const columnSql = sensor.column === undefined || sensor.column === '' ? undefined : column(sensor.column);
  const userSql = (sql: string): string => {
    const replaced = replaceTokens(withoutTrailingSemicolons(sql), table, columnSql);
    if (columnSql === undefined && replaced.includes('{column}')) throw new SensorBuildError('the SQL uses {column} but the sensor has no column');
    return replaced;
  };
  const rawFilter = options.applyCheckFilter ? checkFilterOf(sensor) : undefined;
  const checkFilter = rawFilter === undefined ? undefined : userSql(rawFilter);

  const aggregate = (call: string, condition?: string): string => {
    const conditions = [condition, checkFilter === undefined ? undefined : `(${checkFilter})`].filter((c): c is string => c !== undefined);
    return conditions.length === 0 ? call : state.dialect.filtered(call, conditions.join(' and '));
  };

  return {
    sensorName: catalogSensor.name,
    dialect: state.dialect,
    table,
    get now() {
      return state.now();
    },
    nowValue: state.nowValue,
    param: (name) => {
      if (!parameters.has(name)) throw new SensorBuildError(`the sensor ${catalogSensor.name} has no parameter "${name}"`);
      return parameters.get(name)!;
    },
    bind: (value, type) => params.bind(value, type),
    tableRef: (name) => tableRefIn(request, name),
    get column() {
      return requireColumn();
    },
    get text() {
      return state.dialect.toText(requireColumn(), request.columnTypes?.[sensor.column ?? '']);
    },
    columnType: sensor.column === undefined ? undefined : request.columnTypes?.[sensor.column],
    tableColumns: Object.keys(request.columnTypes ?? {}),
    aggregate,
    count: (condition) => aggregate('count(*)', condition),
    countValues: (condition) => aggregate(`count(${requireColumn()})`, condition),
    percent: (numerator, denominator, empty) =>
      `case when ${denominator} = 0 then ${empty === null ? 'null' : String(empty)} else 100.0 * ${numerator} / ${denominator} end`,
    leftJoin: (subquery, on) => {
      const key = `${subquery}\u0000${on('\u0001')}`;
      const existing = state.joins.find((join) => join.key === key);
      if (existing !== undefined) return existing.alias;
      const alias = `joined_${state.joins.length + 1}`;
      state.joins.push({ key, alias, sql: `left join (${subquery}) as ${alias} on ${on(alias)}` });
      return alias;
    },
    userSql,
    timestampColumn: (kind) => {
      const name = timestampColumnName(request, kind);
      if (name === undefined || name === '') {
        throw new SensorBuildError(`${catalogSensor.name} needs timestamp_columns.${kind}_timestamp_column of the table`);
      }
      return `${TABLE_ALIAS}.${quoteIdent(name)}`;
    },
    timestampColumnType: (kind) => {
      const name = timestampColumnName(request, kind);
      return name === undefined ? undefined : request.columnTypes?.[name];
    },
    timestampColumnStoredType: (kind) => {
      const name = timestampColumnName(request, kind);
      return name === undefined ? undefined : (request.columnTypes?.[name] ?? request.sourceColumnTypes?.[name]);
    },
  };
}
