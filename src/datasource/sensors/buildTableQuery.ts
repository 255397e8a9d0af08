/**
 * The merged scan: every aggregate sensor of one table, check type and time scale in ONE SELECT over the
 * table, one aliased column per sensor (`s<n>_<sensor>`), grouped by the data grouping columns and, for
 * partitioned checks, by the partition's day or month over the incremental time window.
 */
import { DqError } from '../../model/index.js';
import { parseGroupedRows, type ValueColumns } from './parseReadouts.js';
import { prepareSensor, type PreparedSensor } from './prepareSensor.js';
import { quoteIdent } from './quoteIdent.js';
import { dialectOf, hasDataGrouping, TABLE_ALIAS, tableRowSource } from './rowSource.js';
import { checkFilterOf, createScanContext, type QueryState } from './scanContext.js';
import { SensorBuildError } from './sensorDefinition.js';
import type { SensorQuery, TableQueryRequest } from './sensorTypes.js';
import { SqlParameters } from './sqlParameters.js';
import { templateQuery, type TemplateColumn } from './templateQueries.js';

const MAX_ALIAS_LENGTH = 60;

export interface ScanOptions {
  /** False: the sensors' values are not split by the request's data grouping (sensors that cannot be). */
  grouping: boolean;
  /** A check filter moved to WHERE (a single sensor whose aggregate cannot take a FILTER clause). */
  checkFilterInWhere?: string;
  /** Custom sensors whose rendered query reads the scan's rows and groups: their value expressions join it. */
  templateColumns?: readonly TemplateColumn[];
}

export function newQueryState(request: TableQueryRequest): QueryState {
  const dialect = dialectOf(request);
  const params = new SqlParameters(dialect);
  const now = request.now ?? new Date();
  return { request, dialect, params, now: () => params.bind(now, 'timestamptz'), nowValue: now, joins: [] };
}

function aliasOf(index: number, sensorName: string): string {
  const name = sensorName.slice(sensorName.lastIndexOf('/') + 1);
  return `s${index + 1}_${name}`.slice(0, MAX_ALIAS_LENGTH);
}

/** Builds the scan of prepared sensors; throws SensorBuildError naming the first sensor that cannot be built. */
export function buildScan(request: TableQueryRequest, sensors: readonly PreparedSensor[], options: ScanOptions): SensorQuery {
  const state = newQueryState(request);
  const source = tableRowSource(request, state.params, state.now, { grouping: options.grouping });
  const select = source.groups.map((g) => `${g.select} as ${g.alias}`);
  const columns: ValueColumns[] = [];
  sensors.forEach((sensor, index) => {
    if (sensor.definition.kind !== 'aggregate') throw new SensorBuildError(`${sensor.catalog.name} is not an aggregate`);
    const ctx = createScanContext(state, sensor.request, sensor.catalog, sensor.parameters, { applyCheckFilter: options.checkFilterInWhere === undefined });
    let built;
    try {
      built = sensor.definition.build(ctx);
    } catch (error) {
      if (error instanceof SensorBuildError) throw new SensorBuildError(`sensor ${JSON.stringify(sensor.request.id)}: ${error.message}`);
      throw error;
    }
    const sql = typeof built === 'string' ? { actual: built } : built;
    const alias = aliasOf(index, sensor.catalog.name);
    select.push(`${state.dialect.toDouble(sql.actual)} as ${quoteIdent(alias)}`);
    const column: ValueColumns = { id: sensor.request.id, actual: alias };
    if (sql.expected !== undefined) {
      column.expected = `${alias}__expected`;
      select.push(`${state.dialect.toDouble(sql.expected)} as ${quoteIdent(column.expected)}`);
    }
    columns.push(column);
  });
  for (const template of options.templateColumns ?? []) {
    const alias = aliasOf(columns.length, template.id.replace(/[^A-Za-z0-9_]/g, '_')).replace(/^s(\d+)_/, 'c$1_');
    select.push(`(${template.actual})::double precision as ${quoteIdent(alias)}`);
    const column: ValueColumns = { id: template.id, actual: alias };
    if (template.expected !== undefined) {
      column.expected = `${alias}__expected`;
      select.push(`(${template.expected})::double precision as ${quoteIdent(column.expected)}`);
    }
    columns.push(column);
  }
  const where = [...source.where];
  if (options.checkFilterInWhere !== undefined) {
    const ctx = createScanContext(state, sensors[0]!.request, sensors[0]!.catalog, sensors[0]!.parameters, { applyCheckFilter: false });
    where.push(`(${ctx.userSql(options.checkFilterInWhere)})`);
  }
  const lines = [
    'select',
    select.map((item) => `  ${item}`).join(',\n'),
    `from ${source.table} as ${TABLE_ALIAS}`,
    ...state.joins.map((join) => `  ${join.sql}`),
  ];
  if (where.length > 0) lines.push(`where ${where.join('\n  and ')}`);
  if (source.groups.length > 0) {
    lines.push(`group by ${source.groups.map((g) => g.expression).join(', ')}`);
    lines.push(`order by ${source.groups.map((g) => g.alias).join(', ')}`);
  }
  const { groupName, partitioned } = source;
  return {
    kind: 'scan',
    text: lines.join('\n'),
    values: state.params.values,
    queryMode: 'extended',
    sensorIds: columns.map((c) => c.id),
    parse: (rows) => parseGroupedRows(rows, groupName, partitioned, columns),
  };
}

/**
 * ONE query measuring every given sensor of the table in one scan. All sensors must be aggregates that can be
 * merged under the request's grouping and partitioning; use planSensorQueries for a mixed set (it sets aside
 * what cannot be merged and rejects what cannot be built). Throws DqError INVALID_ARGUMENT otherwise.
 */
export function buildTableQuery(request: TableQueryRequest): SensorQuery {
  if (request.sensors.length === 0) throw new DqError('INVALID_ARGUMENT', 'buildTableQuery: no sensors');
  const ids = new Set<string>();
  const prepared: PreparedSensor[] = [];
  try {
    for (const sensor of request.sensors) {
      if (ids.has(sensor.id)) throw new SensorBuildError(`duplicate sensor id ${JSON.stringify(sensor.id)}`);
      ids.add(sensor.id);
      const one = prepareSensor(sensor, request);
      const why = whyNotMergeable(one, request, request.sensors.length);
      if (why !== undefined) throw new SensorBuildError(`sensor ${JSON.stringify(sensor.id)} (${sensor.sensorName}) ${why}`);
      prepared.push(one);
    }
    const filter = prepared.length === 1 && !acceptsCheckFilter(prepared[0]!) ? checkFilterOf(prepared[0]!.request) : undefined;
    return buildScan(request, prepared, { grouping: true, ...(filter === undefined ? {} : { checkFilterInWhere: filter }) });
  } catch (error) {
    if (error instanceof SensorBuildError) throw new DqError('INVALID_ARGUMENT', error.message);
    throw error;
  }
}

export function acceptsCheckFilter(sensor: PreparedSensor): boolean {
  return sensor.definition.kind !== 'aggregate' || sensor.definition.acceptsCheckFilter !== false;
}

/** Why a prepared sensor cannot join a merged scan of `count` sensors under this request; undefined when it can. */
export function whyNotMergeable(sensor: PreparedSensor, request: TableQueryRequest, count: number): string | undefined {
  if (sensor.definition.kind !== 'aggregate') return `needs a query of its own (${sensor.definition.kind})`;
  if (count > 1 && sensor.flags.disableMergingQueries) return 'must not be merged with other sensors';
  if (count > 1 && !acceptsCheckFilter(sensor) && checkFilterOf(sensor.request) !== undefined) {
    return 'has a check filter its aggregate cannot take; it needs a query of its own';
  }
  if (hasDataGrouping(request) && !sensor.flags.supportsGrouping) {
    return 'does not support data grouping';
  }
  return undefined;
}

/**
 * One query per sensor of a scan: when a merged scan fails (a sensor whose SQL does not fit the column's type,
 * e.g. min_value on a text column), the runner re-runs its sensors one by one to pin the error on the sensor
 * that caused it and still measure the others.
 */
export function splitScan(request: TableQueryRequest, query: SensorQuery): SensorQuery[] {
  return query.sensorIds.map((id) => {
    const sensor = request.sensors.find((s) => s.id === id);
    if (sensor === undefined) throw new DqError('INVALID_ARGUMENT', `splitScan: the request has no sensor ${JSON.stringify(id)}`);
    if (sensor.template !== undefined) return templateQuery(request, [{ sensor, fragments: undefined }]);
    const prepared = prepareSensor(sensor, request);
    const filter = acceptsCheckFilter(prepared) ? undefined : checkFilterOf(sensor);
    return buildScan(request, [prepared], { grouping: hasDataGrouping(request) && prepared.flags.supportsGrouping, ...(filter === undefined ? {} : { checkFilterInWhere: filter }) });
  });
}
