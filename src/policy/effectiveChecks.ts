/**
 * The checks that apply to a table or a column: the ones written in its own spec, plus the checks of the
 * enabled policies whose target matches it. Policies apply in ascending priority, check by check: a check is
 * added only where the table or column does not have it yet, so a check written in the table file always wins
 * (even a disabled one: that is how one table opts out of a policy check), and among policies the lower
 * priority number wins. Policies are never written into the table; this is computed whenever it is needed.
 *
 * - Partitioned checks of policies reach only tables with `timestamp_columns.partition_by_column`.
 * - A disabled table or column keeps its own checks (they are still its configuration) but gets nothing from
 *   policies: nothing runs on it, and listing policy checks there would only be noise. Column policies do not
 *   reach the columns of a disabled table.
 * - The `comparisons` category is left out: comparison checks belong to the table comparisons configured on the
 *   table itself (`table_comparisons`) and have a different shape (comparison name, then checks).
 * - Check specs are the input objects themselves, not copies: treat the result as read-only.
 */
import { isJsonObject, type JsonObject } from '../model/index.js';
import type { CheckType, TimeScale } from '../catalog/index.js';
import { OWN_ORIGIN, type CheckOrigin } from './checkOrigin.js';
import { asCompiled, type CompiledPolicies, type CompiledPolicy, type PolicyObject } from './compilePolicies.js';
import {
  columnNamesOf,
  columnSubject,
  tableSubject,
  type ColumnSubject,
  type TableRef,
  type TableSubject,
} from './subjects.js';

export interface EffectiveCheck {
  readonly spec: JsonObject;
  readonly origin: CheckOrigin;
}

/** Checks of one container: category -> check name -> check. */
export type EffectiveContainer = Record<string, Record<string, EffectiveCheck>>;

export interface EffectiveChecks {
  profiling: EffectiveContainer;
  monitoring: { daily: EffectiveContainer; monthly: EffectiveContainer };
  partitioned: { daily: EffectiveContainer; monthly: EffectiveContainer };
}

export interface EffectiveTableAndColumnChecks {
  table: EffectiveChecks;
  /** Every column the table spec lists, by name. */
  columns: Record<string, EffectiveChecks>;
}

export const COMPARISONS_CATEGORY = 'comparisons';

/** The checks of one container of an effective result. */
export function effectiveContainer(checks: EffectiveChecks, checkType: CheckType, timeScale: TimeScale | null): EffectiveContainer {
  if (checkType === 'profiling') return checks.profiling;
  return checks[checkType][timeScale ?? 'daily'];
}

/** One check of a container, if it is there (own keys only: names come from clients). */
export function lookupCheck(container: EffectiveContainer | undefined, category: string, checkName: string): EffectiveCheck | undefined {
  if (container === undefined || !Object.hasOwn(container, category)) return undefined;
  const checks = container[category];
  return Object.hasOwn(checks, checkName) ? checks[checkName] : undefined;
}

/** The checks written in a table, column or policy spec, all with origin `table` ("its own"). */
export function ownChecks(ownerSpec: JsonObject): EffectiveChecks {
  const result = emptyChecks();
  for (const slot of SLOTS) addChecks(slot.get(result), slot.read(ownerSpec), OWN_ORIGIN);
  return result;
}

export function effectiveTableChecks(
  table: TableRef,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
): EffectiveChecks {
  return tableChecksOf(tableSubject(table, connectionSpec), asCompiled(policies));
}

export function effectiveColumnChecks(
  table: TableRef,
  columnName: string,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
): EffectiveChecks {
  return columnChecksOf(columnSubject(tableSubject(table, connectionSpec), columnName), asCompiled(policies));
}

/** The table's checks and those of every column it lists, sharing the work of reading the table once. */
export function effectiveTableAndColumnChecks(
  table: TableRef,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
): EffectiveTableAndColumnChecks {
  const compiled = asCompiled(policies);
  const subject = tableSubject(table, connectionSpec);
  const columns: Record<string, EffectiveChecks> = {};
  for (const name of columnNamesOf(table.spec)) columns[name] = columnChecksOf(columnSubject(subject, name), compiled);
  return { table: tableChecksOf(subject, compiled), columns };
}

export interface MatchingOptions {
  /** Also list disabled policies whose target matches (default false). */
  includeDisabled?: boolean;
}

/**
 * Names of the policies whose target matches the table, in the order they apply. Only the target decides:
 * a disabled table is matched too (it simply gets nothing), which is what a "which tables does this policy
 * reach" view needs.
 */
export function policiesMatchingTable(
  table: TableRef,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
  options: MatchingOptions = {},
): string[] {
  const subject = tableSubject(table, connectionSpec);
  return asCompiled(policies).table
    .filter((p) => (options.includeDisabled === true || !p.disabled) && p.matchesTable(subject))
    .map((p) => p.name);
}

/** Names of the column policies whose target matches the column, in the order they apply. */
export function policiesMatchingColumn(
  table: TableRef,
  columnName: string,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
  options: MatchingOptions = {},
): string[] {
  const subject = columnSubject(tableSubject(table, connectionSpec), columnName);
  return asCompiled(policies).column
    .filter((p) => (options.includeDisabled === true || !p.disabled) && p.matchesColumn(subject))
    .map((p) => p.name);
}

function tableChecksOf(table: TableSubject, compiled: CompiledPolicies): EffectiveChecks {
  const result = ownChecks(table.spec);
  if (table.disabled) return result;
  for (const policy of compiled.table) {
    if (!policy.disabled && policy.matchesTable(table)) addPolicyChecks(result, policy, table.partitioned);
  }
  return result;
}

function columnChecksOf(column: ColumnSubject, compiled: CompiledPolicies): EffectiveChecks {
  const result = ownChecks(column.spec);
  if (column.disabled) return result;
  for (const policy of compiled.column) {
    if (!policy.disabled && policy.matchesColumn(column)) addPolicyChecks(result, policy, column.table.partitioned);
  }
  return result;
}

interface Slot {
  partitioned: boolean;
  read(spec: JsonObject): JsonObject | undefined;
  get(checks: EffectiveChecks): EffectiveContainer;
}

const SLOTS: readonly Slot[] = [
  { partitioned: false, read: (s) => objectAt(s.profiling_checks), get: (c) => c.profiling },
  { partitioned: false, read: (s) => objectAt(objectAt(s.monitoring_checks)?.daily), get: (c) => c.monitoring.daily },
  { partitioned: false, read: (s) => objectAt(objectAt(s.monitoring_checks)?.monthly), get: (c) => c.monitoring.monthly },
  { partitioned: true, read: (s) => objectAt(objectAt(s.partitioned_checks)?.daily), get: (c) => c.partitioned.daily },
  { partitioned: true, read: (s) => objectAt(objectAt(s.partitioned_checks)?.monthly), get: (c) => c.partitioned.monthly },
];

function addPolicyChecks(result: EffectiveChecks, policy: CompiledPolicy, partitioned: boolean): void {
  for (const slot of SLOTS) {
    if (slot.partitioned && !partitioned) continue;
    addChecks(slot.get(result), slot.read(policy.spec), policy.origin);
  }
}

/** Adds the checks of a container spec that the result does not have yet. */
function addChecks(into: EffectiveContainer, container: JsonObject | undefined, origin: CheckOrigin): void {
  if (container === undefined) return;
  for (const category of Object.keys(container)) {
    if (category === COMPARISONS_CATEGORY) continue;
    const checks = container[category];
    if (!isJsonObject(checks)) continue;
    let target: Record<string, EffectiveCheck> | undefined = Object.hasOwn(into, category) ? into[category] : undefined;
    for (const checkName of Object.keys(checks)) {
      const spec = checks[checkName];
      // A check written as null is not configured (the same as a missing key).
      if (!isJsonObject(spec)) continue;
      if (target === undefined) {
        target = {};
        into[category] = target;
      } else if (Object.hasOwn(target, checkName)) {
        continue;
      }
      target[checkName] = { spec, origin };
    }
  }
}

function objectAt(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

function emptyChecks(): EffectiveChecks {
  return { profiling: {}, monitoring: { daily: {}, monthly: {} }, partitioned: { daily: {}, monthly: {} } };
}
