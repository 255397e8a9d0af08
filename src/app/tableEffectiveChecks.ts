import { isJsonObject, RULE_SEVERITIES, type CheckType, type JsonObject, type LiveObject, type TimeScale } from '../model/index.js';
import { getCheckCatalog } from '../catalog/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';
import type { CheckResultRow } from '../store/store.js';
import {
  COMPARISONS_CATEGORY,
  compilePolicies,
  comparisonsIn,
  effectiveContainer,
  effectiveTableAndColumnChecks,
  tableRefOf,
  type EffectiveCheck,
  type EffectiveChecks,
  type TableRef,
} from '../policy/index.js';
import { statusOfRows, type SeverityName } from './tableQualityStatus.js';

/**
 * Every check that runs on a table and its columns, each saying where it comes from (the table's own file or a
 * policy, with the priority it applied with), with the results of its newest run: GET …/tables/{t}/effectivechecks,
 * the console's table view. The comparison checks of the table and of its columns are checks like the others
 * (category `comparisons`, `table_comparison` naming the comparison), as their results are stored.
 *
 * The newest run's counts are folded by `statusOfRows`, the fold of the table's status and of the overview, so
 * the rows of a table add up to its status whenever every check with results is still configured.
 */
export interface EffectiveCheckRow {
  target: 'table' | 'column';
  column_name: string | null;
  check_type: CheckType;
  time_scale: TimeScale | null;
  check_category: string;
  check_name: string;
  /** The catalog's sensor of the check (a `…_hash` sensor reads a hash of the schema); null when the catalog does not know the check. */
  sensor_name: string | null;
  /** The comparison (a key of the table's `table_comparisons`) of a comparison check; null for the others. */
  table_comparison: string | null;
  /** A column comparison check's `reference_column` when written (else the same column name); null otherwise. */
  reference_column: string | null;
  origin: { source: 'table' | 'policy'; policy_name: string | null; priority: number | null };
  disabled: boolean;
  rules: JsonObject;
  parameters: JsonObject;
  /** The results of the check's newest run (every time period and data group it judged), null when it never ran. */
  latest_results: LatestCheckResults | null;
}

export interface LatestCheckResults {
  executed_at: string;
  /** The highest severity of the run; null when every row of it is an execution error. */
  severity: SeverityName | null;
  valid: number;
  warnings: number;
  errors: number;
  fatals: number;
  execution_errors: number;
  /** The row shown for the run: the one with the highest severity (the newest time period among equals). */
  time_period: string;
  data_group: string;
  actual_value: number | null;
  expected_value: number | null;
  error_message: string | null;
}

const CONTAINERS: ReadonlyArray<[CheckType, TimeScale | null]> = [
  ['profiling', null],
  ['monitoring', 'daily'],
  ['monitoring', 'monthly'],
  ['partitioned', 'daily'],
  ['partitioned', 'monthly'],
];

/** The key of a check's stored results (the store's check partition without the time gradient, which a check name implies). */
function resultKey(column: string | null, checkType: string, category: string, checkName: string, comparison: string | null): string {
  return JSON.stringify([column, checkType, category, checkName, comparison]);
}

function rowOf(
  effective: EffectiveCheck,
  where: { target: 'table' | 'column'; column: string | null; checkType: CheckType; timeScale: TimeScale | null; category: string; checkName: string },
  comparison: { name: string; referenceColumn: string | null } | null,
): EffectiveCheckRow {
  const rules: JsonObject = {};
  for (const key of RULE_SEVERITIES) if (isJsonObject(effective.spec[key])) rules[key] = effective.spec[key];
  const origin = effective.origin;
  return {
    target: where.target,
    column_name: where.column,
    check_type: where.checkType,
    time_scale: where.timeScale,
    check_category: where.category,
    check_name: where.checkName,
    sensor_name: getCheckCatalog().checkByName(where.checkName)?.sensor ?? null,
    table_comparison: comparison?.name ?? null,
    reference_column: comparison?.referenceColumn ?? null,
    origin: origin.source === 'policy' ? { source: 'policy', policy_name: origin.policyName, priority: origin.priority } : { source: 'table', policy_name: null, priority: null },
    disabled: effective.spec.disabled === true,
    rules,
    parameters: isJsonObject(effective.spec.parameters) ? effective.spec.parameters : {},
    latest_results: null,
  };
}

/** The rows of one table's or column's effective checks, container by container, comparisons after the other categories. */
export function effectiveCheckRows(checks: EffectiveChecks, target: 'table' | 'column', column: string | null): EffectiveCheckRow[] {
  const rows: EffectiveCheckRow[] = [];
  for (const [checkType, timeScale] of CONTAINERS) {
    for (const [category, byName] of Object.entries(effectiveContainer(checks, checkType, timeScale))) {
      for (const [checkName, effective] of Object.entries(byName)) rows.push(rowOf(effective, { target, column, checkType, timeScale, category, checkName }, null));
    }
    for (const [name, comparison] of Object.entries(comparisonsIn(checks.comparisons, checkType, timeScale))) {
      for (const [checkName, effective] of Object.entries(comparison.checks)) {
        rows.push(rowOf(effective, { target, column, checkType, timeScale, category: COMPARISONS_CATEGORY, checkName }, { name, referenceColumn: comparison.referenceColumn }));
      }
    }
  }
  return rows;
}

/** Each row with the results of its check's newest run among `newestRun` (the table's rows of each check's newest run). */
export function withLatestResults(table: TableRef, rows: readonly EffectiveCheckRow[], newestRun: readonly CheckResultRow[]): EffectiveCheckRow[] {
  const byCheck = new Map<string, CheckResultRow[]>();
  for (const result of newestRun) {
    const key = resultKey(result.columnName, result.checkType, result.checkCategory, result.checkName, result.tableComparison);
    const list = byCheck.get(key);
    if (list) list.push(result);
    else byCheck.set(key, [result]);
  }
  return rows.map((row) => {
    const results = byCheck.get(resultKey(row.column_name, row.check_type, row.check_category, row.check_name, row.table_comparison));
    return results ? { ...row, latest_results: latestOf(table, results) } : row;
  });
}

function latestOf(table: TableRef, results: readonly CheckResultRow[]): LatestCheckResults {
  const status = statusOfRows(table, results);
  const rank = (r: CheckResultRow) => (r.severity === null ? -1 : r.severity);
  const shown = results.reduce((a, b) => (rank(b) > rank(a) || (rank(b) === rank(a) && b.timePeriod > a.timePeriod) ? b : a));
  return {
    executed_at: status.last_check_executed_at ?? shown.executedAt,
    severity: status.current_severity,
    valid: status.valid_results,
    warnings: status.warnings,
    errors: status.errors,
    fatals: status.fatals,
    execution_errors: status.execution_errors,
    time_period: shown.timePeriod,
    data_group: shown.dataGroup,
    actual_value: shown.actualValue,
    expected_value: shown.expectedValue,
    error_message: shown.errorMessage,
  };
}

export async function tableEffectiveChecks(objects: LiveObjects, table: LiveObject): Promise<EffectiveCheckRow[]> {
  const ref = tableRefOf(table.name, table.spec);
  if (!ref) return [];
  const [connection, tablePolicies, columnPolicies, newestRun] = await Promise.all([
    objects.get('source', ref.connection),
    objects.list('default_table_checks'),
    objects.list('default_column_checks'),
    objects.store.checkResults({ connectionName: ref.connection, schemaName: ref.schema, tableName: ref.table, newest: { of: 'runs', count: 1 } }),
  ]);
  const effective = effectiveTableAndColumnChecks(ref, connection?.spec, compilePolicies([...tablePolicies, ...columnPolicies]));
  const rows = effectiveCheckRows(effective.table, 'table', null);
  for (const [column, checks] of Object.entries(effective.columns)) rows.push(...effectiveCheckRows(checks, 'column', column));
  return withLatestResults(ref, rows, newestRun);
}
