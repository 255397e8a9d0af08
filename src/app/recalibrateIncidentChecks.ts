import type { CheckType, Int64, TimeScale } from '../model/index.js';
import { getCheckCatalog, type CatalogRule } from '../catalog/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';
import { customRulesOf, resolveRule } from '../jobs/checkRun/checkRules.js';
import { plannedChecksOfTable, type PlannedCheck } from '../jobs/checkRun/plannedChecks.js';
import { checkIdentity } from '../jobs/checkRun/resultRows.js';
import { DqError, isJsonObject, tableKey, type JsonObject, type RuleSeverity } from '../model/index.js';
import { compilePolicies, tableRefOf } from '../policy/index.js';
import { loosenedRuleParameters, type RuleParameters } from '../rules/index.js';
import type { CheckResultRow, IncidentRecord, Store } from '../store/store.js';

/**
 * "Recalibrate the checks of an incident" (DQOps's recalibrate_checks_for_incident): the checks that can raise
 * the incident become less sensitive, so they raise fewer issues.
 * - Which checks: the table's effective checks (its own and its policies') that match the incident's grouping
 *   key: its quality dimension, check category, check type and check name where the incident has them (the
 *   data group is not part of a check). Profiling checks are left alone, and so are checks without a threshold.
 * - What changes: for each severity (fatal, error, warning) that has thresholds and that the check's recent
 *   results reached at least once, the rule's parameters are loosened (src/rules/recalibrateRule.ts). Recent:
 *   the month of the table's newest result and the two months before it, all data groups. The rule is found as
 *   a check run finds it (jobs/checkRun/checkRules): a built-in check whose rule a custom rule file replaces is
 *   loosened as the built-in rule (its thresholds keep the built-in parameters, as DQOps's typed parameters do);
 *   a custom check (`custom_checks`, `custom`: DQOps's CustomRuleParametersSpec) is left as it is, whatever its
 *   rule, as DQOps leaves it (no way to know what a custom rule's parameters mean).
 * - Where: in the table's spec, as an API write (it shows as drift until the repository has it too). A check a
 *   policy gives the table is written into the table with its thresholds, as DQOps does; from then on the
 *   table's own copy wins over the policy.
 */
export interface RecalibratedCheck {
  column: string | null;
  checkType: CheckType;
  timeScale: TimeScale | null;
  category: string;
  checkName: string;
  /** Severities whose thresholds changed. */
  loosened: RuleSeverity[];
  /** The check came from a policy and is now written in the table. */
  fromPolicy: boolean;
}

const SLOTS = ['fatal', 'error', 'warning'] as const;
const SEVERITY_NUMBER: Record<RuleSeverity, number> = { warning: 1, error: 2, fatal: 3 };
const MONTHS_OF_HISTORY = 3;

export async function recalibrateIncidentChecks(
  deps: { store: Store; objects: LiveObjects },
  incident: IncidentRecord,
  caller: string,
): Promise<RecalibratedCheck[]> {
  const connection = await deps.objects.get('source', incident.connection);
  if (!connection) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(incident.connection)} not found`);
  const name = tableKey({ connection: incident.connection, schema: incident.schema, table: incident.table });
  const table = await deps.objects.get('table', name);
  const ref = table && tableRefOf(table.name, table.spec);
  if (!ref) return [];
  const [tablePolicies, columnPolicies, definitions, rules] = await Promise.all([
    deps.objects.list('default_table_checks'),
    deps.objects.list('default_column_checks'),
    deps.objects.list('check'),
    deps.objects.list('rule'),
  ]);
  const customRules = customRulesOf(rules);
  const checkDefinitions = new Map(definitions.map((d) => [d.name, d.spec]));
  const checks = plannedChecksOfTable(ref, connection.spec, compilePolicies([...tablePolicies, ...columnPolicies]), {}, checkDefinitions).filter(
    (check) => check.checkType !== 'profiling' && matchesIncident(check, incident) && SLOTS.some((slot) => isJsonObject(check.spec[slot])),
  );
  if (checks.length === 0) return [];

  const history = groupByCheck(await recentResults(deps.store, incident));
  const planned = checks.map((check) => {
    const rows = history.get(check.checkHash) ?? [];
    const rule = loosenedAs(check, customRules);
    const changes: Partial<Record<RuleSeverity, JsonObject>> = {};
    const actualValues = rows.flatMap((r) => (r.actualValue === null ? [] : [r.actualValue]));
    // like DQOps: without a recent actual value there is nothing to measure the thresholds against
    if (rule && actualValues.length > 0) {
      const newest = rows.reduce((a, b) => (b.executedAt > a.executedAt ? b : a));
      for (const slot of SLOTS) {
        if (!isJsonObject(check.spec[slot]) || !rows.some((r) => r.severity === SEVERITY_NUMBER[slot])) continue;
        const loosened = loosenedRuleParameters(rule, { severity: slot, checkBaseName: check.catalog.baseName }, check.spec[slot] as RuleParameters, {
          actualValues,
          newestActualValue: newest.actualValue,
        });
        if (loosened) changes[slot] = loosened;
      }
    }
    return { check, changes };
  });

  // nothing loosened and nothing to copy from a policy: no write (and no drift)
  if (planned.every(({ check, changes }) => Object.keys(changes).length === 0 && ownCheck(table.spec, check) !== undefined)) return [];
  const outcome: RecalibratedCheck[] = [];
  await deps.objects.update('table', name, { caller }, (current) => {
    const spec = structuredClone(current.spec);
    outcome.length = 0;
    for (const { check, changes } of planned) {
      const own = ownCheck(spec, check) !== undefined;
      const holder = checkHolder(spec, check);
      if (!own) holder[check.checkName] = structuredClone(check.spec);
      const written = holder[check.checkName] as JsonObject;
      for (const [slot, parameters] of Object.entries(changes)) written[slot] = parameters;
      outcome.push({
        column: check.column,
        checkType: check.checkType,
        timeScale: check.timeScale,
        category: check.category,
        checkName: check.checkName,
        loosened: SLOTS.filter((slot) => changes[slot] !== undefined),
        fromPolicy: !own,
      });
    }
    return { spec };
  });
  return outcome;
}

/**
 * The rule whose parameters a check's thresholds are, for loosening: a built-in check's own rule (replaced by a
 * custom rule file or not); undefined for a custom check (or a rule name override), whose parameters are the
 * custom rule's own.
 */
function loosenedAs(check: PlannedCheck, customRules: ReturnType<typeof customRulesOf>): CatalogRule | undefined {
  const builtInCheck = getCheckCatalog().checkByName(check.checkName);
  if (!builtInCheck || builtInCheck.rule !== check.catalog.rule) return undefined;
  const resolution = resolveRule(check.catalog.rule, customRules);
  if (resolution.kind === 'built_in') return resolution.rule;
  return resolution.kind === 'custom' ? resolution.builtIn : undefined;
}

/** Whether a check can raise the incident: the key fields the incident has set, equal (DQOps's check filter). */
function matchesIncident(check: PlannedCheck, incident: IncidentRecord): boolean {
  return (
    (incident.checkType === null || incident.checkType === check.checkType) &&
    (incident.checkCategory === null || incident.checkCategory === check.category) &&
    (incident.checkName === null || incident.checkName === check.checkName) &&
    (incident.qualityDimension === null || incident.qualityDimension === checkIdentity(check, '').qualityDimension)
  );
}

/** The table's results of the month of its newest result and the months before it (MONTHS_OF_HISTORY in all). */
async function recentResults(store: Store, incident: IncidentRecord): Promise<CheckResultRow[]> {
  const table = { connectionName: incident.connection, schemaName: incident.schema, tableName: incident.table };
  const newest = await store.checkResults({ ...table, newest: { of: 'periods', count: 1 } });
  if (newest.length === 0) return [];
  const last = new Date(newest.reduce((a, b) => (b.timePeriod > a ? b.timePeriod : a), newest[0].timePeriod));
  const from = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() - (MONTHS_OF_HISTORY - 1), 1)).toISOString();
  return store.checkResults({ ...table, timePeriodFrom: from });
}

function groupByCheck(rows: readonly CheckResultRow[]): Map<Int64, CheckResultRow[]> {
  const byHash = new Map<Int64, CheckResultRow[]>();
  for (const row of rows) {
    const list = byHash.get(row.checkHash);
    if (list) list.push(row);
    else byHash.set(row.checkHash, [row]);
  }
  return byHash;
}

/** The check as the table spec itself writes it; undefined when the check comes from a policy. */
function ownCheck(spec: JsonObject, check: PlannedCheck): JsonObject | undefined {
  const path = checkPath(check);
  let at: unknown = spec;
  for (const key of [...path, check.checkName]) at = isJsonObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
  return isJsonObject(at) ? at : undefined;
}

/** The keys from the table spec down to the object that holds the check (column, container, category or comparison). */
function checkPath(check: PlannedCheck): string[] {
  return [
    ...(check.column !== null ? ['columns', check.column] : []),
    check.checkType === 'monitoring' ? 'monitoring_checks' : 'partitioned_checks',
    check.timeScale ?? 'daily',
    ...(check.comparison ? ['comparisons', check.comparison.name] : [check.category]),
  ];
}

/** The object holding a check in a table spec (column, container, category or comparison), created when absent. */
function checkHolder(spec: JsonObject, check: PlannedCheck): JsonObject {
  let holder = spec;
  for (const key of checkPath(check)) {
    if (!isJsonObject(holder[key])) holder[key] = {};
    holder = holder[key] as JsonObject;
  }
  return holder;
}
