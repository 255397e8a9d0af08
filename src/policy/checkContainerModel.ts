/**
 * CheckContainerModel: every check of one container (e.g. column / monitoring / daily) as the API's check
 * editor shows it, configured or not, sorted by category then check name. Values come from the effective checks
 * of the table or column (or a policy's own checks, see `ownChecks`). The `comparisons` category is not listed:
 * table comparisons have their own models.
 */
import { getCheckCatalog, type CheckCatalog, type CheckTarget, type CheckType, type TimeScale } from '../catalog/index.js';
import { COMPARISONS_CATEGORY } from './checkSlots.js';
import { checkModel, type Capabilities, type CheckModel } from './checkModel.js';
import { lookupCheck, type EffectiveContainer } from './effectiveChecks.js';

export interface QualityCategoryModel {
  category: string;
  help_text: string;
  checks: CheckModel[];
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

export function checkContainerModel(
  target: CheckTarget,
  checkType: CheckType,
  timeScale: TimeScale | null,
  effective: EffectiveContainer,
  capabilities: Capabilities,
  options: CatalogOption = {},
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
