import type { CheckTarget } from '../catalog/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';
import type { Capabilities, CheckType, LiveObject, TimeScale } from '../model/index.js';
import {
  checkConfigurationModels,
  checkTemplates,
  DEFAULT_MODEL_LIMIT,
  tableRefOf,
  type CheckConfigurationFilters,
  type CheckConfigurationModel,
  type CheckTemplate,
  type CheckTemplateFilters,
} from '../policy/index.js';

/**
 * The check configuration of many tables and columns at once (CheckConfigurationModel: each check of the catalog
 * in one container with its EFFECTIVE configuration, the table's own and what matching policies add), as the
 * schema-level and the table's column-level models list them; and the catalog's checks of one container as
 * templates for bulk enabling (CheckTemplate).
 */
export { DEFAULT_MODEL_LIMIT };
export type { CheckConfigurationFilters, CheckTarget, CheckTemplateFilters };

export interface CheckConfigurationScope {
  connection: LiveObject;
  /** Tables of that connection. */
  tables: readonly LiveObject[];
  checkType: CheckType;
  /** null for profiling. */
  timeScale: TimeScale | null;
}

export async function checkConfigurationsOf(objects: LiveObjects, scope: CheckConfigurationScope, filters: CheckConfigurationFilters): Promise<CheckConfigurationModel[]> {
  const policies = [...(await objects.list('default_table_checks')), ...(await objects.list('default_column_checks'))];
  return checkConfigurationModels(
    {
      tables: scope.tables.flatMap((table) => tableRefOf(table.name, table.spec) ?? []),
      connectionSpec: scope.connection.spec,
      policies,
      checkType: scope.checkType,
      timeScale: scope.timeScale,
    },
    filters,
  );
}

/** The catalog's checks of one container (profiling, monitoring or partitioned; daily or monthly) as bulk-enable templates. */
export function bulkEnableTemplates(checkType: CheckType, timeScale: TimeScale | null, capabilities: Capabilities, filters: CheckTemplateFilters): CheckTemplate[] {
  return checkTemplates(checkType, timeScale, capabilities, filters);
}
