import type { LiveObjects } from '../../app/liveObjects.js';
import type { JsonObject } from '../../model/index.js';
import { compilePolicies } from '../../policy/index.js';
import { plannedChecksOfTable, selectTables, type CheckSearchFilters, type PlannedCheck } from './plannedChecks.js';

/**
 * What a check run (or an error-sample collection) works through: the tables the filters select, each with its
 * planned checks (tables without any left out), and the connections' specs. Reads the live store once: the
 * tables (only one connection's when the filter names exactly one), the connections and the policies.
 */
export interface CheckRunPlan {
  work: Array<{ table: PlannedCheck['table']; checks: PlannedCheck[] }>;
  connections: Map<string, JsonObject>;
}

export async function planCheckRun(
  objects: LiveObjects,
  filters: CheckSearchFilters,
  narrow: (checks: PlannedCheck[]) => PlannedCheck[] = (checks) => checks,
): Promise<CheckRunPlan> {
  const single = filters.connection && !filters.connection.includes('*') && !filters.connection.includes(',');
  const [tableObjects, sources, tablePolicies, columnPolicies] = await Promise.all([
    single ? objects.list('table', `${filters.connection}/`) : objects.list('table'),
    objects.list('source'),
    objects.list('default_table_checks'),
    objects.list('default_column_checks'),
  ]);
  const connections = new Map(sources.map((s) => [s.name, s.spec]));
  const policies = compilePolicies([...tablePolicies, ...columnPolicies]);
  const work = selectTables(tableObjects, filters)
    .map((table) => ({ table, checks: narrow(plannedChecksOfTable(table, connections.get(table.connection), policies, filters)) }))
    .filter((w) => w.checks.length > 0);
  return { work, connections };
}
