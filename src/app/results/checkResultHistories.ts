import { SEVERITY_NAMES, type TableIdentity } from '../../model/index.js';
import type { CheckResultRow, Store } from '../../store/store.js';

/**
 * A table's newest results per check (its columns' too, every check type): the readout history the console
 * charts (GET …/checkresults), the newest `periods` time periods of each, with actual and expected values and
 * the severity as a word. One row per check, time period and data group: the store keeps only a period's latest.
 */
export async function tableCheckResultHistories(store: Store, table: TableIdentity, periods: number) {
  const rows = await store.checkResults({
    connectionName: table.connection,
    schemaName: table.schema,
    tableName: table.table,
    newest: { of: 'periods', count: periods },
  });
  return resultHistories(rows);
}

function resultHistories(rows: readonly CheckResultRow[]) {
  const byCheck = new Map<string, { head: CheckResultRow; rows: CheckResultRow[] }>();
  for (const row of rows) {
    const key = [row.columnName ?? '', row.checkType, row.timeGradient, row.checkCategory, row.checkName, row.tableComparison ?? ''].join('\u0000');
    const entry = byCheck.get(key);
    if (entry) entry.rows.push(row);
    else byCheck.set(key, { head: row, rows: [row] });
  }
  return [...byCheck.values()].map(({ head, rows }) => ({
    check_type: head.checkType,
    time_gradient: head.timeGradient,
    check_category: head.checkCategory,
    check_name: head.checkName,
    column_name: head.columnName,
    table_comparison: head.tableComparison,
    check_hash: head.checkHash,
    quality_dimension: head.qualityDimension,
    results: rows.map((r) => ({
      time_period: r.timePeriod,
      executed_at: r.executedAt,
      data_group: r.dataGroup,
      actual_value: r.actualValue,
      expected_value: r.expectedValue,
      severity: r.severity === null ? null : SEVERITY_NAMES[Math.min(r.severity, 3)],
      error_message: r.errorMessage,
    })),
  }));
}

