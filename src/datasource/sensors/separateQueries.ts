/**
 * The sensor queries outside the merged scan: a subquery sensor (top values) over the same rows and groups;
 * a custom query the user wrote; the schema sensors of a table from pg_catalog (one query for all of them);
 * and the availability probe, whose failure is its readout.
 */
import { DqError, isSeverityNumber, type SeverityNumber } from '../../model/index.js';
import { newQueryState } from './buildTableQuery.js';
import { parseGroupedRows, toNumber } from './parseReadouts.js';
import type { PreparedSensor } from './prepareSensor.js';
import { quoteIdent } from './quoteIdent.js';
import { relationOf, replaceTokens, TABLE_ALIAS, tableRowSource, withoutTrailingSemicolons } from './rowSource.js';
import { checkFilterOf, createScanContext, tableRefIn } from './scanContext.js';
import { SensorBuildError, type CustomQueryContext, type SubqueryContext, type TableMetadata } from './sensorDefinition.js';
import { ALL_DATA_GROUP, type SensorQuery, type SensorReadout, type SensorReadouts, type TableQueryRequest } from './sensorTypes.js';

/** A subquery sensor over the request's rows, groups and partitions. */
export function buildSubquery(request: TableQueryRequest, sensor: PreparedSensor): SensorQuery {
  if (sensor.definition.kind !== 'subquery') throw new SensorBuildError(`${sensor.catalog.name} is not a subquery sensor`);
  const state = newQueryState(request);
  const grouping = sensor.flags.supportsGrouping;
  const source = tableRowSource(request, state.params, state.now, { grouping });
  const ctx = createScanContext(state, sensor.request, sensor.catalog, sensor.parameters, { applyCheckFilter: false });
  const filter = checkFilterOf(sensor.request);
  // Delegate to the scan context, keeping its getters lazy (`now` binds a parameter only when used).
  const subqueryContext = Object.assign(Object.create(ctx) as SubqueryContext, {
    checkFilter: filter === undefined ? undefined : ctx.userSql(filter),
    source: {
      from: `${source.table} as ${TABLE_ALIAS}`,
      where: source.where.length > 0 ? source.where : ['true'],
      groups: source.groups.map((g) => ({ expression: g.expression, alias: g.alias, select: g.select })),
    },
    leftJoin: (): string => {
      throw new SensorBuildError('joins are not available in a subquery sensor');
    },
  });
  const text = sensor.definition.build(subqueryContext);
  const columns = [{ id: sensor.request.id, actual: 'actual_value' }];
  const { groupName, partitioned } = source;
  return {
    kind: 'subquery',
    text,
    values: state.params.values,
    queryMode: 'extended',
    sensorIds: [sensor.request.id],
    // a subquery that also reads a reference (the number of expected values) names it expected_value
    parse: (rows) => parseGroupedRows(rows, groupName, partitioned, rows.length > 0 && 'expected_value' in rows[0] ? [{ ...columns[0], expected: 'expected_value' }] : columns),
  };
}

/** A query the user wrote (`sql_query`), with `{table}`, `{column}` (quoted name) and `{alias}` replaced. */
export function buildCustomQuery(request: TableQueryRequest, sensor: PreparedSensor): SensorQuery {
  if (sensor.definition.kind !== 'custom') throw new SensorBuildError(`${sensor.catalog.name} is not a custom query sensor`);
  const state = newQueryState(request);
  const table = relationOf(request);
  const columnName = sensor.request.column === undefined || sensor.request.column === '' ? undefined : quoteIdent(sensor.request.column);
  const ctx: CustomQueryContext = {
    sensorName: sensor.catalog.name,
    dialect: state.dialect,
    table,
    get now() {
      return state.now();
    },
    nowValue: state.nowValue,
    param: (name) => sensor.parameters.get(name) ?? null,
    bind: (value, type) => state.params.bind(value, type),
    tableRef: (name) => tableRefIn(request, name),
    userSql: (sql) => replaceTokens(withoutTrailingSemicolons(sql), table, columnName),
    namesSql: (sql) =>
      sql.replace(/\{(schema_name|table_name|column_name)\}/g, (token, name: string) => {
        if (name === 'schema_name') return request.schema;
        if (name === 'table_name') return request.table;
        return sensor.request.column === undefined || sensor.request.column === '' ? token : sensor.request.column;
      }),
  };
  const text = sensor.definition.build(ctx);
  const manyRows = sensor.definition.manyRows === true;
  const id = sensor.request.id;
  return {
    kind: 'custom',
    text,
    values: state.params.values,
    queryMode: 'extended',
    sensorIds: [id],
    parse: (rows) => {
      const chosen = manyRows ? rows : rows.slice(0, 1);
      const readouts: SensorReadout[] = chosen.map((row) => {
        const readout: SensorReadout = {
          dataGroup: typeof row.data_group === 'string' && row.data_group !== '' ? row.data_group : ALL_DATA_GROUP,
          actualValue: toNumber(row.actual_value),
        };
        if ('expected_value' in row) readout.expectedValue = toNumber(row.expected_value);
        if ('severity' in row) readout.severity = severityOf(toNumber(row.severity));
        if (row.time_period !== undefined && row.time_period !== null) {
          readout.timePeriod = row.time_period instanceof Date ? row.time_period.toISOString() : String(row.time_period);
        }
        return readout;
      });
      return new Map([[id, readouts]]);
    },
  };
}

/** One catalog query for all schema sensors of a table (the dialect's describeColumns). */
export function buildMetadataQuery(request: TableQueryRequest, sensors: readonly PreparedSensor[]): SensorQuery {
  const state = newQueryState(request);
  const text = state.dialect.describeColumns({ schema: request.schema, table: request.table, relation: relationOf(request) }, (value, type) => state.params.bind(value, type));
  return {
    kind: 'metadata',
    text,
    values: state.params.values,
    queryMode: 'extended',
    sensorIds: sensors.map((s) => s.request.id),
    parse: (rows) => {
      if (rows.length === 0) {
        throw new DqError('NOT_FOUND', `the table ${request.schema}.${request.table} does not exist (or is not visible to the data source's user)`);
      }
      const metadata: TableMetadata = {
        found: true,
        columns: rows
          .filter((row) => row.column_name !== null)
          .map((row) => ({ name: String(row.column_name), type: String(row.column_type), nullable: row.nullable === true, ordinal: Number(row.ordinal) })),
      };
      const readouts: SensorReadouts = new Map();
      for (const sensor of sensors) {
        if (sensor.definition.kind !== 'metadata') continue;
        readouts.set(sensor.request.id, [{ dataGroup: ALL_DATA_GROUP, actualValue: sensor.definition.compute(metadata, sensor.request.column) }]);
      }
      return readouts;
    },
  };
}

/**
 * Reads (at most) one row of the table (with the table's filter): 0 failures when it answers with a row, 1 when it
 * fails, and 1 when it answers with no row, as DQOps, whose probe finds no row to read its result from and counts
 * that as a failure (an empty table is reported unavailable).
 */
export function buildAvailabilityQuery(request: TableQueryRequest, sensors: readonly PreparedSensor[]): SensorQuery {
  const ids = sensors.map((s) => s.request.id);
  const readoutsOf = (failures: number): SensorReadouts => new Map(ids.map((id) => [id, [{ dataGroup: ALL_DATA_GROUP, actualValue: failures }]]));
  const table = relationOf(request);
  const filter = request.filter === undefined || request.filter.trim() === '' ? '' : ` where (${replaceTokens(withoutTrailingSemicolons(request.filter), table, undefined)})`;
  return {
    kind: 'availability',
    text: `select exists (select 1 from ${table} as ${TABLE_ALIAS}${filter}) as has_rows`,
    values: [],
    queryMode: 'extended',
    sensorIds: ids,
    // MySQL answers a boolean as 1
    parse: (rows) => readoutsOf(rows[0]?.has_rows === true || rows[0]?.has_rows === 1 ? 0 : 1),
    parseError: () => readoutsOf(1),
  };
}

/** The severity column of an imported custom result: 0 valid … 3 fatal, or null; any other value fails the query. */
function severityOf(value: number | null): SeverityNumber | null {
  if (value === null || isSeverityNumber(value)) return value;
  throw new DqError('INVALID_ARGUMENT', `the custom query's severity column must be 0, 1, 2, 3 or null, not ${value}`);
}
