import { toSeverityNumber, type SeverityNumber } from '../model/index.js';
import type { SqlQueryable } from './sql/sqlClient.js';

/**
 * Each table's data quality now, kept in `dqctl.table_status` (migration 0015) as check results are written, so
 * that the console's objects list and the overview read one row per table instead of folding every stored result
 * (at 100,000 tables, the first page of the objects list, which shows connections, folded the results of every
 * table of those connections on each request: 250-460 ms).
 *
 * A row is the fold of readTableSeverities: for each check (column, type, gradient, category, name, comparison)
 * the rows of its newest run, then the worst severity and the counts. Every statement that writes or deletes
 * check results refreshes the rows of the tables it touched, in its own transaction (readResults.ts, the import of
 * DQOps's history, deleteStoredData.ts); a table without results has no row. Writers of one table's results are
 * serialized by a transaction-level advisory lock taken before the refresh, so the last refresh sees every
 * committed result of that table (read committed: each statement reads what is committed when it starts).
 */

/** The same partition of a check as readResults.ts's reads (kept in step with CHECK_PARTITION there). */
const CHECK_PARTITION = 'r.column_name, r.check_type, r.time_gradient, r.check_category, r.check_name, r.table_comparison';

/** The fold of the results `where` selects (a condition on `r`, a check_results row), one row per table. */
function foldSql(where: string): string {
  return `select r.connection_name, r.schema_name, r.table_name, max(r.severity) as severity,
            count(*) filter (where r.severity = 0)::integer as valid,
            count(*) filter (where r.severity = 1)::integer as warnings,
            count(*) filter (where r.severity = 2)::integer as errors,
            count(*) filter (where r.severity = 3)::integer as fatals,
            count(*) filter (where r.severity is null)::integer as execution_errors,
            max(r.executed_at) as last_executed_at
       from (select r.*, dense_rank() over (partition by r.connection_name, r.schema_name, r.table_name, ${CHECK_PARTITION}
                                            order by r.executed_at desc) as run_rank
               from dqctl.check_results r
              where r.verdict and (${where})) r
      where r.run_rank = 1
      group by r.connection_name, r.schema_name, r.table_name`;
}

const COLUMNS = 'connection_name, schema_name, table_name, severity, valid, warnings, errors, fatals, execution_errors, last_executed_at';

/** Rebuilds every table's row from the stored results (the migration's backfill, and an import of many tables). */
export const REBUILD_TABLE_STATUS = `delete from dqctl.table_status;
insert into dqctl.table_status (${COLUMNS}) ${foldSql('true')};`;

export interface TableRef {
  connection: string;
  schema: string;
  table: string;
}

/** Brings the rows of these tables up to date with their stored results (in the caller's transaction). */
export async function refreshTableStatus(sql: SqlQueryable, tables: Iterable<TableRef>): Promise<void> {
  const unique = new Map<string, TableRef>();
  for (const t of tables) unique.set(JSON.stringify([t.connection, t.schema, t.table]), t);
  if (unique.size === 0) return;
  // one writer of a table's status at a time, in key order (no deadlock between two writers of several tables):
  // the locks taken in the array's order by a scalar subquery of the delete, which runs before its scan
  const keys = [...unique.keys()].sort().map((key) => `dqctl.table_status${key}`);
  const list = JSON.stringify([...unique.values()].map((t) => ({ c: t.connection, s: t.schema, t: t.table })));
  const touched = `select k.c, k.s, k.t from jsonb_to_recordset($1::text::jsonb) as k(c text, s text, t text)`;
  await sql.query(
    `delete from dqctl.table_status
      where (select count(*) from (select pg_advisory_xact_lock(hashtextextended(key, 0)) from jsonb_array_elements_text($2::text::jsonb) as key) as locks) >= 0
        and (connection_name, schema_name, table_name) in (${touched})`,
    [list, JSON.stringify(keys)],
  );
  await sql.query(
    `insert into dqctl.table_status (${COLUMNS}) ${foldSql(`(r.connection_name, r.schema_name, r.table_name) in (${touched})`)}`,
    [list],
  );
}

/**
 * Each connection's tables with results, folded to what its quality is made of (the worst of its tables'): the
 * highest severity among them, and whether some have only execution errors. One row per connection that has a live
 * table with results, computed where the rows are; tables that no longer exist in the live store are left out, as the overview leaves them out (their
 * results stay stored). Each answer is read from the connection's rows in severity order (the index of migration
 * 0017) and stops at the first row whose table exists: a connection of 1,000 tables with results costs a few
 * lookups, not 1,000 (whereas counting them would check every one against the live objects).
 */
export interface ConnectionSeverityRow {
  connectionName: string;
  /** The highest severity of its tables' (0 valid … 3 fatal); null when every such table has only execution errors. */
  severity: SeverityNumber | null;
  /** Whether some of its tables have only execution errors as their newest results. */
  executionErrorTables: boolean;
}

export async function readConnectionSeverities(sql: SqlQueryable, connections: readonly string[]): Promise<ConnectionSeverityRow[]> {
  if (connections.length === 0) return [];
  // a table's object name is its key (model/tableIdentity.ts tableKey: the connection with % and / escaped)
  const live = `exists (select 1 from dqctl.objects o
                         where o.kind = 'table'
                           and o.name = replace(replace(s.connection_name, '%', '%25'), '/', '%2F') || '/' || s.schema_name || '.' || s.table_name)`;
  const rows = await sql.query<{ connection_name: string; severity: number | null; execution_error_tables: boolean }>(
    // every live table's row has a severity or none (execution errors only): a connection without either has none
    `select f.connection_name, f.severity, f.execution_error_tables
       from (select c.name as connection_name,
                    (select s.severity from dqctl.table_status s
                      where s.connection_name = c.name and s.severity is not null and ${live}
                      order by s.severity desc limit 1) as severity,
                    exists (select 1 from dqctl.table_status s where s.connection_name = c.name and s.severity is null and ${live}) as execution_error_tables
               from (select distinct unnest(string_to_array($1, chr(31))) as name) as c
             offset 0) as f -- each connection's answers once (not again for the condition below)
      where f.severity is not null or f.execution_error_tables`,
    // the names as one text parameter, separated by the unit separator, a control character no connection name holds
    [connections.join('\u001f')],
  );
  return rows.map((row) => ({
    connectionName: row.connection_name,
    severity: row.severity === null ? null : toSeverityNumber(Number(row.severity)),
    executionErrorTables: row.execution_error_tables === true,
  }));
}
