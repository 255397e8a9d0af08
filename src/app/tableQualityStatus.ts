import type { CheckResultRow, Store } from '../store/store.js';
import { SEVERITY_NAMES, type SeverityName, type TableIdentity } from '../model/index.js';

/**
 * A table's current data quality status, from its latest results: the highest severity of each check's newest
 * run, the counts of valid / warning / error / fatal results and execution errors, and when it last ran.
 * `combine` folds several statuses into the worst of them (the upstream status of a lineage flow).
 */
export type { SeverityName };

export interface TableQualityStatus {
  connection_name: string;
  schema_name: string;
  table_name: string;
  current_severity: SeverityName | null;
  last_check_executed_at: string | null;
  executed_checks: number;
  valid_results: number;
  warnings: number;
  errors: number;
  fatals: number;
  execution_errors: number;
}


export function statusOfRows(table: TableIdentity, rows: readonly CheckResultRow[]): TableQualityStatus {
  const status: TableQualityStatus = {
    connection_name: table.connection,
    schema_name: table.schema,
    table_name: table.table,
    current_severity: null,
    last_check_executed_at: null,
    executed_checks: new Set(rows.map((r) => `${r.checkHash}/${r.columnName ?? ''}`)).size,
    valid_results: 0,
    warnings: 0,
    errors: 0,
    fatals: 0,
    execution_errors: 0,
  };
  let highest = -1;
  for (const row of rows) {
    if (!status.last_check_executed_at || row.executedAt > status.last_check_executed_at) status.last_check_executed_at = row.executedAt;
    if (row.severity === null) {
      status.execution_errors++;
      continue;
    }
    highest = Math.max(highest, row.severity);
    if (row.severity === 0) status.valid_results++;
    else if (row.severity === 1) status.warnings++;
    else if (row.severity === 2) status.errors++;
    else status.fatals++;
  }
  status.current_severity = highest >= 0 ? SEVERITY_NAMES[Math.min(highest, 3)] : null;
  return status;
}

export async function tableQualityStatus(store: Store, table: TableIdentity): Promise<TableQualityStatus> {
  const rows = await store.checkResults({
    connectionName: table.connection,
    schemaName: table.schema,
    tableName: table.table,
    newest: { of: 'runs', count: 1 },
  });
  return statusOfRows(table, rows);
}

/** The worst of several statuses (null when none has results), counts added up. */
export function combineStatuses(statuses: readonly TableQualityStatus[]): Omit<TableQualityStatus, 'connection_name' | 'schema_name' | 'table_name'> | null {
  const withResults = statuses.filter((s) => s.last_check_executed_at !== null);
  if (withResults.length === 0) return null;
  const rank = (s: SeverityName | null) => (s === null ? -1 : SEVERITY_NAMES.indexOf(s));
  const worst = withResults.reduce((a, b) => (rank(b.current_severity) > rank(a.current_severity) ? b : a));
  return {
    current_severity: worst.current_severity,
    last_check_executed_at: withResults.map((s) => s.last_check_executed_at!).sort().at(-1)!,
    executed_checks: withResults.reduce((n, s) => n + s.executed_checks, 0),
    valid_results: withResults.reduce((n, s) => n + s.valid_results, 0),
    warnings: withResults.reduce((n, s) => n + s.warnings, 0),
    errors: withResults.reduce((n, s) => n + s.errors, 0),
    fatals: withResults.reduce((n, s) => n + s.fatals, 0),
    execution_errors: withResults.reduce((n, s) => n + s.execution_errors, 0),
  };
}
