/**
 * Error samples: for one check, the rows its sensor counts as failing, as the offending value (text) and up to
 * five row ids, in ONE query over the same analyzed rows as the sensor (the table's filter, the partition window
 * of partitioned checks, the check's filter) limited to `limit` rows. The failing rows are the sensor
 * definition's `failingRows` condition, the row-level form of the predicate its aggregate counts, so a sample is
 * exactly a row the check's value is made of. With a data grouping, each sample is named by its data group as
 * the sensor's readouts are. Identifiers are quoted, values (the limit, the sensor's parameters) bound.
 */
import { DqError } from '../../model/index.js';
import { newQueryState } from './buildTableQuery.js';
import { dataGroupOf } from './parseReadouts.js';
import { prepareSensor } from './prepareSensor.js';
import { column, TABLE_ALIAS, tableRowSource } from './rowSource.js';
import { checkFilterOf, createScanContext } from './scanContext.js';
import { SENSOR_DEFINITIONS } from './definitions/index.js';
import { SensorBuildError, type FailingRowsContext } from './sensorDefinition.js';
import type { TableQueryRequest } from './sensorTypes.js';

/** At most this many row id columns (row_id_1 … row_id_5 of the store). */
export const MAX_ID_COLUMNS = 5;
/** Longer sampled values are cut to this many characters. */
export const MAX_SAMPLE_LENGTH = 4000;

export interface ErrorSamplesOptions {
  /** The most rows to return (max_results_per_check). */
  limit: number;
  /** Columns identifying a row (primary key columns, or `id`), at most five; the samples are ordered by them. */
  idColumns: readonly string[];
}

export interface ErrorSample {
  /** `all data`, or the data group's name as the sensors name it. */
  dataGroup: string;
  /** The offending value as text (cut to MAX_SAMPLE_LENGTH characters); null for a NULL or a table-level sample. */
  value: string | null;
  /** One entry per id column: the row's id values as text. */
  rowIds: Array<string | null>;
}

export interface ErrorSamplesQuery {
  text: string;
  values: unknown[];
  queryMode: 'extended';
  sensorId: string;
  /** True when `value` is the sensor's column (its data type describes the samples); false for a computed value. */
  valueIsColumn: boolean;
  parse(rows: readonly Record<string, unknown>[]): ErrorSample[];
}

const VALUE_ALIAS = 'sample_value';

/** True when the sensor's definition can select its failing rows (what the error samplers run). */
export function errorSamplingSupported(sensorName: string): boolean {
  const definition = SENSOR_DEFINITIONS.get(sensorName);
  return (definition?.kind === 'aggregate' || definition?.kind === 'subquery') && definition.failingRows !== undefined;
}

/**
 * `SELECT <groups>, <value>::text, <id columns>::text FROM table WHERE <table filter> AND <check filter> AND
 * <failing rows> ORDER BY <id columns> LIMIT $n` for the sensor `sensorId` of the request. Throws DqError
 * INVALID_ARGUMENT when the sensor cannot be built or has no failing rows to sample.
 */
export function buildErrorSamplesQuery(request: TableQueryRequest, sensorId: string, options: ErrorSamplesOptions): ErrorSamplesQuery {
  const { limit, idColumns } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new DqError('INVALID_ARGUMENT', `the error samples limit must be a positive integer, not ${limit}`);
  if (idColumns.length > MAX_ID_COLUMNS) throw new DqError('INVALID_ARGUMENT', `at most ${MAX_ID_COLUMNS} id columns, not ${idColumns.length}`);
  const sensor = request.sensors.find((s) => s.id === sensorId);
  if (sensor === undefined) throw new DqError('INVALID_ARGUMENT', `buildErrorSamplesQuery: the request has no sensor ${JSON.stringify(sensorId)}`);
  try {
    const prepared = prepareSensor(sensor, request);
    const { definition } = prepared;
    if ((definition.kind !== 'aggregate' && definition.kind !== 'subquery') || definition.failingRows === undefined) {
      throw new SensorBuildError(`the sensor ${sensor.sensorName} has no failing rows to sample`);
    }
    const state = newQueryState(request);
    const source = tableRowSource(request, state.params, state.now, { grouping: prepared.flags.supportsGrouping });
    const scan = createScanContext(state, sensor, prepared.catalog, prepared.parameters, { applyCheckFilter: false });
    const filter = checkFilterOf(sensor);
    const checkFilter = filter === undefined ? undefined : scan.userSql(filter);
    // Delegates to the scan context, keeping its getters lazy (`now` binds a parameter only when used).
    const ctx = Object.assign(Object.create(scan) as FailingRowsContext, {
      checkFilter,
      source: {
        from: `${source.table} as ${TABLE_ALIAS}`,
        where: source.where.length > 0 ? source.where : ['true'],
        groups: source.groups.map((g) => ({ expression: g.expression, alias: g.alias, select: g.select })),
      },
    });
    const built = definition.failingRows(ctx);
    const failing = typeof built === 'string' ? { condition: built } : built;
    const hasColumn = sensor.column !== undefined && sensor.column !== '';
    const valueIsColumn = failing.value === undefined && hasColumn;
    const value =
      failing.value === undefined ? (hasColumn ? scan.text : state.dialect.toText('null')) : failing.value === null ? state.dialect.toText('null') : state.dialect.toText(failing.value);
    const select = [
      ...source.groups.map((g) => `${g.select} as ${g.alias}`),
      `left(${value}, ${state.params.bind(MAX_SAMPLE_LENGTH, 'integer')}) as ${VALUE_ALIAS}`,
      ...idColumns.map((id, index) => `${state.dialect.toText(column(id))} as row_id_${index + 1}`),
    ];
    const where = [...source.where];
    if (checkFilter !== undefined) where.push(`(${checkFilter})`);
    where.push(`(${failing.condition})`);
    const lines = [
      'select',
      select.map((item) => `  ${item}`).join(',\n'),
      `from ${source.table} as ${TABLE_ALIAS}`,
      ...state.joins.map((join) => `  ${join.sql}`),
      `where ${where.join('\n  and ')}`,
    ];
    if (idColumns.length > 0) lines.push(`order by ${idColumns.map((id) => column(id)).join(', ')}`);
    lines.push(state.dialect.limit(state.params.bind(limit, 'bigint')));
    const { groupName } = source;
    const idCount = idColumns.length;
    return {
      text: lines.join('\n'),
      values: state.params.values,
      queryMode: 'extended',
      sensorId,
      valueIsColumn,
      parse: (rows) =>
        rows.map((row) => ({
          dataGroup: dataGroupOf(row, groupName),
          value: textOf(row[VALUE_ALIAS]),
          rowIds: Array.from({ length: idCount }, (_, index) => textOf(row[`row_id_${index + 1}`])),
        })),
    };
  } catch (error) {
    if (error instanceof SensorBuildError) throw new DqError('INVALID_ARGUMENT', `sensor ${JSON.stringify(sensorId)}: ${error.message}`);
    throw error;
  }
}

function textOf(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
