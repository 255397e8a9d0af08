/**
 * The inverse of `checkContainerModel`: what a PUT of a CheckContainerModel writes into the container of a
 * table, column or policy spec (`{category: {check: spec}}`).
 *
 * - A configured check becomes `{parameters, warning|error|fatal: {rule parameters}, disabled, …}`; a check
 *   with `configured: false` is left out (removed if it was there); a severity with `configured: false` is
 *   left out. A severity that is configured but `disabled` is left out too: the file format has no way to keep
 *   a disabled severity, and leaving it out has the same effect.
 * - Parameters are written when they have a value; a value equal to the catalog default is written only if the
 *   previous spec wrote it (so a check read and sent back unchanged keeps its exact form), and nothing is
 *   invented for a new check beyond what differs from the defaults.
 * - `previous` (the container being replaced) keeps what the model cannot express: the sensor `filter`,
 *   `display_name`, `data_grouping`, `comments`, `schedule_override`, a comparison's `reference_column`, and
 *   checks the model does not mention at all. A part the model leaves out (no `rule`, no severity, no flag)
 *   keeps its previous value.
 * - A comparison's category (`comparisons/<name>` with `comparison_name`, as `checkContainerModel` lists it)
 *   writes `comparisons.<name>.<check>`; a comparison left with no check and no reference column is removed.
 *   As in DQOps, checks are written only for a comparison the table configures (`tableComparisons`, when
 *   given); the others keep what they had. The bare `comparisons` category is not a category of checks and
 *   is ignored.
 * - `inherited` (the effective checks the model was built from): a check that a policy provides and the model
 *   sends back unchanged is not copied into the table, so it keeps following the policy; once edited, it is
 *   written and then wins over the policy. Turning a policy check off for one table is done by configuring it
 *   with `disabled: true`; `configured: false` leaves the policy check in force.
 */
import { getCheckCatalog, type CatalogCheck, type CatalogParameter, type CheckCatalog } from '../catalog/index.js';
import { deepEqual } from '../diff/fieldChanges.js';
import { isJsonObject, RULE_SEVERITIES, type JsonObject } from '../model/index.js';
import type { CheckContainerModel, QualityCategoryModel } from './checkContainerModel.js';
import { COMPARISONS_CATEGORY, type EffectiveCheck } from './checkSlots.js';
import { REFERENCE_COLUMN_KEY } from './comparisonChecks.js';
import { checkModel, type CheckModel } from './checkModel.js';
import { lookupCheck, type EffectiveContainer } from './effectiveChecks.js';
import { fieldValue, type FieldModel } from './fieldModel.js';

export interface ApplyCheckContainerModelOptions {
  /** The container spec being replaced (`{category: {check: spec}}`). */
  previous?: JsonObject;
  /** The effective checks of the container the model was built from (table and column models). */
  inherited?: EffectiveContainer;
  /** The names of the table's `table_comparisons`: only their comparison checks are written (default: any name). */
  tableComparisons?: readonly string[];
  catalog?: CheckCatalog;
}

const FLAGS = ['disabled', 'exclude_from_kpi', 'include_in_sla', 'always_collect_error_samples', 'do_not_schedule'] as const;

export function applyCheckContainerModel(model: CheckContainerModel, options: ApplyCheckContainerModelOptions = {}): JsonObject {
  const catalog = options.catalog ?? getCheckCatalog();
  const previous = options.previous ?? {};
  const out: JsonObject = {};
  for (const [category, checks] of Object.entries(previous)) {
    if (isSafeKey(category)) out[category] = isJsonObject(checks) ? { ...checks } : checks;
  }

  for (const categoryModel of Array.isArray(model?.categories) ? model.categories : []) {
    const category = categoryModel?.category;
    if (typeof category !== 'string' || !isSafeKey(category)) continue;
    if (category === COMPARISONS_CATEGORY || category.startsWith(`${COMPARISONS_CATEGORY}/`)) {
      writeComparison(out, previous, categoryModel, catalog, options.tableComparisons);
      continue;
    }
    const before = isJsonObject(previous[category]) ? previous[category] : {};
    const into: JsonObject = isJsonObject(out[category]) ? out[category] : {};
    for (const check of Array.isArray(categoryModel.checks) ? categoryModel.checks : []) {
      const name = check?.check_name;
      if (typeof name !== 'string' || !isSafeKey(name)) continue;
      const previousSpec = isJsonObject(before[name]) ? before[name] : undefined;
      const known = catalog.checkByName(name);
      if (check.configured !== true) {
        delete into[name];
        continue;
      }
      if (previousSpec === undefined && known !== undefined && unchangedFromPolicy(catalog, known, check, lookupCheck(options.inherited, category, name))) {
        continue;
      }
      into[name] = checkSpecFromModel(catalog, check, known, previousSpec);
    }
    if (Object.keys(into).length > 0) out[category] = into;
    else delete out[category];
  }
  return out;
}

/** One comparison's category into `out.comparisons` (see the module comment). */
function writeComparison(
  out: JsonObject,
  previous: JsonObject,
  categoryModel: QualityCategoryModel,
  catalog: CheckCatalog,
  tableComparisons: readonly string[] | undefined,
): void {
  const name = typeof categoryModel.comparison_name === 'string' && categoryModel.comparison_name !== '' ? categoryModel.comparison_name : categoryModel.category.slice(COMPARISONS_CATEGORY.length + 1);
  if (name === '' || !isSafeKey(name) || (tableComparisons !== undefined && !tableComparisons.includes(name))) return;
  const previousComparisons = isJsonObject(previous[COMPARISONS_CATEGORY]) ? previous[COMPARISONS_CATEGORY] : {};
  const before = isJsonObject(previousComparisons[name]) ? previousComparisons[name] : {};
  const into: JsonObject = { ...before };
  for (const check of Array.isArray(categoryModel.checks) ? categoryModel.checks : []) {
    const checkName = check?.check_name;
    if (typeof checkName !== 'string' || checkName === REFERENCE_COLUMN_KEY || !isSafeKey(checkName)) continue;
    if (check.configured !== true) {
      delete into[checkName];
      continue;
    }
    into[checkName] = checkSpecFromModel(catalog, check, catalog.checkByName(checkName), isJsonObject(before[checkName]) ? before[checkName] : undefined);
  }
  const comparisons: JsonObject = isJsonObject(out[COMPARISONS_CATEGORY]) ? { ...out[COMPARISONS_CATEGORY] } : {};
  if (Object.keys(into).length > 0) comparisons[name] = into;
  else delete comparisons[name];
  if (Object.keys(comparisons).length > 0) out[COMPARISONS_CATEGORY] = comparisons;
  else delete out[COMPARISONS_CATEGORY];
}

/** The spec of one configured check from its model, on top of the previous spec of the check (if any). */
export function checkSpecFromModel(
  catalog: CheckCatalog,
  model: CheckModel,
  check: CatalogCheck | undefined,
  previous: JsonObject | undefined,
): JsonObject {
  const spec: JsonObject = previous === undefined ? {} : { ...previous };

  if (Array.isArray(model.sensor_parameters)) {
    const before = isJsonObject(spec.parameters) ? spec.parameters : {};
    const parameters = writeParameters(before, model.sensor_parameters, check ? catalog.sensorOf(check).parameters : []);
    if (Object.keys(parameters).length > 0) spec.parameters = parameters;
    else delete spec.parameters;
  }

  if (isJsonObject(model.rule as unknown)) {
    const rules = check ? catalog.ruleOf(check).parameters : [];
    for (const severity of RULE_SEVERITIES) {
      const rule = model.rule[severity];
      if (!isJsonObject(rule as unknown)) continue;
      if (rule.configured !== true || rule.disabled === true) {
        delete spec[severity];
        continue;
      }
      const before = isJsonObject(spec[severity]) ? spec[severity] : {};
      spec[severity] = writeParameters(before, Array.isArray(rule.rule_parameters) ? rule.rule_parameters : [], rules);
    }
  }

  for (const flag of FLAGS) {
    if (model[flag] === true) spec[flag] = true;
    else if (model[flag] === false) delete spec[flag];
  }
  if (typeof model.quality_dimension === 'string' && model.quality_dimension !== '') spec.quality_dimension = model.quality_dimension;
  else if (model.quality_dimension === null || model.quality_dimension === '') delete spec.quality_dimension;
  return spec;
}

function writeParameters(before: JsonObject, fields: readonly FieldModel[], known: readonly CatalogParameter[]): JsonObject {
  const out: JsonObject = { ...before };
  for (const field of fields) {
    const name = field?.definition?.field_name;
    if (typeof name !== 'string' || name === '' || !isSafeKey(name)) continue;
    const value = fieldValue(field);
    const parameter = known.find((p) => p.name === name);
    if (value === null) delete out[name];
    else if (Object.hasOwn(before, name) || parameter === undefined || !deepEqual(value, parameter.default)) out[name] = value;
    else delete out[name];
  }
  return out;
}

/** A policy's check that the model sends back exactly as the policy configures it. */
function unchangedFromPolicy(
  catalog: CheckCatalog,
  check: CatalogCheck,
  model: CheckModel,
  inherited: EffectiveCheck | undefined,
): boolean {
  if (inherited === undefined || inherited.origin.source !== 'policy') return false;
  const capabilities = { can_edit: true, can_run_checks: true, can_delete_data: true };
  const fromPolicy = checkSpecFromModel(catalog, checkModel(catalog, check, inherited, capabilities), check, undefined);
  return deepEqual(checkSpecFromModel(catalog, model, check, undefined), fromPolicy);
}

/** Names a client sends become object keys; `__proto__` would not. */
function isSafeKey(key: string): boolean {
  return key !== '__proto__';
}
