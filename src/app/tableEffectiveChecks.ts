import { isJsonObject, RULE_SEVERITIES, type CheckType, type JsonObject, type LiveObject, type TimeScale } from '../model/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';
import { compilePolicies, effectiveTableAndColumnChecks, tableRefOf, type EffectiveChecks } from '../policy/index.js';
import type { EffectiveContainer } from '../policy/effectiveChecks.js';

/**
 * Every check that runs on a table and its columns, each saying where it comes from (the table's own file or a
 * policy, with the priority it applied with): GET …/tables/{t}/effectivechecks, the console's table view.
 */
export interface EffectiveCheckRow {
  target: 'table' | 'column';
  column_name: string | null;
  check_type: CheckType;
  time_scale: TimeScale | null;
  check_category: string;
  check_name: string;
  origin: { source: 'table' | 'policy'; policy_name: string | null; priority: number | null };
  disabled: boolean;
  rules: JsonObject;
  parameters: JsonObject;
}


function rowsOf(checks: EffectiveChecks, target: 'table' | 'column', column: string | null): EffectiveCheckRow[] {
  const containers: Array<[EffectiveCheckRow['check_type'], EffectiveCheckRow['time_scale'], EffectiveContainer]> = [
    ['profiling', null, checks.profiling],
    ['monitoring', 'daily', checks.monitoring.daily],
    ['monitoring', 'monthly', checks.monitoring.monthly],
    ['partitioned', 'daily', checks.partitioned.daily],
    ['partitioned', 'monthly', checks.partitioned.monthly],
  ];
  const rows: EffectiveCheckRow[] = [];
  for (const [checkType, timeScale, container] of containers) {
    for (const [category, byName] of Object.entries(container)) {
      for (const [checkName, effective] of Object.entries(byName)) {
        const rules: JsonObject = {};
        for (const key of RULE_SEVERITIES) if (isJsonObject(effective.spec[key])) rules[key] = effective.spec[key];
        const origin = effective.origin;
        rows.push({
          target,
          column_name: column,
          check_type: checkType,
          time_scale: timeScale,
          check_category: category,
          check_name: checkName,
          origin: origin.source === 'policy' ? { source: 'policy', policy_name: origin.policyName, priority: origin.priority } : { source: 'table', policy_name: null, priority: null },
          disabled: effective.spec.disabled === true,
          rules,
          parameters: isJsonObject(effective.spec.parameters) ? effective.spec.parameters : {},
        });
      }
    }
  }
  return rows;
}

export async function tableEffectiveChecks(objects: LiveObjects, table: LiveObject): Promise<EffectiveCheckRow[]> {
  const ref = tableRefOf(table.name, table.spec);
  if (!ref) return [];
  const [connection, tablePolicies, columnPolicies] = await Promise.all([
    objects.get('source', ref.connection),
    objects.list('default_table_checks'),
    objects.list('default_column_checks'),
  ]);
  const effective = effectiveTableAndColumnChecks(ref, connection?.spec, compilePolicies([...tablePolicies, ...columnPolicies]));
  const rows = rowsOf(effective.table, 'table', null);
  for (const [column, checks] of Object.entries(effective.columns)) rows.push(...rowsOf(checks, 'column', column));
  return rows;
}
