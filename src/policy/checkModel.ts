/**
 * CheckModel: one catalog check in the API's check editor, configured or not. The values come from the
 * effective check (the table's own, or a policy's: then `default_check` is true); an unconfigured check shows
 * the catalog defaults, `configured: false` and its rule severities unconfigured. Texts are not copied from
 * DQOps: `help_text` is empty. `quality_dimension` is the check's own override, null when it has none.
 */
import type { CatalogCheck, CheckCatalog } from '../catalog/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../model/index.js';
import type { EffectiveCheck } from './checkSlots.js';
import { fieldModel, type FieldModel } from './fieldModel.js';
import { sensorSupportsErrorSampling, sensorSupportsGrouping } from './sensorCapabilities.js';
import type { CheckCapabilities as Capabilities } from '../model/index.js';


/** What the caller may do with a check, as the API's capability flags. */
export type { CheckCapabilities as Capabilities } from '../model/index.js';

export interface RuleParametersModel {
  rule_name: string;
  rule_parameters: FieldModel[];
  disabled: boolean;
  configured: boolean;
}

export interface RuleThresholdsModel {
  warning: RuleParametersModel;
  error: RuleParametersModel;
  fatal: RuleParametersModel;
}

export interface CheckModel {
  check_name: string;
  help_text: string;
  sensor_parameters: FieldModel[];
  sensor_name: string;
  quality_dimension: string | null;
  rule: RuleThresholdsModel;
  supports_error_sampling: boolean;
  supports_grouping: boolean;
  standard: boolean;
  default_check: boolean;
  default_severity: 'warning' | 'error';
  disabled: boolean;
  exclude_from_kpi: boolean;
  include_in_sla: boolean;
  configured: boolean;
  always_collect_error_samples: boolean;
  do_not_schedule: boolean;
  can_edit: boolean;
  can_run_checks: boolean;
  can_delete_data: boolean;
}

export function checkModel(
  catalog: CheckCatalog,
  check: CatalogCheck,
  effective: EffectiveCheck | undefined,
  capabilities: Capabilities,
): CheckModel {
  const spec: JsonObject = effective?.spec ?? {};
  const flag = (key: string): boolean => spec[key] === true;
  return {
    check_name: check.checkName,
    help_text: '',
    sensor_parameters: sensorParameterFields(catalog, check, spec),
    sensor_name: check.sensor,
    quality_dimension: typeof spec.quality_dimension === 'string' && spec.quality_dimension !== '' ? spec.quality_dimension : null,
    rule: ruleThresholds(catalog, check, spec),
    supports_error_sampling: sensorSupportsErrorSampling(check.sensor),
    supports_grouping: sensorSupportsGrouping(check.sensor),
    standard: check.standard,
    default_check: effective?.origin.source === 'policy',
    default_severity: check.defaultSeverity,
    disabled: flag('disabled'),
    exclude_from_kpi: flag('exclude_from_kpi'),
    include_in_sla: flag('include_in_sla'),
    configured: effective !== undefined,
    always_collect_error_samples: flag('always_collect_error_samples'),
    do_not_schedule: flag('do_not_schedule'),
    can_edit: capabilities.can_edit,
    can_run_checks: capabilities.can_run_checks,
    can_delete_data: capabilities.can_delete_data,
  };
}

/** The sensor's parameters with the values of the check spec (`parameters`), defaults where unset. */
export function sensorParameterFields(catalog: CheckCatalog, check: CatalogCheck, spec: JsonObject): FieldModel[] {
  const parameters = isJsonObject(spec.parameters) ? spec.parameters : {};
  return catalog.sensorOf(check).parameters.map((p) => fieldModel(p, valueAt(parameters, p.name)));
}

export function ruleThresholds(catalog: CheckCatalog, check: CatalogCheck, spec: JsonObject): RuleThresholdsModel {
  return {
    warning: ruleParameters(catalog, check, spec.warning),
    error: ruleParameters(catalog, check, spec.error),
    fatal: ruleParameters(catalog, check, spec.fatal),
  };
}

/** One severity: configured when the check spec has it (`{}` enables it with the rule's defaults). */
function ruleParameters(catalog: CheckCatalog, check: CatalogCheck, severity: JsonValue | undefined): RuleParametersModel {
  const configured = isJsonObject(severity);
  const values: JsonObject = configured ? severity : {};
  return {
    rule_name: check.rule,
    rule_parameters: catalog.ruleOf(check).parameters.map((p) => fieldModel(p, valueAt(values, p.name))),
    disabled: values.disabled === true,
    configured,
  };
}

function valueAt(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
