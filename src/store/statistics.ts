import { DqError, type JsonValue } from '../model/index.js';
import { isoTimestamp, type SqlQueryable } from './sql/sqlClient.js';
import { insertJsonRecords, type RecordColumn } from './sql/jsonChunks.js';

/**
 * Statistics rows (migration 0004): written by the collect-statistics job, read back as "the latest
 * statistics" of a connection, schema, table or column. Every value is bound; rows are inserted in chunks of
 * one jsonb parameter each.
 *
 * Contract for writers: all rows of one collection of one table share `collectedAt`; a row holds a result
 * (`resultDouble`, `resultText` and / or `resultJson`) or an `errorMessage`; doubles are finite.
 */
export interface StatisticsInput {
  connectionName: string;
  schemaName: string;
  tableName: string;
  /** null (or absent) for table-level statistics. */
  columnName?: string | null;
  collectorCategory: string;
  collectorName: string;
  /** Default `all data`. */
  dataGroup?: string;
  resultDouble?: number | null;
  resultText?: string | null;
  resultJson?: JsonValue | null;
  /** Default: now (ISO-8601). */
  collectedAt?: string;
  durationMs?: number | null;
  /** Set when the collector failed. */
  errorMessage?: string | null;
}

export type StatisticsRow = { id: number } & Required<StatisticsInput>;

export interface StatisticsFilter {
  connectionName: string;
  schemaName?: string;
  tableName?: string;
  /** A column's rows; `null`: table-level rows only; absent: all. */
  columnName?: string | null;
  collectorCategory?: string;
  collectorName?: string;
  dataGroup?: string;
}

/** The columns of the bulk insert (insertJsonRecords). */
const STATISTICS_COLUMNS: readonly RecordColumn[] = [
  ['connection_name', 'text'],
  ['schema_name', 'text'],
  ['table_name', 'text'],
  ['column_name', 'text'],
  ['collector_category', 'text'],
  ['collector_name', 'text'],
  ['data_group', 'text', "'all data'"],
  ['result_double', 'double precision'],
  ['result_text', 'text'],
  ['result_json', 'jsonb'],
  ['collected_at', 'timestamptz', 'now()'],
  ['duration_ms', 'integer'],
  ['error_message', 'text'],
];

export async function insertStatistics(sql: SqlQueryable, rows: readonly StatisticsInput[]): Promise<number> {
  const records = rows.map((row, index) => {
    if (row.resultDouble !== undefined && row.resultDouble !== null && !Number.isFinite(row.resultDouble)) {
      throw new DqError('INVALID_ARGUMENT', `statistics row ${index}: resultDouble must be a finite number, not ${row.resultDouble}`);
    }
    return {
      connection_name: row.connectionName,
      schema_name: row.schemaName,
      table_name: row.tableName,
      column_name: row.columnName ?? null,
      collector_category: row.collectorCategory,
      collector_name: row.collectorName,
      data_group: row.dataGroup ?? null,
      result_double: row.resultDouble ?? null,
      result_text: row.resultText ?? null,
      result_json: row.resultJson ?? null,
      collected_at: row.collectedAt ?? null,
      duration_ms: row.durationMs ?? null,
      error_message: row.errorMessage ?? null,
    };
  });
  return insertJsonRecords(sql, 'dqctl.statistics', STATISTICS_COLUMNS, records);
}

interface StatisticsSqlRow {
  id: number;
  connection_name: string;
  schema_name: string;
  table_name: string;
  column_name: string | null;
  collector_category: string;
  collector_name: string;
  data_group: string;
  result_double: number | null;
  result_text: string | null;
  result_json: JsonValue | null;
  collected_at: string;
  duration_ms: number | null;
  error_message: string | null;
}

/**
 * The latest statistics: for each table, column and collector, the rows of its newest collection (every data
 * group of it). Ordered by schema, table, column (table-level first), collector, data group.
 */
export async function readLatestStatistics(sql: SqlQueryable, filter: StatisticsFilter): Promise<StatisticsRow[]> {
  const scope = filter.columnName === undefined ? 'any' : filter.columnName === null ? 'table' : 'column';
  const rows = await sql.query<StatisticsSqlRow>(
    `select s.id, s.connection_name, s.schema_name, s.table_name, s.column_name, s.collector_category, s.collector_name,
            s.data_group, s.result_double, s.result_text, s.result_json, ${isoTimestamp('s.collected_at')} as collected_at,
            s.duration_ms, s.error_message
       from (
         select r.*, rank() over (partition by r.schema_name, r.table_name, r.column_name, r.collector_name
                                  order by r.collected_at desc) as newest
           from dqctl.statistics r
          where r.connection_name = $1
            and ($2::text is null or r.schema_name = $2)
            and ($3::text is null or r.table_name = $3)
            and ($4 = 'any' or ($4 = 'table' and r.column_name is null) or ($4 = 'column' and r.column_name = $5))
            and ($6::text is null or r.collector_category = $6)
            and ($7::text is null or r.collector_name = $7)
            and ($8::text is null or r.data_group = $8)
       ) s
      where s.newest = 1
      order by s.schema_name collate "C", s.table_name collate "C", s.column_name collate "C" nulls first,
               s.collector_name collate "C", s.data_group collate "C", s.id`,
    [
      filter.connectionName,
      filter.schemaName ?? null,
      filter.tableName ?? null,
      scope,
      filter.columnName ?? null,
      filter.collectorCategory ?? null,
      filter.collectorName ?? null,
      filter.dataGroup ?? null,
    ],
  );
  return rows.map((row) => ({
    id: row.id,
    connectionName: row.connection_name,
    schemaName: row.schema_name,
    tableName: row.table_name,
    columnName: row.column_name,
    collectorCategory: row.collector_category,
    collectorName: row.collector_name,
    dataGroup: row.data_group,
    resultDouble: row.result_double,
    resultText: row.result_text,
    resultJson: row.result_json,
    collectedAt: row.collected_at,
    durationMs: row.duration_ms,
    errorMessage: row.error_message,
  }));
}
