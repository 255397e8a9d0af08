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
 * - The `comparisons` category has a different shape (comparison name, then checks) and belongs to the table
 *   alone: it is kept apart in `comparisons` (see comparisonChecks), always the table's or column's own; the
 *   comparisons of policies are ignored.
 * - Check specs are the input objects themselves, not copies, and the `{spec, origin}` entries of a policy's
 *   checks are shared (frozen) by every table it reaches: treat the result as read-only.
 *
 * For many tables, compile the policies once (`compilePolicies`) and pass the compiled form.
 */
import type { JsonObject } from '../model/index.js';
import type { CheckType, TimeScale } from '../catalog/index.js';
import { OWN_ORIGIN } from './checkOrigin.js';
import type { CheckPlaces } from './checkPlaces.js';
import { flattenChecks, type EffectiveCheck, type FlatCheck } from './checkSlots.js';
import { ownComparisons, type ComparisonsByContainer } from './comparisonChecks.js';
import { asCompiled, type CompiledPolicies, type CompiledPolicy, type PolicyObject } from './compilePolicies.js';
import {
  columnNamesOf,
  columnSubject,
  tableSubject,
  type ColumnSubject,
  type TableRef,
  type TableSubject,
} from './subjects.js';

/** Checks of one container: category -> check name -> check. */
export type EffectiveContainer = Record<string, Record<string, EffectiveCheck>>;

export interface EffectiveChecks {
  profiling: EffectiveContainer;
  monitoring: { daily: EffectiveContainer; monthly: EffectiveContainer };
  partitioned: { daily: EffectiveContainer; monthly: EffectiveContainer };
  /** The comparison checks written in the table or column spec, container by container. */
  comparisons: ComparisonsByContainer;
}

export interface EffectiveTableAndColumnChecks {
  table: EffectiveChecks;
  /** Every column the table spec lists, by name. */
  columns: Record<string, EffectiveChecks>;
}

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
  const result = emptyChecks(ownerSpec);
  const containers = containersOf(result);
  for (const check of flattenChecks(ownerSpec, OWN_ORIGIN)) put(containers, check);
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
  const compiled = asCompiled(policies);
  return columnChecksOf(columnSubject(tableSubject(table, connectionSpec), columnName), compiled.column, false, compiled.places);
}

/** The table's checks and those of every column it lists, sharing the work of reading the table once. */
export function effectiveTableAndColumnChecks(
  table: TableRef,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies | readonly PolicyObject[],
): EffectiveTableAndColumnChecks {
  const compiled = asCompiled(policies);
  const subject = tableSubject(table, connectionSpec);
  // The table part of the column policies' targets is decided once for all the columns.
  const candidates = subject.disabled ? [] : compiled.column.filter((p) => !p.disabled && p.matchesTableFields(subject));
  const columns: Record<string, EffectiveChecks> = {};
  for (const name of columnNamesOf(table.spec)) columns[name] = columnChecksOf(columnSubject(subject, name), candidates, true, compiled.places);
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
  return evaluate(table.spec, table.disabled ? [] : compiled.table, (p) => !p.disabled && p.matchesTable(table), table.partitioned, compiled.places);
}

/** `tableChecked`: the policies are the enabled ones whose table part matched already. */
function columnChecksOf(column: ColumnSubject, policies: readonly CompiledPolicy[], tableChecked: boolean, places: CheckPlaces): EffectiveChecks {
  const matches = tableChecked
    ? (p: CompiledPolicy) => p.matchesColumnFields(column)
    : (p: CompiledPolicy) => !p.disabled && p.matchesColumn(column);
  return evaluate(column.spec, column.disabled ? [] : policies, matches, column.table.partitioned, places);
}

/** Own checks first, then the checks of the matching policies in order, each place taken by the first. */
function evaluate(
  ownerSpec: JsonObject,
  policies: readonly CompiledPolicy[],
  matches: (policy: CompiledPolicy) => boolean,
  partitioned: boolean,
  places: CheckPlaces,
): EffectiveChecks {
  const result = emptyChecks(ownerSpec);
  const containers = containersOf(result);
  places.reset();
  for (const check of flattenChecks(ownerSpec, OWN_ORIGIN, places.idOf)) {
    if (check.id >= 0) places.take(check.id);
    put(containers, check);
  }
  for (const policy of policies) {
    if (!matches(policy)) continue;
    for (const check of policy.checks) {
      if ((check.partitioned && !partitioned) || !places.take(check.id)) continue;
      put(containers, check);
    }
  }
  return result;
}

function put(containers: readonly EffectiveContainer[], check: FlatCheck): void {
  const container = containers[check.slot];
  let category = Object.hasOwn(container, check.category) ? container[check.category] : undefined;
  if (category === undefined) {
    category = {};
    container[check.category] = category;
  }
  category[check.checkName] = check.effective;
}

function containersOf(checks: EffectiveChecks): EffectiveContainer[] {
  return [checks.profiling, checks.monitoring.daily, checks.monitoring.monthly, checks.partitioned.daily, checks.partitioned.monthly];
}

/** No check of the five containers yet; the owner's comparisons, which nothing else contributes to. */
function emptyChecks(ownerSpec: JsonObject): EffectiveChecks {
  return { profiling: {}, monitoring: { daily: {}, monthly: {} }, partitioned: { daily: {}, monthly: {} }, comparisons: ownComparisons(ownerSpec) };
}
