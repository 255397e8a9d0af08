/**
 * CheckConfigurationModel rows for the schema-level "model" operations: one row per check of one container
 * type (e.g. monitoring daily) on every table of a schema and every column those tables list, configured or
 * not, with the values of the effective checks (own checks and policies). Rows come sorted by table name, then
 * table-level checks before the columns (sorted by name), each by category then check name; at most `limit`
 * (default 1000) are returned.
 *
 * Filters: the text filters (`table_name_pattern`, `column_name_pattern`, `column_data_type` matched against
 * `type_snapshot.column_type`, `check_category`, `check_name`) take comma lists and `*` wildcards as policy
 * targets do, case-sensitive. A column filter leaves the table-level checks out. `check_configured` keeps the
 * checks that are (true) or are not (false) configured; `check_enabled` keeps the checks that are enabled,
 * i.e. configured and not disabled (true), or all the others (false).
 */
import { getCheckCatalog, type CatalogCheck, type CheckTarget, type CheckType, type TimeScale } from '../catalog/index.js';
import { isJsonObject, type JsonObject } from '../model/index.js';
import { COMPARISONS_CATEGORY } from './checkSlots.js';
import { compareText, type CatalogOption } from './checkContainerModel.js';
import { ruleThresholds, sensorParameterFields, type RuleParametersModel } from './checkModel.js';
import { asCompiled, type CompiledPolicies, type PolicyObject } from './compilePolicies.js';
import { effectiveContainer, effectiveTableAndColumnChecks, lookupCheck, type EffectiveContainer } from './effectiveChecks.js';
import type { FieldModel } from './fieldModel.js';
import { compileNamePattern, type NamePattern } from './namePattern.js';
import { columnNamesOf, columnSubject, tableSubject, type TableRef } from './subjects.js';

export const DEFAULT_MODEL_LIMIT = 1000;

export interface CheckConfigurationModel {
  connection_name: string;
  schema_name: string;
  table_name: string;
  column_name: string | null;
  check_target: CheckTarget;
  check_type: CheckType;
  /** Left out for profiling checks: DQOps's clients parse the field only as a time scale, never null. */
  check_time_scale?: TimeScale;
  category_name: string;
  check_name: string;
  sensor_parameters: FieldModel[];
  table_level_filter: string | null;
  sensor_level_filter: string | null;
  warning: RuleParametersModel;
  error: RuleParametersModel;
  fatal: RuleParametersModel;
  disabled: boolean;
  configured: boolean;
}

export interface CheckConfigurationFilters {
  table_name_pattern?: string;
  column_name_pattern?: string;
  column_data_type?: string;
  check_target?: CheckTarget;
  check_category?: string;
  check_name?: string;
  check_enabled?: boolean;
  check_configured?: boolean;
  limit?: number;
}

export interface CheckConfigurationInput {
  /** The tables of the schema (their own connection and schema names are reported). */
  tables: readonly TableRef[];
  /** The spec of the tables' connection (for its labels). */
  connectionSpec: JsonObject | undefined;
  policies: CompiledPolicies | readonly PolicyObject[];
  checkType: CheckType;
  /** null for profiling. */
  timeScale: TimeScale | null;
}

export function checkConfigurationModels(
  input: CheckConfigurationInput,
  filters: CheckConfigurationFilters = {},
  options: CatalogOption = {},
): CheckConfigurationModel[] {
  const catalog = options.catalog ?? getCheckCatalog();
  const limit = Math.max(0, Math.floor(filters.limit ?? DEFAULT_MODEL_LIMIT));
  const rows: CheckConfigurationModel[] = [];
  if (limit === 0) return rows;
  const timeScale = input.checkType === 'profiling' ? null : input.timeScale;
  const policies = asCompiled(input.policies);
  const tablePattern = compileNamePattern(filters.table_name_pattern);
  const columnPattern = compileNamePattern(filters.column_name_pattern);
  const dataTypePattern = compileNamePattern(filters.column_data_type);
  const categoryPattern = compileNamePattern(filters.check_category);
  const namePattern = compileNamePattern(filters.check_name);
  const wantTable = filters.check_target !== 'column' && columnPattern === undefined && dataTypePattern === undefined;
  const wantColumns = filters.check_target !== 'table';

  const checksOf = (target: CheckTarget): CatalogCheck[] =>
    catalog.checksIn({ target, checkType: input.checkType, timeScale })
      .filter((c) => c.category !== COMPARISONS_CATEGORY && matches(categoryPattern, c.category) && matches(namePattern, c.checkName))
      .sort((a, b) => compareText(a.category, b.category) || compareText(a.checkName, b.checkName));
  const tableChecks = wantTable ? checksOf('table') : [];
  const columnChecks = wantColumns ? checksOf('column') : [];

  const tables = input.tables
    .filter((t) => matches(tablePattern, t.table))
    .sort((a, b) => compareText(a.table, b.table) || compareText(a.connection, b.connection) || compareText(a.schema, b.schema));

  for (const table of tables) {
    const subject = tableSubject(table, input.connectionSpec);
    const columns = wantColumns
      ? columnNamesOf(table.spec).filter((name) => {
        if (!matches(columnPattern, name)) return false;
        if (dataTypePattern === undefined) return true;
        const type = columnSubject(subject, name).columnType;
        return type !== undefined && dataTypePattern.matches(type);
      })
      : [];
    if (tableChecks.length === 0 && (columns.length === 0 || columnChecks.length === 0)) continue;
    const effective = effectiveTableAndColumnChecks(table, input.connectionSpec, policies);
    const tableFilter = typeof table.spec.filter === 'string' ? table.spec.filter : null;
    const emit = (column: string | null, checks: readonly CatalogCheck[], container: EffectiveContainer): boolean => {
      for (const check of checks) {
        const found = lookupCheck(container, check.category, check.checkName);
        const configured = found !== undefined;
        const disabled = found?.spec.disabled === true;
        if (filters.check_configured !== undefined && filters.check_configured !== configured) continue;
        if (filters.check_enabled !== undefined && filters.check_enabled !== (configured && !disabled)) continue;
        const spec = found?.spec ?? {};
        const rules = ruleThresholds(catalog, check, spec);
        const parameters = isJsonObject(spec.parameters) ? spec.parameters : {};
        rows.push({
          connection_name: table.connection,
          schema_name: table.schema,
          table_name: table.table,
          column_name: column,
          check_target: check.target,
          check_type: check.checkType,
          ...(check.timeScale === null ? {} : { check_time_scale: check.timeScale }),
          category_name: check.category,
          check_name: check.checkName,
          sensor_parameters: sensorParameterFields(catalog, check, spec),
          table_level_filter: tableFilter,
          sensor_level_filter: typeof parameters.filter === 'string' ? parameters.filter : null,
          warning: rules.warning,
          error: rules.error,
          fatal: rules.fatal,
          disabled,
          configured,
        });
        if (rows.length >= limit) return false;
      }
      return true;
    };
    if (!emit(null, tableChecks, effectiveContainer(effective.table, input.checkType, timeScale))) return rows;
    for (const column of columns) {
      if (!emit(column, columnChecks, effectiveContainer(effective.columns[column], input.checkType, timeScale))) return rows;
    }
  }
  return rows;
}

function matches(pattern: NamePattern | undefined, value: string): boolean {
  return pattern === undefined || pattern.matches(value);
}
