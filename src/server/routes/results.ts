import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, isJsonObject, type JsonObject, type JsonValue } from '../../model/index.js';
import type { CheckResultRow, CheckType, ErrorSampleRow, Store } from '../../store/store.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { notFound } from '../errorHandler.js';
import { checkName } from '../names.js';

/**
 * Results of check runs, read from the store's check_results and error_samples tables: the overview of the
 * newest results of each check, execution errors, error samples (JSON and CSV) and table comparison results,
 * for tables and columns and the three check types. Every route first makes sure the connection, the table and
 * the column exist as live objects (404 otherwise), so results of a table that left the configuration are
 * not served; the rows themselves are kept.
 *
 * Decisions where DQOps's documentation is silent:
 * - TABLE routes answer table-level checks only (column_name null); COLUMN routes that column's checks. Table
 *   comparison results are the exception: they answer the table's and its columns' comparison checks.
 * - `{timeScale}` daily / monthly selects the time gradient `day` / `month`.
 * - `month_start` / `month_end` (YYYY-MM or YYYY-MM-DD; a day selects its whole month) bound the time period of
 *   results and errors and the collection time of samples, in UTC, both months included. Without them every
 *   stored month is read.
 * - Overview: per check the newest `results_count` time periods, oldest first; in each period the newest result
 *   of each data group counts, and the worst of them is shown (an execution error only when no data group has a
 *   result).
 * - Errors and samples: `dataGroupsNames` lists the data groups of the returned entries; `dataGroup` echoes the
 *   data group filter (absent without one). Null fields are left out, as DQOps leaves them out.
 * - Comparison results: per check, its newest run (the rows sharing its newest executed_at); at most 10
 *   not-matching data groups, sorted.
 * - CSV download: see `toCsv` (header row, RFC 4180 quoting, spreadsheet formula guard).
 */

type TimeScale = 'daily' | 'monthly';

const GRADIENT_OF: Record<TimeScale, string> = { daily: 'day', monthly: 'month' };

const STATUS_OF_SEVERITY = ['valid', 'warning', 'error', 'fatal'] as const;
type Status = (typeof STATUS_OF_SEVERITY)[number] | 'execution_error';

/** Where the results are: a table, or one of its columns; with the objects that were looked up. */
export interface Target {
  connection: string;
  schema: string;
  table: string;
  /** undefined for a TABLE route. */
  column?: string;
  tableSpec: JsonObject;
  provider: string | null;
}

export interface Selection {
  checkType: CheckType;
  timeScale?: TimeScale;
}

export type Query = Record<string, unknown>;

export const TABLE_URL = '/connections/:connectionName/schemas/:schemaName/tables/:tableName';
export const COLUMN_URL = `${TABLE_URL}/columns/:columnName`;

const nameParam = (description: string) => ({ type: 'string', description });
const TABLE_PARAMS = {
  connectionName: nameParam('connection name'),
  schemaName: nameParam('schema name'),
  tableName: nameParam('table name; a "/" in it travels as %2F'),
};
const COLUMN_PARAMS = { ...TABLE_PARAMS, columnName: nameParam('column name') };
const TIME_SCALE_PARAM = { timeScale: { type: 'string', enum: ['daily', 'monthly'], description: 'CheckTimeScale' } };

export function paramsSchema(column: boolean, timeScale: boolean, extra: Record<string, unknown> = {}) {
  const properties = { ...(column ? COLUMN_PARAMS : TABLE_PARAMS), ...(timeScale ? TIME_SCALE_PARAM : {}), ...extra };
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** Both spellings of each query parameter (DQOps's clients send camelCase; the spec names snake_case). */
export function bothSpellingsQuery(params: Array<[string, string | null, Record<string, unknown>]>) {
  const properties: Record<string, unknown> = {};
  for (const [snake, camel, schema] of params) {
    properties[snake] = schema;
    if (camel) properties[camel] = schema;
  }
  return { type: 'object', properties };
}

const text = { type: 'string' };
const OVERVIEW_QUERY = bothSpellingsQuery([
  ['category', null, text],
  ['check_name', 'checkName', text],
  ['results_count', 'resultsCount', { type: 'integer', minimum: 1, maximum: 10_000 }],
]);
export const ERRORS_QUERY = bothSpellingsQuery([
  ['data_group', 'dataGroup', text],
  ['month_start', 'monthStart', text],
  ['month_end', 'monthEnd', text],
  ['check_name', 'checkName', text],
  ['category', null, text],
  ['table_comparison', 'tableComparison', text],
  ['max_results_per_check', 'maxResultsPerCheck', { type: 'integer', minimum: 1, maximum: 100_000 }],
]);

/** A query parameter in either spelling; an empty value counts as absent; two different values are a 400. */
export function queryParam<T>(query: Query, snake: string, camel: string | null = null): T | undefined {
  const values = [query[snake], camel ? query[camel] : undefined].filter((v) => v !== undefined && v !== '');
  if (values.length === 2 && values[0] !== values[1]) {
    throw new DqError('INVALID_ARGUMENT', `the query parameters ${snake} and ${camel} disagree; send one of them`);
  }
  return values[0] as T | undefined;
}

/** `YYYY-MM` or `YYYY-MM-DD` → the first instant of its month (UTC), or of the month after it (`end`). */
export function monthBound(value: string, what: string, end: boolean): string {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(value);
  const year = match ? Number(match[1]) : NaN;
  const month = match ? Number(match[2]) : NaN;
  const day = match?.[3] === undefined ? 1 : Number(match[3]);
  const valid =
    match !== null && month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!valid) throw new DqError('INVALID_ARGUMENT', `${what} must be a month as YYYY-MM or a date as YYYY-MM-DD, not ${JSON.stringify(value)}`);
  return new Date(Date.UTC(year, month - 1 + (end ? 1 : 0), 1)).toISOString();
}

export function monthRange(query: Query): { from?: string; to?: string } {
  const start = queryParam<string>(query, 'month_start', 'monthStart');
  const end = queryParam<string>(query, 'month_end', 'monthEnd');
  const from = start === undefined ? undefined : monthBound(start, 'month_start', false);
  const to = end === undefined ? undefined : monthBound(end, 'month_end', true);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new DqError('INVALID_ARGUMENT', `month_start ${start} is after month_end ${end}`);
  }
  return { from, to };
}

export async function targetOf(context: ServerContext, request: FastifyRequest, column: boolean): Promise<Target> {
  const params = request.params as Record<string, string>;
  const connection = checkName('connection name', params.connectionName);
  const schema = checkName('schema name', params.schemaName, { slashes: true });
  if (schema.includes('.')) throw new DqError('INVALID_ARGUMENT', 'schema name must not contain "."');
  const table = checkName('table name', params.tableName, { slashes: true });
  const columnName = column ? checkName('column name', params.columnName, { slashes: true }) : undefined;
  const source = await context.objects.get('source', connection);
  if (!source) throw notFound('connection', connection);
  const tableObject = await context.objects.get('table', `${connection}/${schema}.${table}`);
  if (!tableObject) throw notFound('table', `${schema}.${table}`);
  if (columnName !== undefined) {
    const columns = tableObject.spec.columns;
    if (!isJsonObject(columns) || !Object.prototype.hasOwnProperty.call(columns, columnName)) {
      throw new DqError('NOT_FOUND', `column ${JSON.stringify(columnName)} of table ${JSON.stringify(`${schema}.${table}`)} not found`);
    }
  }
  const provider = typeof source.spec.provider_type === 'string' ? source.spec.provider_type : null;
  return { connection, schema, table, column: columnName, tableSpec: tableObject.spec, provider };
}

export function selectionOf(request: FastifyRequest, checkType: CheckType): Selection {
  if (checkType === 'profiling') return { checkType };
  const timeScale = (request.params as { timeScale?: string }).timeScale;
  if (timeScale !== 'daily' && timeScale !== 'monthly') {
    throw new DqError('INVALID_ARGUMENT', `timeScale must be daily or monthly, not ${JSON.stringify(timeScale)}`);
  }
  return { checkType, timeScale };
}

/** The filter fields every read shares: the table, the column scope, the check type and time gradient. */
export function baseFilter(target: Target, selection: Selection) {
  return {
    connectionName: target.connection,
    schemaName: target.schema,
    tableName: target.table,
    columnName: target.column ?? null,
    checkType: selection.checkType,
    timeGradient: selection.timeScale ? GRADIENT_OF[selection.timeScale] : undefined,
  };
}

/** A row's check, as a map key: column, type, gradient, category, name, comparison. */
function checkKey(row: CheckResultRow | ErrorSampleRow): string {
  return JSON.stringify([row.columnName, row.checkType, row.timeGradient, row.checkCategory, row.checkName, row.tableComparison]);
}

/** Consecutive rows of one check (the store returns them grouped by check). */
export function groupByCheck<R extends CheckResultRow | ErrorSampleRow>(rows: R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const key = checkKey(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()];
}

export const epochMs = (iso: string): number => Date.parse(iso);
/** `2024-01-15T00:00:00.000Z` → `2024-01-15T00:00:00` (DQOps's local date-time, here in UTC). */
export const localDateTime = (iso: string): string => iso.slice(0, 19);

function displayText(timePeriod: string, timeGradient: string): string {
  switch (timeGradient) {
    case 'year':
      return timePeriod.slice(0, 4);
    case 'quarter':
    case 'month':
      return timePeriod.slice(0, 7);
    case 'week':
    case 'day':
      return timePeriod.slice(0, 10);
    case 'hour':
      return `${timePeriod.slice(0, 10)} ${timePeriod.slice(11, 13)}:00`;
    default:
      return `${timePeriod.slice(0, 10)} ${timePeriod.slice(11, 19)}`;
  }
}

function statusOf(row: CheckResultRow): Status {
  return row.severity === null ? 'execution_error' : STATUS_OF_SEVERITY[row.severity];
}

/** How bad a status is; an execution error ranks below every result, so a real result always shows. */
const STATUS_RANK: Record<Status, number> = { execution_error: -1, valid: 0, warning: 1, error: 2, fatal: 3 };

/** The object without its null and undefined fields (DQOps leaves nulls out of its JSON). */
export function withoutNulls(object: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== null && value !== undefined) out[key] = value as JsonValue;
  }
  return out;
}

/** The display name configured on the check in the table file, if any. */
export function checkDisplayName(target: Target, row: CheckResultRow | ErrorSampleRow): string | undefined {
  const holder = row.columnName === null ? target.tableSpec : target.tableSpec.columns;
  const spec = row.columnName === null ? holder : isJsonObject(holder) ? holder[row.columnName] : undefined;
  if (!isJsonObject(spec)) return undefined;
  let node: JsonValue | undefined = spec[`${row.checkType}_checks`];
  if (row.checkType !== 'profiling') {
    const scale = row.timeGradient === 'day' ? 'daily' : row.timeGradient === 'month' ? 'monthly' : undefined;
    node = scale && isJsonObject(node) ? node[scale] : undefined;
  }
  const path = row.tableComparison ? ['comparisons', row.tableComparison, row.checkName] : [row.checkCategory, row.checkName];
  for (const key of path) node = isJsonObject(node) ? node[key] : undefined;
  return isJsonObject(node) && typeof node.display_name === 'string' ? node.display_name : undefined;
}

async function overview(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
  const count = queryParam<number>(query, 'results_count', 'resultsCount') ?? 5;
  const rows = await store.checkResults({
    ...baseFilter(target, selection),
    checkCategory: queryParam<string>(query, 'category'),
    checkName: queryParam<string>(query, 'check_name', 'checkName'),
    newest: { of: 'periods', count },
  });
  return groupByCheck(rows).map((checkRows) => {
    // rows come newest period first, newest execution first: the first row of a period and data group is its latest
    const shown = new Map<string, CheckResultRow>();
    const seen = new Set<string>();
    for (const row of checkRows) {
      const groupKey = `${row.timePeriod}\u0000${row.dataGroup}`;
      if (seen.has(groupKey)) continue;
      seen.add(groupKey);
      const current = shown.get(row.timePeriod);
      if (!current || STATUS_RANK[statusOf(row)] > STATUS_RANK[statusOf(current)]) shown.set(row.timePeriod, row);
    }
    const periods = [...shown.values()].reverse();
    const first = checkRows[0];
    return withoutNulls({
      checkHash: first.checkHash,
      checkCategory: first.checkCategory,
      checkName: first.checkName,
      comparisonName: first.tableComparison,
      timePeriods: periods.map((r) => localDateTime(r.timePeriod)),
      timePeriodsUtc: periods.map((r) => epochMs(r.timePeriod)),
      executedAtTimestamps: periods.map((r) => epochMs(r.executedAt)),
      timePeriodDisplayTexts: periods.map((r) => displayText(r.timePeriod, r.timeGradient)),
      statuses: periods.map(statusOf),
      dataGroups: periods.map((r) => r.dataGroup),
      results: periods.map((r) => r.actualValue),
    });
  });
}

/** The filters of the errors and error samples operations. */
export function errorsFilter(target: Target, selection: Selection, query: Query) {
  return {
    ...baseFilter(target, selection),
    checkCategory: queryParam<string>(query, 'category'),
    checkName: queryParam<string>(query, 'check_name', 'checkName'),
    dataGroup: queryParam<string>(query, 'data_group', 'dataGroup'),
    tableComparison: queryParam<string>(query, 'table_comparison', 'tableComparison'),
    count: queryParam<number>(query, 'max_results_per_check', 'maxResultsPerCheck') ?? 100,
    months: monthRange(query),
  };
}

export function listHeader(target: Target, rows: Array<CheckResultRow | ErrorSampleRow>, dataGroup: string | undefined) {
  const first = rows[0];
  return {
    checkName: first.checkName,
    checkDisplayName: checkDisplayName(target, first),
    checkType: first.checkType,
    checkHash: first.checkHash,
    checkCategory: first.checkCategory,
    dataGroupsNames: [...new Set(rows.map((r) => r.dataGroup))].sort(),
    dataGroup,
  };
}

async function errors(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
  const { count, months, ...filter } = errorsFilter(target, selection, query);
  const rows = await store.checkResults({
    ...filter,
    timePeriodFrom: months.from,
    timePeriodTo: months.to,
    executionErrors: 'only',
    newest: { of: 'rows', count },
  });
  return groupByCheck(rows).map((checkRows) =>
    withoutNulls({
      ...listHeader(target, checkRows, filter.dataGroup),
      errorEntries: checkRows.map((row) =>
        withoutNulls({
          actualValue: row.actualValue,
          expectedValue: row.expectedValue,
          columnName: row.columnName,
          dataGroup: row.dataGroup,
          checkType: row.checkType,
          durationMs: row.durationMs,
          executedAt: epochMs(row.executedAt),
          timeGradient: row.timeGradient,
          timePeriod: localDateTime(row.timePeriod),
          provider: target.provider,
          qualityDimension: row.qualityDimension,
          sensorName: row.sensorName,
          readoutId: String(row.id),
          errorMessage: row.errorMessage,
          errorTimestamp: row.executedAt,
          tableComparison: row.tableComparison,
        }),
      ),
    }),
  );
}

async function sampleRows(store: Store, target: Target, selection: Selection, query: Query) {
  const { count, months, ...filter } = errorsFilter(target, selection, query);
  const rows = await store.errorSamples({ ...filter, collectedFrom: months.from, collectedTo: months.to, newestPerCheck: count });
  return { rows, dataGroup: filter.dataGroup };
}

function sampleEntry(target: Target, row: ErrorSampleRow): JsonObject {
  return withoutNulls({
    id: String(row.id),
    result: row.result,
    resultDataType: row.resultDataType,
    collectedAt: localDateTime(row.collectedAt),
    sampleIndex: row.sampleIndex,
    checkType: row.checkType,
    timeGradient: row.timeGradient,
    durationMs: row.durationMs,
    executedAt: row.executedAt === null ? null : epochMs(row.executedAt),
    rowId1: row.rowId1,
    rowId2: row.rowId2,
    rowId3: row.rowId3,
    rowId4: row.rowId4,
    rowId5: row.rowId5,
    columnName: row.columnName,
    dataGroup: row.dataGroup,
    provider: target.provider,
    qualityDimension: row.qualityDimension,
    sensorName: row.sensorName,
    tableComparison: row.tableComparison,
  });
}

async function errorSamples(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
  const { rows, dataGroup } = await sampleRows(store, target, selection, query);
  return groupByCheck(rows).map((checkRows) =>
    withoutNulls({ ...listHeader(target, checkRows, dataGroup), errorSamplesEntries: checkRows.map((row) => sampleEntry(target, row)) }),
  );
}

const CSV_COLUMNS: Array<[string, (row: ErrorSampleRow) => string | number | null]> = [
  ['checkName', (r) => r.checkName],
  ['checkCategory', (r) => r.checkCategory],
  ['checkType', (r) => r.checkType],
  ['timeGradient', (r) => r.timeGradient],
  ['columnName', (r) => r.columnName],
  ['dataGroup', (r) => r.dataGroup],
  ['sampleIndex', (r) => r.sampleIndex],
  ['result', (r) => r.result],
  ['resultDataType', (r) => r.resultDataType],
  ['rowId1', (r) => r.rowId1],
  ['rowId2', (r) => r.rowId2],
  ['rowId3', (r) => r.rowId3],
  ['rowId4', (r) => r.rowId4],
  ['rowId5', (r) => r.rowId5],
  ['collectedAt', (r) => r.collectedAt],
  ['executedAt', (r) => r.executedAt],
  ['sensorName', (r) => r.sensorName],
  ['qualityDimension', (r) => r.qualityDimension],
  ['tableComparison', (r) => r.tableComparison],
];

/**
 * One CSV field. RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled. Formula
 * guard: sampled values come from the monitored data, so a value a spreadsheet would run as a formula (starting
 * with `=`, `+`, `-`, `@`, a tab or CR) gets a leading `'`, which spreadsheets show as text; plain numbers such
 * as `-5` or `+1.5e3` are left alone, since no spreadsheet evaluates them as formulas.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let field = String(value);
  if (/^[=+\-@\t\r]/.test(field) && !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(field)) field = `'${field}`;
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** The error samples as CSV: a header row, then one line per sample, CRLF line ends (RFC 4180). */
export function toCsv(rows: ErrorSampleRow[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map(([, get]) => csvField(get(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvFileName(target: Target): string {
  const parts = [target.connection, target.schema, target.table, ...(target.column === undefined ? [] : [target.column])];
  return `${parts.join('_').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 150)}_error_samples.csv`;
}

interface ComparisonCounts {
  check_name: string;
  executed_at: number;
  valid_results: number;
  warnings: number;
  errors: number;
  fatals: number;
  execution_errors: number;
  not_matching_data_groups: string[];
}

const NOT_MATCHING_LIMIT = 10;

async function comparisonResults(store: Store, target: Target, selection: Selection, comparison: string): Promise<JsonObject> {
  const rows = await store.checkResults({
    ...baseFilter(target, selection),
    columnName: undefined,
    tableComparison: comparison,
    newest: { of: 'runs', count: 1 },
  });
  const tableResults: Record<string, ComparisonCounts> = {};
  const columnResults: Record<string, { column_name: string; column_comparison_results: Record<string, ComparisonCounts> }> = {};
  for (const checkRows of groupByCheck(rows)) {
    const first = checkRows[0];
    const notMatching = new Set<string>();
    const counts: ComparisonCounts = {
      check_name: first.checkName,
      executed_at: epochMs(first.executedAt),
      valid_results: 0,
      warnings: 0,
      errors: 0,
      fatals: 0,
      execution_errors: 0,
      not_matching_data_groups: [],
    };
    for (const row of checkRows) {
      const status = statusOf(row);
      if (status === 'valid') counts.valid_results++;
      else if (status === 'warning') counts.warnings++;
      else if (status === 'error') counts.errors++;
      else if (status === 'fatal') counts.fatals++;
      else counts.execution_errors++;
      if (status === 'warning' || status === 'error' || status === 'fatal') notMatching.add(row.dataGroup);
    }
    counts.not_matching_data_groups = [...notMatching].sort().slice(0, NOT_MATCHING_LIMIT);
    if (first.columnName === null) {
      tableResults[first.checkName] = counts;
    } else {
      columnResults[first.columnName] ??= { column_name: first.columnName, column_comparison_results: {} };
      columnResults[first.columnName].column_comparison_results[first.checkName] = counts;
    }
  }
  return { table_comparison_results: tableResults, column_comparison_results: columnResults } as unknown as JsonObject;
}

export async function resultsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const CHECK_TYPES: Array<{ type: CheckType; segment: string }> = [
    { type: 'profiling', segment: 'profiling' },
    { type: 'monitoring', segment: 'monitoring/:timeScale' },
    { type: 'partitioned', segment: 'partitioned/:timeScale' },
  ];

  for (const { type, segment } of CHECK_TYPES) {
    const timeScale = type !== 'profiling';
    for (const column of [false, true]) {
      const base = `${column ? COLUMN_URL : TABLE_URL}/${segment}`;
      const level = column ? 'column' : 'table';
      const params = paramsSchema(column, timeScale);
      const read = async (request: FastifyRequest) => ({
        target: await targetOf(context, request, column),
        selection: selectionOf(request, type),
        query: request.query as Query,
      });

      api.get(
        `${base}/overview`,
        {
          schema: {
            tags: ['check_results_overview'],
            operationId: `get_${level}_${type}_checks_overview`,
            summary: `get_${level}_${type}_checks_overview: the newest results of each ${level}-level ${type} check`,
            params,
            querystring: OVERVIEW_QUERY,
            response: { 200: arrayOf('CheckResultsOverviewDataModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return overview(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errors`,
        {
          schema: {
            tags: ['errors'],
            operationId: `get_${level}_${type}_errors`,
            summary: `get_${level}_${type}_errors: execution errors of ${level}-level ${type} checks`,
            params,
            querystring: ERRORS_QUERY,
            response: { 200: arrayOf('ErrorsListModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return errors(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errorsamples`,
        {
          schema: {
            tags: ['error_samples'],
            operationId: `get_${level}_${type}_error_samples`,
            summary: `get_${level}_${type}_error_samples: error samples of ${level}-level ${type} checks`,
            params,
            querystring: ERRORS_QUERY,
            response: { 200: arrayOf('ErrorSamplesListModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return errorSamples(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errorsamples/download`,
        {
          schema: {
            tags: ['error_samples'],
            operationId: `get_${level}_${type}_error_samples_download`,
            summary: `get_${level}_${type}_error_samples_download: the error samples as CSV (text/csv)`,
            params,
            querystring: ERRORS_QUERY,
          },
        },
        async (request, reply: FastifyReply) => {
          const { target, selection, query } = await read(request);
          const { rows } = await sampleRows(context.store, target, selection, query);
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${csvFileName(target)}"`)
            .send(toCsv(rows));
        },
      );
    }

    api.get(
      `${TABLE_URL}/${segment}/comparisons/:tableComparisonConfigurationName/results`,
      {
        schema: {
          tags: ['table_comparison_results'],
          operationId: `get_table_comparison_${type}_results`,
          summary: `get_table_comparison_${type}_results: the newest run of each check of a table comparison`,
          params: paramsSchema(false, timeScale, { tableComparisonConfigurationName: nameParam('table comparison name') }),
          response: { 200: ref('TableComparisonResultsModel') },
        },
      },
      async (request) => {
        const target = await targetOf(context, request, false);
        const selection = selectionOf(request, type);
        const name = checkName('table comparison name', (request.params as Record<string, string>).tableComparisonConfigurationName, { slashes: true });
        return comparisonResults(context.store, target, selection, name);
      },
    );
  }
}
