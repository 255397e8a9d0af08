import { CONTAINER_KEYS, getCheckCatalog, type CheckType, type TimeScale } from '../catalog/index.js';
import { isJsonObject, type JsonObject, type JsonValue, type TableIdentity } from '../model/index.js';

/**
 * DQOps's `table_comparisons` models over a table spec, both ways, without I/O:
 * - a configuration (`TableComparisonConfigurationModel`) is one entry of `spec.table_comparisons`, with the
 *   reference table spelled as DQOps's API spells it (`reference_connection`, `reference_table {schema_name,
 *   table_name}`) instead of the file's `reference_table_*` keys;
 * - a comparison (`TableComparisonModel`) is a configuration plus the comparison checks of one check container:
 *   `<prefix>row_count_match` and `<prefix>column_count_match` of the table and `<prefix>{min,max,sum,mean,
 *   null_count,not_null_count}_match` of each column under `comparisons.<name>` (with the column's
 *   `reference_column`), each check's thresholds as `{warning|error|fatal}_difference_percent` (the
 *   `max_diff_percent` of its severities). A compare that is absent in a model written back removes its check.
 */
export interface ComparisonContainer {
  checkType: CheckType;
  timeScale: TimeScale | null;
}

const PREFIXES: Record<string, string> = {
  profiling: 'profile_',
  'monitoring/daily': 'daily_',
  'monitoring/monthly': 'monthly_',
  'partitioned/daily': 'daily_partition_',
  'partitioned/monthly': 'monthly_partition_',
};

const COLUMN_COMPARES = { compare_min: 'min_match', compare_max: 'max_match', compare_sum: 'sum_match', compare_mean: 'mean_match', compare_null_count: 'null_count_match', compare_not_null_count: 'not_null_count_match' } as const;
const TABLE_COMPARES = { compare_row_count: 'row_count_match', compare_column_count: 'column_count_match' } as const;
const SEVERITIES = ['warning', 'error', 'fatal'] as const;

function prefixOf(container: ComparisonContainer): string {
  return PREFIXES[container.timeScale === null ? container.checkType : `${container.checkType}/${container.timeScale}`];
}

/** Whether the catalog has this comparison check in the container (partitioned checks have no column count). */
function exists(target: 'table' | 'column', container: ComparisonContainer, checkName: string): boolean {
  return getCheckCatalog().checksIn({ target, ...container }, 'comparisons').some((c) => c.checkName === checkName);
}

export function configurationModel(connection: string, schema: string, table: string, name: string, entry: JsonObject): JsonObject {
  const model: JsonObject = {
    table_comparison_configuration_name: name,
    compared_connection: connection,
    compared_table: { schema_name: schema, table_name: table },
    reference_connection: entry.reference_table_connection_name ?? null,
    reference_table: { schema_name: entry.reference_table_schema_name ?? null, table_name: entry.reference_table_name ?? null },
    grouping_columns: Array.isArray(entry.grouping_columns) ? entry.grouping_columns : [],
  };
  for (const key of ['compared_table_filter', 'reference_table_filter', 'check_type', 'time_scale'] as const) if (entry[key] !== undefined) model[key] = entry[key];
  return model;
}

/** The file entry of a configuration model (fields absent from the model keep their current value). */
export function configurationEntry(model: JsonObject, current: JsonObject = {}): JsonObject {
  const entry: JsonObject = { ...current };
  const reference = isJsonObject(model.reference_table) ? model.reference_table : {};
  if (typeof model.reference_connection === 'string') entry.reference_table_connection_name = model.reference_connection;
  if (typeof reference.schema_name === 'string') entry.reference_table_schema_name = reference.schema_name;
  if (typeof reference.table_name === 'string') entry.reference_table_name = reference.table_name;
  for (const key of ['compared_table_filter', 'reference_table_filter', 'check_type', 'time_scale'] as const) {
    if (typeof model[key] === 'string') entry[key] = model[key];
  }
  if (Array.isArray(model.grouping_columns)) {
    entry.grouping_columns = model.grouping_columns
      .filter(isJsonObject)
      .map((pair) => ({ compared_table_column_name: pair.compared_table_column_name ?? null, reference_table_column_name: pair.reference_table_column_name ?? null }));
  }
  return entry;
}

function containerOf(spec: JsonObject, container: ComparisonContainer): JsonObject {
  const top = spec[CONTAINER_KEYS[container.checkType]];
  const node = container.timeScale === null ? top : isJsonObject(top) ? top[container.timeScale] : undefined;
  return isJsonObject(node) ? node : {};
}

function withContainer(spec: JsonObject, container: ComparisonContainer, value: JsonObject): JsonObject {
  const key = CONTAINER_KEYS[container.checkType];
  if (container.timeScale === null) return { ...spec, [key]: value };
  const top = isJsonObject(spec[key]) ? spec[key] : {};
  return { ...spec, [key]: { ...top, [container.timeScale]: value } };
}

function comparisonOf(spec: JsonObject, container: ComparisonContainer, name: string): JsonObject {
  const comparisons = containerOf(spec, container).comparisons;
  const node = isJsonObject(comparisons) ? comparisons[name] : undefined;
  return isJsonObject(node) ? node : {};
}

function withComparison(spec: JsonObject, container: ComparisonContainer, name: string, value: JsonObject): JsonObject {
  const current = containerOf(spec, container);
  const comparisons: JsonObject = { ...(isJsonObject(current.comparisons) ? current.comparisons : {}) };
  if (Object.keys(value).length === 0) delete comparisons[name];
  else comparisons[name] = value;
  return withContainer(spec, container, { ...current, comparisons });
}

function thresholdsOf(check: JsonValue | undefined): JsonObject | undefined {
  if (!isJsonObject(check)) return undefined;
  const model: JsonObject = {};
  for (const severity of SEVERITIES) {
    const rule = check[severity];
    if (isJsonObject(rule) && typeof rule.max_diff_percent === 'number') model[`${severity}_difference_percent`] = rule.max_diff_percent;
  }
  return model;
}

function checkOf(thresholds: JsonObject, current: JsonValue | undefined): JsonObject {
  const check: JsonObject = isJsonObject(current) ? { ...current } : {};
  for (const severity of SEVERITIES) {
    const value = thresholds[`${severity}_difference_percent`];
    if (typeof value === 'number') check[severity] = { max_diff_percent: value };
    else delete check[severity];
  }
  return check;
}

export function comparisonModel(
  table: TableIdentity & { spec: JsonObject },
  container: ComparisonContainer,
  name: string,
): JsonObject | undefined {
  const entries = isJsonObject(table.spec.table_comparisons) ? table.spec.table_comparisons : {};
  const entry = entries[name];
  if (!isJsonObject(entry)) return undefined;
  const prefix = prefixOf(container);
  const checks = comparisonOf(table.spec, container, name);
  const model = configurationModel(table.connection, table.schema, table.table, name, entry);
  model.supports_compare_column_count = exists('table', container, `${prefix}column_count_match`);
  for (const [field, check] of Object.entries(TABLE_COMPARES)) {
    const thresholds = thresholdsOf(checks[`${prefix}${check}`]);
    if (thresholds) model[field] = thresholds;
  }
  const columns = isJsonObject(table.spec.columns) ? table.spec.columns : {};
  model.columns = Object.keys(columns)
    .sort()
    .map((column) => {
      const columnSpec = isJsonObject(columns[column]) ? columns[column] : {};
      const columnChecks = comparisonOf(columnSpec, container, name);
      const item: JsonObject = { compared_column_name: column };
      if (typeof columnChecks.reference_column === 'string') item.reference_column_name = columnChecks.reference_column;
      for (const [field, check] of Object.entries(COLUMN_COMPARES)) {
        const thresholds = thresholdsOf(columnChecks[`${prefix}${check}`]);
        if (thresholds) item[field] = thresholds;
      }
      return item;
    });
  return model;
}

/**
 * The table spec with a comparison model written into it: the configuration and the checks of one container.
 * As DQOps does, the configuration then belongs to that container: its `check_type` and `time_scale` become the
 * container's (a profiling one has no time scale, and keeps `check_type` unwritten when it had none, profiling
 * being the default), so the list filtered by check type and time scale finds it there.
 */
export function applyComparisonModel(spec: JsonObject, container: ComparisonContainer, name: string, model: JsonObject): JsonObject {
  const prefix = prefixOf(container);
  const entries: JsonObject = { ...(isJsonObject(spec.table_comparisons) ? spec.table_comparisons : {}) };
  const entry = configurationEntry(model, isJsonObject(entries[name]) ? entries[name] : {});
  if (container.checkType !== 'profiling' || entry.check_type !== undefined) entry.check_type = container.checkType;
  if (container.timeScale === null) delete entry.time_scale;
  else entry.time_scale = container.timeScale;
  entries[name] = entry;
  let next: JsonObject = { ...spec, table_comparisons: entries };

  const tableChecks = { ...comparisonOf(next, container, name) };
  for (const [field, check] of Object.entries(TABLE_COMPARES)) {
    const checkName = `${prefix}${check}`;
    if (isJsonObject(model[field]) && exists('table', container, checkName)) tableChecks[checkName] = checkOf(model[field], tableChecks[checkName]);
    else delete tableChecks[checkName];
  }
  next = withComparison(next, container, name, tableChecks);

  if (Array.isArray(model.columns)) {
    const columns: JsonObject = { ...(isJsonObject(next.columns) ? next.columns : {}) };
    for (const item of model.columns.filter(isJsonObject)) {
      const column = item.compared_column_name;
      if (typeof column !== 'string' || !isJsonObject(columns[column])) continue;
      const checks: JsonObject = { ...comparisonOf(columns[column], container, name) };
      if (typeof item.reference_column_name === 'string') checks.reference_column = item.reference_column_name;
      for (const [field, check] of Object.entries(COLUMN_COMPARES)) {
        const checkName = `${prefix}${check}`;
        if (isJsonObject(item[field]) && exists('column', container, checkName)) checks[checkName] = checkOf(item[field], checks[checkName]);
        else delete checks[checkName];
      }
      const compares = Object.keys(checks).filter((k) => k !== 'reference_column');
      columns[column] = withComparison(columns[column], container, name, compares.length === 0 ? {} : checks);
    }
    next = { ...next, columns };
  }
  return next;
}
