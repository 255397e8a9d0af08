/**
 * The key of a stored check result or readout, as DQOps keys them: one check (where it is: connection, schema,
 * table, column; which check: type, time gradient, category, name, table comparison), one time period, one data
 * group. DQOps makes a row's id from the hashes of exactly these (its check hash already names the table,
 * column, type and time scale), so a later run of the same check for the same period and data group writes the
 * same id and replaces the row; dqctl keeps a unique index on them (migration 0010) and upserts.
 *
 * Execution errors are not results: they stay one row per failed run (DQOps keeps them in a table of their own).
 */

/** What the key reads of a row (fields of readResults.ts' CheckResultInput, named here so neither file imports the other). */
export interface ResultKeyFields {
  connectionName: string;
  schemaName: string;
  tableName: string;
  columnName?: string | null;
  checkType: string;
  timeGradient: string;
  checkCategory: string;
  checkName: string;
  tableComparison?: string | null;
  /** ISO-8601. */
  timePeriod: string;
  /** Default `all data`. */
  dataGroup?: string;
  /** ISO-8601; absent: stored at now(). */
  executedAt?: string;
  /** Set: an execution error, which has no key. */
  errorMessage?: string | null;
}

/**
 * The columns of the unique index `check_results_one_per_period`, as `on conflict` must name them. column_name and
 * table_comparison are null for a table-level check and a check outside comparisons: coalesced, because two NULLs
 * are distinct in a unique index before PostgreSQL 15's NULLS NOT DISTINCT. Migration 0010 holds its own copy
 * (a migration never changes); the upsert test on both engines proves the two agree.
 */
export const RESULT_KEY_SQL =
  "connection_name, schema_name, table_name, coalesce(column_name, ''), check_type, time_gradient, check_category, " +
  "check_name, coalesce(table_comparison, ''), time_period, data_group";

/** Only results and readouts are keyed (the index is partial). */
export const RESULT_KEY_PREDICATE = 'error_message is null';

/** A row's key in this process, the same fields as RESULT_KEY_SQL (a time period compared as an instant). */
export function resultKeyOf(row: ResultKeyFields): string {
  return JSON.stringify([
    row.connectionName,
    row.schemaName,
    row.tableName,
    row.columnName ?? '',
    row.checkType,
    row.timeGradient,
    row.checkCategory,
    row.checkName,
    row.tableComparison ?? '',
    Date.parse(row.timePeriod),
    row.dataGroup ?? 'all data',
  ]);
}

const isExecutionError = (row: ResultKeyFields): boolean => !!row.errorMessage;
/** A row without executedAt is stored at now(): newer than any the batch names. */
const executedMillis = (row: ResultKeyFields): number => (row.executedAt === undefined ? Infinity : Date.parse(row.executedAt));

/**
 * One row per key of a batch, as the store would keep them: the newest execution wins (the later row of the
 * batch when they tie), in the batch's order. A batch must not hold a key twice: one upsert statement cannot
 * update a row twice, and the incidents must count what is stored. Execution errors are all kept.
 */
export function oneRowPerResultKey<R extends ResultKeyFields>(rows: readonly R[]): R[] {
  const winner = new Map<string, number>();
  rows.forEach((row, index) => {
    if (isExecutionError(row)) return;
    const key = resultKeyOf(row);
    const known = winner.get(key);
    if (known === undefined || executedMillis(rows[known]) <= executedMillis(row)) winner.set(key, index);
  });
  if (winner.size === rows.filter((row) => !isExecutionError(row)).length) return [...rows];
  const kept = new Set(winner.values());
  return rows.filter((row, index) => isExecutionError(row) || kept.has(index));
}
