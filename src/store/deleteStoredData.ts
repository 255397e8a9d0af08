import type { SqlQueryable } from './sql/sqlClient.js';

/**
 * The delete-stored-data job's SQL: removes check results, execution errors, error samples and statistics of a connection,
 * optionally narrowed to tables (`schema.table` with `*` wildcards) and columns. Patterns become LIKE patterns
 * with `%`, `_` and `\` escaped, bound as parameters.
 */
export interface DeleteStoredDataRequest {
  connection: string;
  /** `schema.table`, `*` wildcards; absent: every table of the connection. */
  fullTableName?: string;
  columnNames?: readonly string[];
  checkResults: boolean;
  errors: boolean;
  errorSamples: boolean;
  /** Statistics (every collector, every data group). */
  statistics?: boolean;
}

export interface DeleteStoredDataCounts {
  check_results: number;
  errors: number;
  error_samples: number;
  statistics: number;
}

function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

export async function deleteStoredData(sql: SqlQueryable, request: DeleteStoredDataRequest): Promise<DeleteStoredDataCounts> {
  const full = request.fullTableName ?? '*.*';
  const dot = full.indexOf('.');
  const schema = dot >= 0 ? full.slice(0, dot) : '*';
  const table = dot >= 0 ? full.slice(dot + 1) : full;
  const columns = request.columnNames && request.columnNames.length > 0 ? JSON.stringify(request.columnNames) : null;
  const where = `connection_name = $1 and schema_name like $2 escape '\\' and table_name like $3 escape '\\'
    and ($4::text is null or column_name in (select jsonb_array_elements_text($4::text::jsonb)))`;
  const params = [request.connection, likePattern(schema), likePattern(table), columns];
  const counts: DeleteStoredDataCounts = { check_results: 0, errors: 0, error_samples: 0, statistics: 0 };
  if (request.checkResults) {
    counts.check_results = (await sql.query(`delete from dqctl.check_results where ${where} and error_message is null returning 1`, params)).length;
  }
  if (request.errors) {
    counts.errors = (await sql.query(`delete from dqctl.check_results where ${where} and error_message is not null returning 1`, params)).length;
  }
  if (request.errorSamples) {
    counts.error_samples = (await sql.query(`delete from dqctl.error_samples where ${where} returning 1`, params)).length;
  }
  if (request.statistics) {
    counts.statistics = (await sql.query(`delete from dqctl.statistics where ${where} returning 1`, params)).length;
  }
  return counts;
}
