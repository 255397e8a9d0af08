import type { LiveObjects } from '../inspect/liveObjects.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../model/index.js';
import { planCheckRun } from './checkRun/planCheckRun.js';

/**
 * A check's schedule of its own (`schedule_override: {cron_expression, disabled}` in a table file or a
 * policy): such a check runs at its own times and is left out of the runs of its connection's scheduling group.
 */

/** The cron expression a check runs at instead of its scheduling group's; undefined when it has none (or it is disabled). */
export function ownScheduleOf(check: JsonObject): string | undefined {
  const override = check.schedule_override;
  if (!isJsonObject(override) || override.disabled === true) return undefined;
  const expression = typeof override.cron_expression === 'string' ? override.cron_expression.trim() : '';
  return expression === '' ? undefined : expression;
}

/**
 * Per connection, the distinct cron expressions of its enabled checks' own schedules (the effective checks:
 * those that policies add included; checks marked do_not_schedule left out). Computed from every table, so
 * kept until any object changes.
 */
export function checkScheduleOverrides(objects: LiveObjects): Promise<Map<string, Set<string>>> {
  return objects.memo('check-schedule-overrides', async () => {
    // Effective checks cost ~0.3 ms a table: only tables that hold a schedule_override are planned, unless a
    // policy holds one (then any table may get it).
    const [tablePolicies, columnPolicies] = await Promise.all([objects.list('default_table_checks'), objects.list('default_column_checks')]);
    const fromPolicies = [...tablePolicies, ...columnPolicies].some((policy) => holdsScheduleOverride(policy.spec));
    const candidates = fromPolicies ? undefined : (await objects.list('table')).filter((table) => holdsScheduleOverride(table.spec));
    if (candidates?.length === 0) return new Map<string, Set<string>>();
    const { work, connections } = await planCheckRun(
      objects,
      {},
      (checks) => checks.filter((c) => c.spec.do_not_schedule !== true && ownScheduleOf(c.spec) !== undefined),
      candidates,
    );
    const byConnection = new Map<string, Set<string>>();
    for (const { table, checks } of work) {
      if (!connections.has(table.connection)) continue;
      const expressions = byConnection.get(table.connection) ?? new Set<string>();
      for (const check of checks) expressions.add(ownScheduleOf(check.spec)!);
      byConnection.set(table.connection, expressions);
    }
    return byConnection;
  });
}

/** Whether a spec holds a `schedule_override` object anywhere (a cheap test before planning its checks). */
function holdsScheduleOverride(value: JsonValue | undefined): boolean {
  if (Array.isArray(value)) return value.some(holdsScheduleOverride);
  if (!isJsonObject(value)) return false;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'schedule_override' && isJsonObject(child)) return true;
    if (holdsScheduleOverride(child)) return true;
  }
  return false;
}
