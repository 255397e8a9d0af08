import type { JsonObject } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import { baseFilter, epochMs, groupByCheck, statusOf, type Selection, type Target } from './checkResults.js';

/**
 * Table comparison results as DQOps's API shapes them: per comparison check, its newest run (the rows sharing its
 * newest executed_at), answered for the table's and its columns' comparison checks; at most 10 not-matching data
 * groups, sorted.
 */
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

export async function comparisonResults(store: Store, target: Target, selection: Selection, comparison: string): Promise<JsonObject> {
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
