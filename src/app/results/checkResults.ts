import {
  isJsonObject,
  resultStatusOf,
  SEVERITY_NUMBERS,
  type JsonObject,
  type JsonValue,
  type ResultStatus,
  type TimeScale,
} from '../../model/index.js';
import type { CheckResultRow, CheckType, ErrorSampleRow, Store } from '../../store/store.js';
import { monthRange, queryParam, type ResultsQuery as Query } from './resultsQuery.js';

/**
 * The results of check runs as DQOps's REST API shapes them, read from the store's check_results and
 * error_samples: the overview of the newest results of each check, execution errors and error samples, for a
 * table or one of its columns and one check type. The route has already resolved the target (404 when the
 * connection, table or column is not a live object); these functions read and shape.
 *
 * Decisions where DQOps's documentation is silent:
 * - TABLE reads answer table-level checks only (column_name null); COLUMN reads that column's checks.
 * - `{timeScale}` daily / monthly selects the time gradient `day` / `month`.
 * - `month_start` / `month_end` (YYYY-MM or YYYY-MM-DD; a day selects its whole month) bound the time period of
 *   results and errors and the collection time of samples, in UTC, both months included. Without them every
 *   stored month is read.
 * - Overview: per check the newest `results_count` time periods, oldest first; in each period the newest result
 *   of each data group counts, and the worst of them is shown (an execution error only when no data group has a
 *   result).
 * - Errors and samples: `dataGroupsNames` lists the data groups of the returned entries; `dataGroup` echoes the
 *   data group filter (absent without one). Null fields are left out, as DQOps leaves them out.
 */
const GRADIENT_OF: Record<TimeScale, string> = { daily: 'day', monthly: 'month' };

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

export function statusOf(row: CheckResultRow): ResultStatus {
  return resultStatusOf(row.severity);
}

/** How bad a status is; an execution error ranks below every result, so a real result always shows. */
const STATUS_RANK: Record<ResultStatus, number> = { execution_error: -1, ...SEVERITY_NUMBERS };

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

export async function overview(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
  const count = queryParam<number>(query, 'results_count', 'resultsCount') ?? 5;
  const rows = await store.checkResults({
    ...baseFilter(target, selection),
    checkCategory: queryParam<string>(query, 'category'),
    checkName: queryParam<string>(query, 'check_name', 'checkName'),
    newest: { of: 'periods', count },
  });
  return groupByCheck(rows).map((checkRows) => {
    // rows come newest period first, newest execution first: the first row of a period and data group is its latest
    // (its one result, or the execution error of a later run, which the store keeps beside it)
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

export async function errors(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
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
          // DQOps's readout of the failed run (imported errors); dqctl's own: the stored row's id
          readoutId: row.readoutId ?? String(row.id),
          errorMessage: row.errorMessage,
          errorTimestamp: row.executedAt,
          tableComparison: row.tableComparison,
        }),
      ),
    }),
  );
}

export async function sampleRows(store: Store, target: Target, selection: Selection, query: Query) {
  const { count, months, ...filter } = errorsFilter(target, selection, query);
  const rows = await store.errorSamples({ ...filter, collectedFrom: months.from, collectedTo: months.to, newestPerCheck: count });
  return { rows, dataGroup: filter.dataGroup };
}

function sampleEntry(target: Target, row: ErrorSampleRow): JsonObject {
  return withoutNulls({
    id: row.dqopsId ?? String(row.id),
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

export async function errorSamples(store: Store, target: Target, selection: Selection, query: Query): Promise<JsonObject[]> {
  const { rows, dataGroup } = await sampleRows(store, target, selection, query);
  return groupByCheck(rows).map((checkRows) =>
    withoutNulls({ ...listHeader(target, checkRows, dataGroup), errorSamplesEntries: checkRows.map((row) => sampleEntry(target, row)) }),
  );
}
