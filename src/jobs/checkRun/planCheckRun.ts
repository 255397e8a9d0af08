import type { LiveObjects } from '../../inspect/liveObjects.js';
import { tableKeyPrefix, type JsonObject, type LiveObject } from '../../model/index.js';
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
  /** Only these tables (already read by the caller), instead of the store's. */
  tables?: readonly LiveObject[],
): Promise<CheckRunPlan> {
  const single = filters.connection && !filters.connection.includes('*') && !filters.connection.includes(',');
  const [tableObjects, sources, tablePolicies, columnPolicies, definitions] = await Promise.all([
    tables ?? (single ? objects.list('table', tableKeyPrefix(filters.connection!)) : objects.list('table')),
    objects.list('source'),
    objects.list('default_table_checks'),
    objects.list('default_column_checks'),
    objects.list('check'),
  ]);
  const checkDefinitions = new Map(definitions.map((d) => [d.name, d.spec]));
  const connections = new Map(sources.map((s) => [s.name, s.spec]));
  const policies = compilePolicies([...tablePolicies, ...columnPolicies]);
  const work: CheckRunPlan['work'] = [];
  let planned = 0;
  for (const table of selectTables(tableObjects, filters)) {
    const checks = narrow(plannedChecksOfTable(table, connections.get(table.connection), policies, filters, checkDefinitions));
    if (checks.length > 0) work.push({ table, checks });
    // ~3 s for 10,000 tables: let the server answer requests in between
    if (++planned % TABLES_BETWEEN_YIELDS === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return { work, connections };
}

const TABLES_BETWEEN_YIELDS = 100;
