import { DqError, toInt64, toSeverityNumber, type Int64, type CheckType, type SeverityNumber } from '../model/index.js';
import { isoTimestamp, type SqlParam, type SqlQueryable } from './sql/sqlClient.js';
import { insertJsonRecords, type RecordColumn } from './sql/jsonChunks.js';
import { oneRowPerResultKey, RESULT_KEY_PREDICATE, RESULT_KEY_SQL } from './resultKey.js';
import { refreshTableStatus } from './tableStatus.js';

/**
 * Check results and error samples (tables of migration 0002): rows written by check runs, read by the
 * results API. Reads take a filter on one table and return plain rows, newest first within each check; every
 * value is bound, never spliced into SQL (the only text chosen at run time is one of three fixed window
 * expressions). A "check" here is one configured check on one table or column: the same connection, schema,
 * table, column, check type, time gradient, category, check name and table comparison.
 *
 * One result (or readout) per check, time period and data group (resultKey.ts): a later run replaces it, so every
 * read sees that one row; execution errors are added, one per failed run.
 *
 * Contract for writers (tests, the check runner): check hashes are 64-bit integers (numbers within ±2^53, bigints
 * beyond, model/int64.ts); all rows of one run of one check share its `executedAt`; timestamps are ISO-8601 strings.
 */
export { CHECK_TYPES, type CheckType } from '../model/index.js';

export interface CheckResultInput {
  connectionName: string;
  schemaName: string;
  tableName: string;
  /** null (or absent) for a table-level check. */
  columnName?: string | null;
  checkType: CheckType;
  /** `day`, `month`, … (the time scale of the check; profiling checks use what the runner records). */
  timeGradient: string;
  checkCategory: string;
  checkName: string;
  checkHash: Int64;
  sensorName?: string | null;
  qualityDimension?: string | null;
  /** Start of the time period the result is for (ISO-8601). */
  timePeriod: string;
  /** Default `all data`. */
  dataGroup?: string;
  actualValue?: number | null;
  expectedValue?: number | null;
  /** 0 valid, 1 warning, 2 error, 3 fatal; null for an execution error (then `errorMessage` is set). */
  severity?: SeverityNumber | null;
  durationMs?: number | null;
  /** Default: now. */
  executedAt?: string;
  /** The table comparison the check belongs to, if any. */
  tableComparison?: string | null;
  /** Set for an execution error (the sensor or the rule failed). */
  errorMessage?: string | null;
  /**
   * false: the check's rules gave no verdict on this readout (too little history, no actual value), so it is a
   * sensor readout only, not a check result (DQOps stores none then). Default true.
   */
  verdict?: boolean;
  /** The actual value a rule reported instead of the readout (max_failures: the count of failures). */
  ruleActualValue?: number | null;
}

/**
 * A stored row as a reader sees it: `actualValue` is the result's (the rule's own value where it gave one) when
 * reading results, the sensor's readout when reading readouts.
 */
export type CheckResultRow = {
  id: number;
  dqopsId?: string;
  /** An imported execution error: the id of the DQOps readout it concerns (DQOps's `readout_id`). */
  readoutId?: string;
} & Required<Omit<CheckResultInput, 'ruleActualValue'>>;

export interface ErrorSampleInput {
  connectionName: string;
  schemaName: string;
  tableName: string;
  columnName?: string | null;
  checkType: CheckType;
  timeGradient: string;
  checkCategory: string;
  checkName: string;
  checkHash: Int64;
  sensorName?: string | null;
  qualityDimension?: string | null;
  dataGroup?: string;
  sampleIndex: number;
  result?: string | null;
  resultDataType?: string | null;
  rowId1?: string | null;
  rowId2?: string | null;
  rowId3?: string | null;
  rowId4?: string | null;
  rowId5?: string | null;
  /** Default: now. */
  collectedAt?: string;
  executedAt?: string | null;
  durationMs?: number | null;
  tableComparison?: string | null;
}

export type ErrorSampleRow = { id: number; dqopsId?: string } & Required<ErrorSampleInput>;

/** What both reads filter on. Optional fields that are absent do not filter. */
export interface ResultsFilterBase {
  connectionName: string;
  schemaName: string;
  tableName: string;
  /** A column's rows; `null`: table-level rows only; absent: all rows of the table. */
  columnName?: string | null;
  checkType?: CheckType;
  timeGradient?: string;
  checkCategory?: string;
  checkName?: string;
  dataGroup?: string;
  tableComparison?: string;
}

export interface CheckResultFilter extends ResultsFilterBase {
  /** `time_period >= from` (ISO-8601). */
  timePeriodFrom?: string;
  /** `time_period < to` (ISO-8601). */
  timePeriodTo?: string;
  /** `only`: execution errors only; `exclude`: results only; absent: both. */
  executionErrors?: 'only' | 'exclude';
  /**
   * Keep, for each check, only its newest `count` time periods (all rows of those periods), rows (by executedAt),
   * or runs (the rows sharing one executedAt). Applied after the other filters.
   */
  newest?: { of: 'periods' | 'rows' | 'runs'; count: number };
  /**
   * `results` (default): check results only, each with the rule's actual value where it reported one.
   * `readouts`: every sensor readout, with or without a verdict, each with the sensor's value (what the rules'
   * history and DQOps's sensor_readouts read).
   */
  read?: 'results' | 'readouts';
}

export interface ErrorSampleFilter extends ResultsFilterBase {
  /** `collected_at >= from` (ISO-8601). */
  collectedFrom?: string;
  /** `collected_at < to` (ISO-8601). */
  collectedTo?: string;
  /** Keep the newest `count` samples of each check (newest collection first, then by sample index). */
  newestPerCheck?: number;
}

/** The columns that name one check; window functions partition by them (connection, schema, table are fixed). */
const CHECK_PARTITION = 'r.column_name, r.check_type, r.time_gradient, r.check_category, r.check_name, r.table_comparison';
const CHECK_ORDER =
  'r.column_name collate "C" nulls first, r.check_type, r.time_gradient collate "C", r.check_category collate "C", ' +
  'r.check_name collate "C", r.table_comparison collate "C" nulls first';

const RANKS = {
  none: '1',
  periods: `dense_rank() over (partition by ${CHECK_PARTITION} order by r.time_period desc)`,
  rows: `row_number() over (partition by ${CHECK_PARTITION} order by r.executed_at desc, r.time_period desc, r.id desc)`,
  runs: `dense_rank() over (partition by ${CHECK_PARTITION} order by r.executed_at desc)`,
} as const;

const RESULT_COLUMNS = `r.id, r.connection_name, r.schema_name, r.table_name, r.column_name, r.check_type, r.time_gradient,
  r.check_category, r.check_name, r.check_hash, r.sensor_name, r.quality_dimension,
  ${isoTimestamp('r.time_period')} as time_period, r.data_group, r.actual_value, r.rule_actual_value, r.expected_value,
  r.severity, r.duration_ms, ${isoTimestamp('r.executed_at')} as executed_at, r.table_comparison, r.error_message, r.verdict, r.dqops_id,
  r.dqops_columns->>'readout_id' as readout_id`;

const SAMPLE_COLUMNS = `r.id, r.connection_name, r.schema_name, r.table_name, r.column_name, r.check_type, r.time_gradient,
  r.check_category, r.check_name, r.check_hash, r.sensor_name, r.quality_dimension, r.data_group, r.sample_index,
  r.result, r.result_data_type, r.row_id_1, r.row_id_2, r.row_id_3, r.row_id_4, r.row_id_5,
  ${isoTimestamp('r.collected_at')} as collected_at,
  case when r.executed_at is null then null else ${isoTimestamp('r.executed_at')} end as executed_at,
  r.duration_ms, r.table_comparison, r.dqops_id`;

/**
 * The shared where clause, parameters $1…$11: the table, the column scope (`any` | `table` | `column` and the
 * column name), and the optional equality filters.
 */
const BASE_WHERE = `r.connection_name = $1 and r.schema_name = $2 and r.table_name = $3
  and ($4 = 'any' or ($4 = 'table' and r.column_name is null) or ($4 = 'column' and r.column_name = $5))
  and ($6::text is null or r.check_type = $6)
  and ($7::text is null or r.time_gradient = $7)
  and ($8::text is null or r.check_category = $8)
  and ($9::text is null or r.check_name = $9)
  and ($10::text is null or r.data_group = $10)
  and ($11::text is null or r.table_comparison = $11)`;

function baseParams(filter: ResultsFilterBase): SqlParam[] {
  const scope = filter.columnName === undefined ? 'any' : filter.columnName === null ? 'table' : 'column';
  return [
    filter.connectionName,
    filter.schemaName,
    filter.tableName,
    scope,
    filter.columnName ?? null,
    filter.checkType ?? null,
    filter.timeGradient ?? null,
    filter.checkCategory ?? null,
    filter.checkName ?? null,
    filter.dataGroup ?? null,
    filter.tableComparison ?? null,
  ];
}

interface CheckResultSqlRow {
  id: number;
  connection_name: string;
  schema_name: string;
  table_name: string;
  column_name: string | null;
  check_type: CheckType;
  time_gradient: string;
  check_category: string;
  check_name: string;
  check_hash: Int64;
  dqops_id: string | null;
  readout_id: string | null;
  sensor_name: string | null;
  quality_dimension: string | null;
  time_period: string;
  data_group: string;
  actual_value: number | null;
  rule_actual_value: number | null;
  expected_value: number | null;
  severity: SeverityNumber | null;
  duration_ms: number | null;
  executed_at: string;
  table_comparison: string | null;
  error_message: string | null;
  verdict: boolean;
}

/** Rows of one table, ordered by check, then newest time period, newest execution, newest id. */
export async function readCheckResults(sql: SqlQueryable, filter: CheckResultFilter): Promise<CheckResultRow[]> {
  const newest = filter.newest;
  if (newest && (!Number.isSafeInteger(newest.count) || newest.count < 1)) {
    throw new DqError('INVALID_ARGUMENT', `newest.count must be a positive integer, not ${newest.count}`);
  }
  const rank = RANKS[newest?.of ?? 'none'];
  const readouts = filter.read === 'readouts';
  const rows = await sql.query<CheckResultSqlRow>(
    `select ${RESULT_COLUMNS} from (
       select r.*, ${rank} as check_rank
         from dqctl.check_results r
        where ${BASE_WHERE}
          and ($12::timestamptz is null or r.time_period >= $12::timestamptz)
          and ($13::timestamptz is null or r.time_period < $13::timestamptz)
          and ($14::text is null or ($14 = 'only') = (r.error_message is not null))
          and ($16::boolean or r.verdict)
     ) r
     where ($15::integer is null or r.check_rank <= $15)
     order by ${CHECK_ORDER}, r.time_period desc, r.executed_at desc, r.id desc`,
    [
      ...baseParams(filter),
      filter.timePeriodFrom ?? null,
      filter.timePeriodTo ?? null,
      filter.executionErrors ?? null,
      newest?.count ?? null,
      readouts,
    ],
  );
  return rows.map((row) => ({
    id: row.id,
    // an imported row: DQOps's own id, which the API answers with
    ...(row.dqops_id === null ? {} : { dqopsId: row.dqops_id }),
    ...(row.readout_id === null ? {} : { readoutId: row.readout_id }),
    connectionName: row.connection_name,
    schemaName: row.schema_name,
    tableName: row.table_name,
    columnName: row.column_name,
    checkType: row.check_type,
    timeGradient: row.time_gradient,
    checkCategory: row.check_category,
    checkName: row.check_name,
    checkHash: row.check_hash,
    sensorName: row.sensor_name,
    qualityDimension: row.quality_dimension,
    timePeriod: row.time_period,
    dataGroup: row.data_group,
    actualValue: readouts ? row.actual_value : (row.rule_actual_value ?? row.actual_value),
    expectedValue: row.expected_value,
    severity: row.severity,
    durationMs: row.duration_ms,
    executedAt: row.executed_at,
    tableComparison: row.table_comparison,
    errorMessage: row.error_message,
    verdict: row.verdict,
  }));
}

interface ErrorSampleSqlRow {
  id: number;
  connection_name: string;
  schema_name: string;
  table_name: string;
  column_name: string | null;
  check_type: CheckType;
  time_gradient: string;
  check_category: string;
  check_name: string;
  check_hash: Int64;
  dqops_id: string | null;
  sensor_name: string | null;
  quality_dimension: string | null;
  data_group: string;
  sample_index: number;
  result: string | null;
  result_data_type: string | null;
  row_id_1: string | null;
  row_id_2: string | null;
  row_id_3: string | null;
  row_id_4: string | null;
  row_id_5: string | null;
  collected_at: string;
  executed_at: string | null;
  duration_ms: number | null;
  table_comparison: string | null;
}

/** Samples of one table, ordered by check, then newest collection, then sample index. */
export async function readErrorSamples(sql: SqlQueryable, filter: ErrorSampleFilter): Promise<ErrorSampleRow[]> {
  const count = filter.newestPerCheck;
  if (count !== undefined && (!Number.isSafeInteger(count) || count < 1)) {
    throw new DqError('INVALID_ARGUMENT', `newestPerCheck must be a positive integer, not ${count}`);
  }
  const rows = await sql.query<ErrorSampleSqlRow>(
    `select ${SAMPLE_COLUMNS} from (
       select r.*, row_number() over (partition by ${CHECK_PARTITION}
                                      order by r.collected_at desc, r.sample_index, r.id desc) as check_rank
         from dqctl.error_samples r
        where ${BASE_WHERE}
          and ($12::timestamptz is null or r.collected_at >= $12::timestamptz)
          and ($13::timestamptz is null or r.collected_at < $13::timestamptz)
     ) r
     where ($14::integer is null or r.check_rank <= $14)
     order by ${CHECK_ORDER}, r.collected_at desc, r.sample_index, r.id desc`,
    [...baseParams(filter), filter.collectedFrom ?? null, filter.collectedTo ?? null, count ?? null],
  );
  return rows.map((row) => ({
    id: row.id,
    // an imported row: DQOps's own id, which the API answers with
    ...(row.dqops_id === null ? {} : { dqopsId: row.dqops_id }),
    connectionName: row.connection_name,
    schemaName: row.schema_name,
    tableName: row.table_name,
    columnName: row.column_name,
    checkType: row.check_type,
    timeGradient: row.time_gradient,
    checkCategory: row.check_category,
    checkName: row.check_name,
    checkHash: row.check_hash,
    sensorName: row.sensor_name,
    qualityDimension: row.quality_dimension,
    dataGroup: row.data_group,
    sampleIndex: row.sample_index,
    result: row.result,
    resultDataType: row.result_data_type,
    rowId1: row.row_id_1,
    rowId2: row.row_id_2,
    rowId3: row.row_id_3,
    rowId4: row.row_id_4,
    rowId5: row.row_id_5,
    collectedAt: row.collected_at,
    executedAt: row.executed_at,
    durationMs: row.duration_ms,
    tableComparison: row.table_comparison,
  }));
}

/** The columns of the bulk inserts (insertJsonRecords), first those naming the check; a row without a data group is 'all data'. */
const CHECK_COLUMNS: readonly RecordColumn[] = [
  ['connection_name', 'text'],
  ['schema_name', 'text'],
  ['table_name', 'text'],
  ['column_name', 'text'],
  ['check_type', 'text'],
  ['time_gradient', 'text'],
  ['check_category', 'text'],
  ['check_name', 'text'],
  ['check_hash', 'bigint'],
  ['sensor_name', 'text'],
  ['quality_dimension', 'text'],
];

const CHECK_RESULT_COLUMNS: readonly RecordColumn[] = [
  ...CHECK_COLUMNS,
  ['time_period', 'timestamptz'],
  ['data_group', 'text', "'all data'"],
  ['actual_value', 'double precision'],
  ['expected_value', 'double precision'],
  ['severity', 'integer'],
  ['duration_ms', 'integer'],
  ['executed_at', 'timestamptz', 'now()'],
  ['table_comparison', 'text'],
  ['error_message', 'text'],
  ['verdict', 'boolean', 'true'],
  ['rule_actual_value', 'double precision'],
];

const ERROR_SAMPLE_COLUMNS: readonly RecordColumn[] = [
  ...CHECK_COLUMNS,
  ['data_group', 'text', "'all data'"],
  ['sample_index', 'integer'],
  ['result', 'text'],
  ['result_data_type', 'text'],
  ['row_id_1', 'text'],
  ['row_id_2', 'text'],
  ['row_id_3', 'text'],
  ['row_id_4', 'text'],
  ['row_id_5', 'text'],
  ['collected_at', 'timestamptz', 'now()'],
  ['executed_at', 'timestamptz'],
  ['duration_ms', 'integer'],
  ['table_comparison', 'text'],
];

/**
 * What a later run changes in the row of its check, period and data group (the key, resultKey.ts): everything
 * but the key and the id, which stays (DQOps's id is the key's hash, so it does not change either). A row that is
 * older than the stored one (a slow run finishing after a newer one) replaces nothing.
 */
const REPLACE_EARLIER_RUN =
  `on conflict (${RESULT_KEY_SQL}) where ${RESULT_KEY_PREDICATE} do update set ` +
  ['check_hash', 'sensor_name', 'quality_dimension', 'actual_value', 'expected_value', 'severity', 'duration_ms', 'executed_at', 'verdict', 'rule_actual_value']
    .map((column) => `${column} = excluded.${column}`)
    .join(', ') +
  ' where dqctl.check_results.executed_at <= excluded.executed_at';

/**
 * Bulk upsert, in chunks of one jsonb parameter each (as writeObjects does): a result or readout replaces the
 * stored one of its check, time period and data group (the batch itself is first cut to one row per key,
 * oneRowPerResultKey); an execution error is added. Returns how many rows were written.
 */
export async function insertCheckResults(sql: SqlQueryable, rows: readonly CheckResultInput[]): Promise<number> {
  rows.forEach((row, index) => {
    checkHashOf(row.checkHash, index);
    if (row.severity !== undefined && row.severity !== null && !(Number.isInteger(row.severity) && row.severity >= 0 && row.severity <= 3)) {
      throw new DqError('INVALID_ARGUMENT', `check result ${index}: severity must be 0, 1, 2, 3 or null, not ${row.severity}`);
    }
    if ((row.severity ?? null) === null && !row.errorMessage) {
      throw new DqError('INVALID_ARGUMENT', `check result ${index}: a row without a severity is an execution error and needs an errorMessage`);
    }
  });
  const records = oneRowPerResultKey(rows).map((row) => ({
    ...checkColumnsOf(row),
    time_period: row.timePeriod,
    data_group: row.dataGroup ?? null,
    actual_value: row.actualValue ?? null,
    expected_value: row.expectedValue ?? null,
    severity: row.severity ?? null,
    duration_ms: row.durationMs ?? null,
    executed_at: row.executedAt ?? null,
    table_comparison: row.tableComparison ?? null,
    // an empty message is no execution error (the key's index reads error_message is null)
    error_message: row.errorMessage || null,
    verdict: row.verdict ?? null,
    rule_actual_value: row.ruleActualValue ?? null,
  }));
  const written = await insertJsonRecords(sql, 'dqctl.check_results', CHECK_RESULT_COLUMNS, records, { onConflict: REPLACE_EARLIER_RUN });
  await refreshTableStatus(sql, records.map((r) => ({ connection: r.connection_name, schema: r.schema_name, table: r.table_name })));
  return written;
}

/** The columns that say which check of which table a stored row (a result, an error sample) belongs to. */
function checkColumnsOf(row: CheckResultInput | ErrorSampleInput) {
  return {
    connection_name: row.connectionName,
    schema_name: row.schemaName,
    table_name: row.tableName,
    column_name: row.columnName ?? null,
    check_type: row.checkType,
    time_gradient: row.timeGradient,
    check_category: row.checkCategory,
    check_name: row.checkName,
    check_hash: row.checkHash,
    sensor_name: row.sensorName ?? null,
    quality_dimension: row.qualityDimension ?? null,
  };
}

export async function insertErrorSamples(sql: SqlQueryable, rows: readonly ErrorSampleInput[]): Promise<number> {
  const records = rows.map((row, index) => {
    checkHashOf(row.checkHash, index);
    return {
      ...checkColumnsOf(row),
      data_group: row.dataGroup ?? null,
      sample_index: row.sampleIndex,
      result: row.result ?? null,
      result_data_type: row.resultDataType ?? null,
      row_id_1: row.rowId1 ?? null,
      row_id_2: row.rowId2 ?? null,
      row_id_3: row.rowId3 ?? null,
      row_id_4: row.rowId4 ?? null,
      row_id_5: row.rowId5 ?? null,
      collected_at: row.collectedAt ?? null,
      executed_at: row.executedAt ?? null,
      duration_ms: row.durationMs ?? null,
      table_comparison: row.tableComparison ?? null,
    };
  });
  return insertJsonRecords(sql, 'dqctl.error_samples', ERROR_SAMPLE_COLUMNS, records);
}

function checkHashOf(hash: Int64, index: number): void {
  if (typeof hash === 'bigint' ? toInt64(hash) !== hash : !Number.isSafeInteger(hash)) {
    throw new DqError('INVALID_ARGUMENT', `row ${index}: checkHash must be a 64-bit integer (a number within ±2^53, a bigint beyond), not ${hash}`);
  }
}

/** One table's data quality now: the newest run of each of its checks, folded. */
export interface TableSeverityRow {
  connectionName: string;
  schemaName: string;
  tableName: string;
  /** The highest severity of those results (0 valid … 3 fatal); null when every one is an execution error. */
  severity: SeverityNumber | null;
  /** Results of those runs by severity, and execution errors. */
  valid: number;
  warnings: number;
  errors: number;
  fatals: number;
  executionErrors: number;
  lastExecutedAt: string;
}

/** Only some tables' severities: these tables, and every table of these connections (the index serves both). */
export interface TableSeverityFilter {
  tables?: ReadonlyArray<{ connection: string; schema: string; table: string }>;
  connections?: readonly string[];
}

/**
 * Every table's current status (or that of the tables a filter names): the rows of dqctl.table_status, kept as
 * results are written (tableStatus.ts). Each is the fold app/tableQualityStatus.ts does for one table: for each
 * check (column, type, gradient, category, name, comparison) the rows of its newest run, then the worst severity
 * and the counts.
 */
export async function readTableSeverities(sql: SqlQueryable, filter?: TableSeverityFilter): Promise<TableSeverityRow[]> {
  const columns = `s.connection_name, s.schema_name, s.table_name, s.severity, s.valid, s.warnings, s.errors, s.fatals, s.execution_errors,
            ${isoTimestamp('s.last_executed_at')} as last_executed_at`;
  // a filter's connections and its tables each read by the primary key (one OR of both made a scan of every row)
  const parts: string[] = [];
  const parameters: string[] = [];
  if (!filter) parts.push(`select ${columns} from dqctl.table_status s`);
  if (filter?.connections?.length) {
    parameters.push(JSON.stringify(filter.connections));
    parts.push(`select ${columns} from dqctl.table_status s where s.connection_name in (select jsonb_array_elements_text($${parameters.length}::text::jsonb))`);
  }
  if (filter?.tables?.length) {
    parameters.push(JSON.stringify(filter.tables.map((t) => ({ connection: t.connection, schema: t.schema, table_name: t.table }))));
    parts.push(
      `select ${columns} from jsonb_to_recordset($${parameters.length}::text::jsonb) as t(connection text, schema text, table_name text)
         join dqctl.table_status s on s.connection_name = t.connection and s.schema_name = t.schema and s.table_name = t.table_name`,
    );
  }
  if (parts.length === 0) return [];
  const rows = await sql.query<{
    connection_name: string;
    schema_name: string;
    table_name: string;
    severity: SeverityNumber | null;
    valid: number | string;
    warnings: number | string;
    errors: number | string;
    fatals: number | string;
    execution_errors: number | string;
    last_executed_at: string;
  }>(
    // union: a table named by the filter and in one of its connections is one row
    `select * from (${parts.join(' union ')}) as s
      order by s.connection_name collate "C", s.schema_name collate "C", s.table_name collate "C"`,
    parameters,
  );
  return rows.map((row) => ({
    connectionName: row.connection_name,
    schemaName: row.schema_name,
    tableName: row.table_name,
    severity: row.severity === null ? null : toSeverityNumber(Number(row.severity)),
    valid: Number(row.valid),
    warnings: Number(row.warnings),
    errors: Number(row.errors),
    fatals: Number(row.fatals),
    executionErrors: Number(row.execution_errors),
    lastExecutedAt: row.last_executed_at,
  }));
}

/** One check whose readouts a backtest reads: where it is and which check (of one check type per read). */
export interface BacktestReadoutKey {
  connectionName: string;
  schemaName: string;
  tableName: string;
  columnName: string | null;
  timeGradient: string;
  checkName: string;
  tableComparison: string | null;
}

/** The readout of one time period and data group of the check at `key` (its index in the request). */
export interface BacktestReadoutRow {
  key: number;
  timePeriod: string;
  dataGroup: string;
  actualValue: number | null;
  expectedValue: number | null;
  severity: SeverityNumber;
  /** false: a readout the check's rules gave no verdict on (its severity is not a result). */
  verdict: boolean;
}

/**
 * The readouts of many checks of ONE check type in one statement (the backtest of `dqctl preview`, which may
 * reach thousands of tables): for each key, the one stored readout of each time period and data group (the
 * result key, resultKey.ts: a re-run replaced the earlier) whose period starts at or after `from` (execution
 * errors are not readouts), oldest period first. The keys travel as one jsonb parameter; the join follows
 * check_results_latest_idx.
 */
export async function readBacktestReadouts(
  sql: SqlQueryable,
  checkType: CheckType,
  keys: readonly BacktestReadoutKey[],
  from: string,
): Promise<BacktestReadoutRow[]> {
  if (keys.length === 0) return [];
  const records = keys.map((key, index) => ({
    k: index,
    connection_name: key.connectionName,
    schema_name: key.schemaName,
    table_name: key.tableName,
    column_name: key.columnName,
    time_gradient: key.timeGradient,
    check_name: key.checkName,
    table_comparison: key.tableComparison,
  }));
  const rows = await sql.query<{
    k: number;
    time_period: string;
    data_group: string;
    actual_value: number | null;
    expected_value: number | null;
    severity: SeverityNumber;
    verdict: boolean;
  }>(
    `select k.k, ${isoTimestamp('c.time_period')} as time_period, c.data_group, c.actual_value, c.expected_value, c.severity, c.verdict
       from jsonb_to_recordset($1::text::jsonb) as k(k integer, connection_name text, schema_name text, table_name text,
              column_name text, time_gradient text, check_name text, table_comparison text)
       join dqctl.check_results c
         on c.connection_name = k.connection_name and c.schema_name = k.schema_name and c.table_name = k.table_name
        and c.check_type = $2 and c.check_name = k.check_name and c.time_gradient = k.time_gradient
        and c.column_name is not distinct from k.column_name
        and c.table_comparison is not distinct from k.table_comparison
      where c.time_period >= $3::timestamptz and ${RESULT_KEY_PREDICATE}
      order by k.k, c.time_period, c.data_group`,
    [JSON.stringify(records), checkType, from],
  );
  return rows.map((row) => ({
    key: Number(row.k),
    timePeriod: row.time_period,
    dataGroup: row.data_group,
    actualValue: row.actual_value,
    expectedValue: row.expected_value,
    severity: toSeverityNumber(Number(row.severity)),
    verdict: row.verdict,
  }));
}
