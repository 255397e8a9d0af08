import { createHash } from 'node:crypto';
import { getCheckCatalog, type CatalogCheck } from '../../catalog/index.js';
import type { DataGroupingLevel } from '../../datasource/sensors/index.js';
import { checkDefinitionName, DqError, isJsonObject, type JsonValue, RULE_SEVERITIES, tableKey, type CheckType, type JsonObject, type LiveObject, type TimeScale } from '../../model/index.js';
import {
  COMPARISONS_CATEGORY,
  comparisonsIn,
  compileNamePattern,
  dataGroupingLevelsOf,
  effectiveTableAndColumnChecks,
  tableRefOf,
  type CheckOrigin,
  type CompiledPolicies,
  type EffectiveChecks,
  type TableRef,
} from '../../policy/index.js';

/**
 * Which checks a run executes: the EFFECTIVE checks (the table file's plus what matching policies add) of the
 * tables the CheckSearchFilters select, narrowed by the filters. Pure: the caller reads the live store.
 */
export interface CheckSearchFilters {
  connection?: string;
  /** `schema.table` with `*` wildcards (comma lists allowed). */
  fullTableName?: string;
  /** true (default): enabled tables, columns and checks only; false: only disabled ones. */
  enabled?: boolean;
  column?: string;
  columnDataType?: string;
  checkType?: CheckType;
  timeScale?: TimeScale;
  checkCategory?: string;
  checkName?: string;
  sensorName?: string;
  /** Only the comparison checks of this table comparison (a name of the table's table_comparisons). */
  tableComparisonName?: string;
  /** `table`: table-level checks only; `column`: column checks only. */
  checkTarget?: 'table' | 'column';
  /** Only columns whose type_snapshot says nullable (true) or not (false); leaves table-level checks out. */
  columnNullable?: boolean;
  /** Only tables that carry each of these labels (`*` wildcards). */
  labels?: string[];
}

/** Filters of CheckSearchFilters that check runs and error-sample collections cannot apply: refused, not ignored. */
export const UNSUPPORTED_CHECK_FILTERS = ['tags', 'qualityDimension', 'maxResults'] as const;

/** INVALID_ARGUMENT for a job whose check_search_filters hold a filter it could only ignore (running more than asked). */
export function refuseUnsupportedCheckFilters(parameters: JsonObject): void {
  const filters = isJsonObject(parameters.check_search_filters) ? parameters.check_search_filters : {};
  for (const key of UNSUPPORTED_CHECK_FILTERS) {
    const value = filters[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    throw new DqError('INVALID_ARGUMENT', `check_search_filters.${key} is not supported by this version of dqctl; leave it out`);
  }
}

export type { CheckType, TimeScale } from '../../model/index.js';

export interface PlannedCheck {
  table: TableRef;
  /** Column name for column checks. */
  column: string | null;
  checkType: CheckType;
  timeScale: TimeScale | null;
  category: string;
  checkName: string;
  catalog: CatalogCheck;
  /** The check's spec: parameters, warning/error/fatal, flags. */
  spec: JsonObject;
  /** A stable integer (< 2^53) naming this check on this table/column, DQOps's check hash. */
  checkHash: number;
  /** The table's data grouping levels (policy/dataGrouping): the same for every check of the table. */
  grouping: readonly DataGroupingLevel[];
  /** Set for the checks of the `comparisons` category: which table comparison, and the reference column. */
  comparison?: PlannedComparison;
  /** Where the check comes from: the table's own file or a policy (absent: the table's own). */
  origin?: CheckOrigin;
}

export interface PlannedComparison {
  /** The key of the comparison in the table's `table_comparisons`. */
  name: string;
  /** The column of the reference table compared with this check's column (`reference_column`, default the same name). */
  referenceColumn: string | null;
}

/** The thresholds a check's rule judges with, by severity: a key present (even `{}` or null) is a severity configured. */
export function ruleSeveritiesOf(spec: JsonObject): Record<string, JsonObject | null> {
  const severities: Record<string, JsonObject | null> = {};
  for (const severity of RULE_SEVERITIES) {
    if (severity in spec) severities[severity] = isJsonObject(spec[severity]) ? spec[severity] : null;
  }
  return severities;
}

export function checkHashOf(tableName: string, column: string | null, checkType: string, timeScale: string | null, checkName: string): number {
  const digest = createHash('sha256').update(JSON.stringify([tableName, column, checkType, timeScale, checkName])).digest();
  return digest.readUIntBE(0, 6);
}

function containersOf(checks: EffectiveChecks): Array<[CheckType, TimeScale | null, Record<string, Record<string, { spec: JsonObject; origin: CheckOrigin }>>]> {
  return [
    ['profiling', null, checks.profiling],
    ['monitoring', 'daily', checks.monitoring.daily],
    ['monitoring', 'monthly', checks.monitoring.monthly],
    ['partitioned', 'daily', checks.partitioned.daily],
    ['partitioned', 'monthly', checks.partitioned.monthly],
  ];
}

/** Tables of the live store the filters select (connection, fullTableName, enabled). */
export function selectTables(tables: readonly LiveObject[], filters: CheckSearchFilters): TableRef[] {
  const connection = compileNamePattern(filters.connection);
  const full = compileNamePattern(filters.fullTableName);
  const enabled = filters.enabled ?? true;
  const out: TableRef[] = [];
  for (const object of tables) {
    const ref = tableRefOf(object.name, object.spec);
    if (!ref) continue;
    if (connection && !connection.matches(ref.connection)) continue;
    if (full && !full.matches(`${ref.schema}.${ref.table}`)) continue;
    if ((object.spec.disabled === true) === enabled) continue;
    out.push(ref);
  }
  return out;
}

export function plannedChecksOfTable(
  table: TableRef,
  connectionSpec: JsonObject | undefined,
  policies: CompiledPolicies,
  filters: CheckSearchFilters,
  /** The check definitions of the live store (checks/…/<name>.dqocheck.yaml) by name, for custom checks. */
  checkDefinitions: ReadonlyMap<string, JsonObject> = new Map(),
): PlannedCheck[] {
  const catalog = getCheckCatalog();
  const enabled = filters.enabled ?? true;
  const category = compileNamePattern(filters.checkCategory);
  const name = compileNamePattern(filters.checkName);
  const sensor = compileNamePattern(filters.sensorName);
  const effective = effectiveTableAndColumnChecks(table, connectionSpec, policies);
  const columnSelected = columnSelector(table, filters, connectionSpec);
  const targets: Array<[string | null, EffectiveChecks]> = [];
  if (columnSelected(null)) targets.push([null, effective.table]);
  for (const [column, checks] of Object.entries(effective.columns)) {
    if (columnSelected(column)) targets.push([column, checks]);
  }
  const planned: PlannedCheck[] = [];
  const tableName = tableKey(table);
  const grouping = dataGroupingLevelsOf(table.spec, connectionSpec);
  for (const [column, checks] of targets) {
    for (const [checkType, timeScale, container] of containersOf(checks)) {
      if (filters.checkType && filters.checkType !== checkType) continue;
      if (filters.timeScale && timeScale !== null && filters.timeScale !== timeScale) continue;
      if (checkType === 'partitioned' && !partitionColumnOf(table.spec)) continue;
      for (const [categoryName, byName] of Object.entries(container)) {
        if (category && !category.matches(categoryName)) continue;
        for (const [checkName, check] of Object.entries(byName)) {
          if (name && !name.matches(checkName)) continue;
          if ((check.spec.disabled === true) === enabled) continue;
          const known = catalogCheckOf(checkName, check.spec, { target: column === null ? 'table' : 'column', checkType, timeScale, category: categoryName }, checkDefinitions);
          if (!known) continue;
          if (sensor && !sensor.matches(known.sensor)) continue;
          planned.push({
            table,
            column,
            checkType,
            timeScale,
            category: categoryName,
            checkName,
            catalog: known,
            spec: check.spec,
            checkHash: checkHashOf(tableName, column, checkType, timeScale, checkName),
            grouping,
            origin: check.origin,
          });
        }
      }
    }
  }
  planned.push(...comparisonChecksOfTable(table, targets, filters, grouping));
  return planned;
}

/**
 * What a check runs: a built-in check's sensor and rule, or those a custom check names (`sensor_name`,
 * `rule_name` of DQOps's CustomCheckSpec, under a category's `custom_checks` or the container's `custom`), which
 * also override a built-in check's; else those of the custom check's definition
 * (checks/<target>/<type>[/<scale>]/<category>/<name>.dqocheck.yaml; `custom` is the category of the root map),
 * as DQOps looks it up. Undefined for a check that names neither and has no definition (it cannot run).
 */
export function catalogCheckOf(
  checkName: string,
  spec: JsonObject,
  place: { target: 'table' | 'column'; checkType: CheckType; timeScale: TimeScale | null; category: string },
  checkDefinitions: ReadonlyMap<string, JsonObject> = new Map(),
): CatalogCheck | undefined {
  const known = getCheckCatalog().checkByName(checkName);
  const definition = known
    ? undefined
    : checkDefinitions.get(checkDefinitionName({ ...place, timeScale: place.timeScale ?? undefined, name: checkName }));
  const named = (value: JsonValue | undefined) => (typeof value === 'string' && value !== '' ? value : undefined);
  const sensorName = named(spec.sensor_name) ?? named(definition?.sensor_name);
  const ruleName = named(spec.rule_name) ?? named(definition?.rule_name);
  if (known) return sensorName || ruleName ? { ...known, sensor: sensorName ?? known.sensor, rule: ruleName ?? known.rule } : known;
  if (!sensorName || !ruleName) return undefined;
  const severity = named(definition?.default_severity);
  return {
    checkName,
    ...place,
    sensor: sensorName,
    rule: ruleName,
    defaultSeverity: severity === 'warning' ? 'warning' : 'error',
    standard: false,
    baseName: checkName,
  };
}

const labelsOf = (spec: JsonObject | undefined): string[] => (spec && Array.isArray(spec.labels) ? spec.labels.filter((l): l is string => typeof l === 'string') : []);

/**
 * Whether the checks of a column (null: the table's own checks) are selected by the column, data type,
 * nullable, target, label and enabled filters. Table checks are left out as soon as a column filter is given.
 * Labels: each filter label must match a label of the connection or the table (for a column's checks, also of
 * the column), as in the bulk activation of checks.
 */
export function columnSelector(table: TableRef, filters: CheckSearchFilters, connectionSpec?: JsonObject): (column: string | null) => boolean {
  const enabled = filters.enabled ?? true;
  const labelFilters = (filters.labels ?? []).map((label) => compileNamePattern(label)).filter((label) => label !== undefined);
  const tableLabels = [...labelsOf(connectionSpec), ...labelsOf(table.spec)];
  const labelsPass = (labels: string[]) => labelFilters.every((filter) => labels.some((label) => filter.matches(label)));
  const columnFilter = compileNamePattern(filters.column);
  const typeFilter = compileNamePattern(filters.columnDataType);
  const columns = isJsonObject(table.spec.columns) ? table.spec.columns : {};
  const nullable = filters.columnNullable;
  return (column) => {
    if (column === null) return !columnFilter && !typeFilter && nullable === undefined && filters.checkTarget !== 'column' && labelsPass(tableLabels);
    if (filters.checkTarget === 'table') return false;
    const columnSpec = isJsonObject(columns[column]) ? columns[column] : {};
    if (!labelsPass([...tableLabels, ...labelsOf(columnSpec)])) return false;
    if ((columnSpec.disabled === true) === enabled) return false;
    if (columnFilter && !columnFilter.matches(column)) return false;
    const snapshot = isJsonObject(columnSpec.type_snapshot) ? columnSpec.type_snapshot : {};
    if (nullable !== undefined && (snapshot.nullable === true) !== nullable) return false;
    return !typeFilter || typeFilter.matches(typeof snapshot.column_type === 'string' ? snapshot.column_type : '');
  };
}

/**
 * The comparison checks of the selected table and columns (`targets`): the `comparisons` of their effective
 * checks (policy/comparisonChecks: the table file's own, as policies carry none). The `comparisons` category
 * and check filters apply as to any check; `tableComparisonName` selects the comparisons.
 */
function comparisonChecksOfTable(
  table: TableRef,
  targets: ReadonlyArray<[string | null, EffectiveChecks]>,
  filters: CheckSearchFilters,
  grouping: readonly DataGroupingLevel[],
): PlannedCheck[] {
  const catalog = getCheckCatalog();
  const enabled = filters.enabled ?? true;
  const category = compileNamePattern(filters.checkCategory);
  const name = compileNamePattern(filters.checkName);
  const sensor = compileNamePattern(filters.sensorName);
  const comparisonFilter = compileNamePattern(filters.tableComparisonName);
  if (category && !category.matches(COMPARISONS_CATEGORY)) return [];
  const tableName = tableKey(table);
  const planned: PlannedCheck[] = [];
  for (const [column, checks] of targets) {
    for (const [checkType, timeScale] of CONTAINERS) {
      if (filters.checkType && filters.checkType !== checkType) continue;
      if (filters.timeScale && timeScale !== null && filters.timeScale !== timeScale) continue;
      if (checkType === 'partitioned' && !partitionColumnOf(table.spec)) continue;
      for (const [comparisonName, comparison] of Object.entries(comparisonsIn(checks.comparisons, checkType, timeScale))) {
        if (comparisonFilter && !comparisonFilter.matches(comparisonName)) continue;
        const referenceColumn = column === null ? null : (comparison.referenceColumn ?? column);
        for (const [checkName, check] of Object.entries(comparison.checks)) {
          if (name && !name.matches(checkName)) continue;
          if ((check.spec.disabled === true) === enabled) continue;
          const known = catalog.checkByName(checkName);
          if (!known || known.category !== COMPARISONS_CATEGORY) continue;
          if (sensor && !sensor.matches(known.sensor)) continue;
          planned.push({
            table,
            column,
            checkType,
            timeScale,
            category: COMPARISONS_CATEGORY,
            checkName,
            catalog: known,
            spec: check.spec,
            checkHash: checkHashOf(tableName, column, checkType, timeScale, `${COMPARISONS_CATEGORY}/${comparisonName}/${checkName}`),
            grouping,
            comparison: { name: comparisonName, referenceColumn },
            origin: check.origin,
          });
        }
      }
    }
  }
  return planned;
}

const CONTAINERS: ReadonlyArray<[CheckType, TimeScale | null]> = [
  ['profiling', null],
  ['monitoring', 'daily'],
  ['monitoring', 'monthly'],
  ['partitioned', 'daily'],
  ['partitioned', 'monthly'],
];

export function partitionColumnOf(spec: JsonObject): string | undefined {
  const timestamps = isJsonObject(spec.timestamp_columns) ? spec.timestamp_columns : {};
  return typeof timestamps.partition_by_column === 'string' && timestamps.partition_by_column !== '' ? timestamps.partition_by_column : undefined;
}
