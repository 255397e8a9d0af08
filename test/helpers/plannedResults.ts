import { plannedChecksOfTable, type PlannedCheck } from '../../src/jobs/checkRun/plannedChecks.js';
import { periodOf, resultBase } from '../../src/jobs/checkRun/resultRows.js';
import { compilePolicies, tableRefOf } from '../../src/policy/index.js';
import type { CheckResultInput, Store } from '../../src/store/store.js';
import type { SeverityNumber } from '../../src/model/index.js';

/**
 * Check results as the check runner stores them, for tests that need results without a data source: the
 * checks come from the runner's own planning of a live table (so their identity, comparison included, is the
 * runner's), the values and severities from the test.
 */
export async function plannedChecksOf(store: Store, tableName: string): Promise<PlannedCheck[]> {
  const [table] = await store.getObjects([{ kind: 'table', name: tableName }]);
  const ref = tableRefOf(table.name, table.spec)!;
  const [connection] = await store.getObjects([{ kind: 'source', name: ref.connection }]);
  const policies = await Promise.all([store.listObjects({ kind: 'default_table_checks' }), store.listObjects({ kind: 'default_column_checks' })]);
  return plannedChecksOfTable(ref, connection?.spec, compilePolicies(policies.flat()), {});
}

export function findPlanned(planned: readonly PlannedCheck[], column: string | null, checkName: string): PlannedCheck {
  const found = planned.find((c) => c.column === column && c.checkName === checkName);
  if (!found) throw new Error(`${column ?? '(table)'}/${checkName} is not planned`);
  return found;
}

/** One run of a check on the day of `now`: a row per data group with its severity (null: an execution error). */
export function runResults(check: PlannedCheck, severities: Record<string, SeverityNumber | null>, executedAt: string, now: Date): CheckResultInput[] {
  const period = periodOf(check.checkType, check.timeScale, now);
  return Object.entries(severities).map(([dataGroup, severity]) => ({
    ...resultBase(check, period.timeGradient, 12, executedAt),
    timePeriod: period.timePeriod,
    dataGroup,
    actualValue: 100,
    expectedValue: 101,
    severity,
    errorMessage: severity === null ? 'reference table unreachable' : null,
  }));
}
