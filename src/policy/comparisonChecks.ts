/**
 * The comparison checks of a table or column: `<container>.comparisons.<comparison name>.<check>` as the table
 * file writes them (a column's may name its `reference_column`). They are checks of the table like any other
 * (they run, they have results, they count), but they belong to the table alone: a comparison names one
 * configuration of the table's `table_comparisons`, so policies never carry them and their origin is always
 * the table's own file.
 *
 * `comparisonCategories` says which comparisons a check container model lists, as DQOps's check editor does:
 * every configuration of `table_comparisons` whose `check_type` and `time_scale` name the container (DQOps's
 * default check type is profiling), then any other comparison that has checks configured in the container.
 * DQOps hides configured checks of a comparison whose configuration names another container; they still run
 * here (and count in the table's status), so they are listed too: the editor shows what runs.
 */
import { isJsonObject, type JsonObject } from '../model/index.js';
import type { CheckType, TimeScale } from '../catalog/index.js';
import { OWN_ORIGIN } from './checkOrigin.js';
import { CHECK_SLOTS, COMPARISONS_CATEGORY, type EffectiveCheck } from './checkSlots.js';

/** The key of a column comparison's reference column (not a check). */
export const REFERENCE_COLUMN_KEY = 'reference_column';

/** One comparison's checks in one container. */
export interface EffectiveComparison {
  /** A column comparison's `reference_column`; null for the table's own and when not written (the same name). */
  readonly referenceColumn: string | null;
  /** check name -> check, origin always the table's own. */
  readonly checks: Readonly<Record<string, EffectiveCheck>>;
}

/** The comparisons of one container, by comparison name, in the spec's order. */
export type EffectiveComparisons = Record<string, EffectiveComparison>;

export interface ComparisonsByContainer {
  profiling: EffectiveComparisons;
  monitoring: { daily: EffectiveComparisons; monthly: EffectiveComparisons };
  partitioned: { daily: EffectiveComparisons; monthly: EffectiveComparisons };
}

/** A comparison as a check container model lists it: its name, reference column and configured checks. */
export interface ComparisonCategory extends EffectiveComparison {
  readonly name: string;
}

/** The comparison checks a table or column spec writes, container by container. Checks written as null are not configured. */
export function ownComparisons(ownerSpec: JsonObject): ComparisonsByContainer {
  const result: ComparisonsByContainer = { profiling: {}, monitoring: { daily: {}, monthly: {} }, partitioned: { daily: {}, monthly: {} } };
  const byIndex = [result.profiling, result.monitoring.daily, result.monitoring.monthly, result.partitioned.daily, result.partitioned.monthly];
  for (const slot of CHECK_SLOTS) {
    const comparisons = slot.read(ownerSpec)?.[COMPARISONS_CATEGORY];
    if (!isJsonObject(comparisons)) continue;
    for (const [name, node] of Object.entries(comparisons)) {
      if (!isJsonObject(node) || name === '__proto__') continue;
      const checks: Record<string, EffectiveCheck> = {};
      for (const [checkName, spec] of Object.entries(node)) {
        if (checkName === REFERENCE_COLUMN_KEY || checkName === '__proto__' || !isJsonObject(spec)) continue;
        checks[checkName] = Object.freeze({ spec, origin: OWN_ORIGIN });
      }
      const reference = node[REFERENCE_COLUMN_KEY];
      byIndex[slot.index][name] = Object.freeze({ referenceColumn: typeof reference === 'string' && reference !== '' ? reference : null, checks });
    }
  }
  return result;
}

/** The comparisons of one container of an effective result. */
export function comparisonsIn(comparisons: ComparisonsByContainer, checkType: CheckType, timeScale: TimeScale | null): EffectiveComparisons {
  if (checkType === 'profiling') return comparisons.profiling;
  return comparisons[checkType][timeScale ?? 'daily'];
}

/** The names of the table's `table_comparisons` configurations, in the file's order. */
export function tableComparisonNames(tableSpec: JsonObject): string[] {
  return isJsonObject(tableSpec.table_comparisons) ? Object.keys(tableSpec.table_comparisons).filter((name) => name !== '__proto__') : [];
}

/**
 * The comparisons a check container model of the table (or of one of its columns) lists in one container:
 * the configurations naming the container, then the other comparisons with configured checks there.
 */
export function comparisonCategories(
  tableSpec: JsonObject,
  configured: EffectiveComparisons,
  checkType: CheckType,
  timeScale: TimeScale | null,
): ComparisonCategory[] {
  const configurations = isJsonObject(tableSpec.table_comparisons) ? tableSpec.table_comparisons : {};
  const categories: ComparisonCategory[] = [];
  const listed = new Set<string>();
  const add = (name: string) => {
    listed.add(name);
    const own = Object.hasOwn(configured, name) ? configured[name] : undefined;
    categories.push({ name, referenceColumn: own?.referenceColumn ?? null, checks: own?.checks ?? {} });
  };
  for (const name of tableComparisonNames(tableSpec)) {
    const configuration = configurations[name];
    if (isJsonObject(configuration) && namesContainer(configuration, checkType, timeScale)) add(name);
  }
  for (const [name, comparison] of Object.entries(configured)) {
    if (!listed.has(name) && Object.keys(comparison.checks).length > 0) add(name);
  }
  return categories;
}

/** Whether a comparison configuration's check type and time scale name the container (DQOps: profiling unless said). */
function namesContainer(configuration: JsonObject, checkType: CheckType, timeScale: TimeScale | null): boolean {
  const type = typeof configuration.check_type === 'string' ? configuration.check_type : 'profiling';
  if (type !== checkType) return false;
  if (checkType === 'profiling') return true;
  return (typeof configuration.time_scale === 'string' ? configuration.time_scale : 'daily') === timeScale;
}

/** The comparisons a check container model of the table (`column` null) or of one of its columns lists. */
export function containerComparisons(tableSpec: JsonObject, column: string | null, checkType: CheckType, timeScale: TimeScale | null): ComparisonCategory[] {
  const columns = isJsonObject(tableSpec.columns) ? tableSpec.columns : {};
  const columnSpec = column !== null && Object.hasOwn(columns, column) ? columns[column] : undefined;
  const owner = column === null ? tableSpec : isJsonObject(columnSpec) ? columnSpec : {};
  return comparisonCategories(tableSpec, comparisonsIn(ownComparisons(owner), checkType, timeScale), checkType, timeScale);
}
