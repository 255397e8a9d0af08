/**
 * CheckTemplate: a catalog check of one container type as a blank to configure in bulk (the schema-level
 * "templates" and "bulk enable" operations): its container, sensor, the CheckModel of the unconfigured check
 * and the definitions of its sensor and rule parameters. Sorted by target (table first), category, check name;
 * `check_category` and `check_name` filter as the model filters do (comma lists, `*` wildcards). The
 * `comparisons` category is left out, as in the container models.
 */
import { getCheckCatalog, type CheckTarget, type CheckType, type TimeScale } from '../catalog/index.js';
import { COMPARISONS_CATEGORY } from './checkSlots.js';
import { compareText, type CatalogOption } from './checkContainerModel.js';
import { checkModel, type Capabilities, type CheckModel } from './checkModel.js';
import { parameterDefinition, type ParameterDefinitionModel } from './fieldModel.js';
import { compileNamePattern } from './namePattern.js';

export interface CheckTemplate {
  check_target: CheckTarget;
  check_category: string;
  check_name: string;
  help_text: string;
  /** `check_time_scale` is left out for profiling: DQOps's clients parse it only as a time scale, never null. */
  check_container_type: { check_type: CheckType; check_time_scale?: TimeScale };
  sensor_name: string;
  check_model: CheckModel;
  sensor_parameters_definitions: ParameterDefinitionModel[];
  rule_parameters_definitions: ParameterDefinitionModel[];
}

export interface CheckTemplateFilters {
  check_target?: CheckTarget;
  check_category?: string;
  check_name?: string;
}

export function checkTemplates(
  checkType: CheckType,
  timeScale: TimeScale | null,
  capabilities: Capabilities,
  filters: CheckTemplateFilters = {},
  options: CatalogOption = {},
): CheckTemplate[] {
  const catalog = options.catalog ?? getCheckCatalog();
  const scale = checkType === 'profiling' ? null : timeScale;
  const category = compileNamePattern(filters.check_category);
  const name = compileNamePattern(filters.check_name);
  const targets: CheckTarget[] = filters.check_target === undefined ? ['table', 'column'] : [filters.check_target];
  const templates: CheckTemplate[] = [];
  for (const target of targets) {
    const checks = catalog.checksIn({ target, checkType, timeScale: scale })
      .filter((c) => c.category !== COMPARISONS_CATEGORY)
      .filter((c) => (category === undefined || category.matches(c.category)) && (name === undefined || name.matches(c.checkName)))
      .sort((a, b) => compareText(a.category, b.category) || compareText(a.checkName, b.checkName));
    for (const check of checks) {
      templates.push({
        check_target: target,
        check_category: check.category,
        check_name: check.checkName,
        help_text: '',
        check_container_type: scale === null ? { check_type: checkType } : { check_type: checkType, check_time_scale: scale },
        sensor_name: check.sensor,
        check_model: checkModel(catalog, check, undefined, capabilities),
        sensor_parameters_definitions: catalog.sensorOf(check).parameters.map(parameterDefinition),
        rule_parameters_definitions: catalog.ruleOf(check).parameters.map(parameterDefinition),
      });
    }
  }
  return templates;
}
