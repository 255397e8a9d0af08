/**
 * CheckContainerModel: every check of one container (e.g. column / monitoring / daily) as the API's check
 * editor shows it, configured or not, sorted by category then check name. Values come from the effective checks
 * of the table or column (or a policy's own checks, see `ownChecks`). The catalog's `comparisons` category is
 * listed once per comparison the caller passes (see `comparisonCategories`), as DQOps names it: category
 * `comparisons/<comparison name>`, with `comparison_name` and, for a column, `compare_to_column` (its
 * `reference_column`) when written. Policies carry no comparisons.
 */
import { getCheckCatalog, type CheckCatalog, type CheckTarget, type CheckType, type TimeScale } from '../catalog/index.js';
import { COMPARISONS_CATEGORY } from './checkSlots.js';
import { checkModel, type Capabilities, type CheckModel } from './checkModel.js';
import { lookupCheck, type EffectiveContainer } from './effectiveChecks.js';
import type { ComparisonCategory } from './comparisonChecks.js';

export interface QualityCategoryModel {
  category: string;
  /** Set on the categories of a table comparison (category `comparisons/<name>`); absent otherwise, as DQOps leaves it out. */
  comparison_name?: string;
  /** A column comparison's reference column, when its spec names one. */
  compare_to_column?: string;
  help_text: string;
  checks: CheckModel[];
}

/** The category name DQOps gives a comparison's checks in a check container model. */
export function comparisonCategoryName(comparisonName: string): string {
  return `${COMPARISONS_CATEGORY}/${comparisonName}`;
}

export interface CheckContainerModel {
  categories: QualityCategoryModel[];
  can_edit: boolean;
  can_run_checks: boolean;
  can_delete_data: boolean;
}

export interface CatalogOption {
  /** The check catalog (default: the one shipped with dqctl). */
  catalog?: CheckCatalog;
}

export interface CheckContainerModelOptions extends CatalogOption {
  /** The table comparisons to list in this container (default none), see `comparisonCategories`. */
  comparisons?: readonly ComparisonCategory[];
}

export function checkContainerModel(
  target: CheckTarget,
  checkType: CheckType,
  timeScale: TimeScale | null,
  effective: EffectiveContainer,
  capabilities: Capabilities,
  options: CheckContainerModelOptions = {},
): CheckContainerModel {
  const catalog = options.catalog ?? getCheckCatalog();
  const container = { target, checkType, timeScale: checkType === 'profiling' ? null : timeScale };
  const categories: QualityCategoryModel[] = [];
  for (const category of catalog.categoriesOf(container)) {
    if (category === COMPARISONS_CATEGORY) continue;
    const checks = [...catalog.checksIn(container, category)]
      .sort((a, b) => compareText(a.checkName, b.checkName))
      .map((check) => checkModel(catalog, check, lookupCheck(effective, category, check.checkName), capabilities));
    categories.push({ category, help_text: '', checks });
  }
  const comparisonChecks = [...catalog.checksIn(container, COMPARISONS_CATEGORY)].sort((a, b) => compareText(a.checkName, b.checkName));
  for (const comparison of options.comparisons ?? []) {
    const category: QualityCategoryModel = { category: comparisonCategoryName(comparison.name), comparison_name: comparison.name, help_text: '', checks: [] };
    if (target === 'column' && comparison.referenceColumn !== null) category.compare_to_column = comparison.referenceColumn;
    category.checks = comparisonChecks.map((check) =>
      checkModel(catalog, check, Object.hasOwn(comparison.checks, check.checkName) ? comparison.checks[check.checkName] : undefined, capabilities),
    );
    categories.push(category);
  }
  categories.sort((a, b) => compareText(a.category, b.category));
  return {
    categories,
    can_edit: capabilities.can_edit,
    can_run_checks: capabilities.can_run_checks,
    can_delete_data: capabilities.can_delete_data,
  };
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
