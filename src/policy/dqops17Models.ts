/**
 * The check models of DQOps 1.7.0, the release whose "default checks patterns" routes
 * (`/api/default/checks/{table|column}/…`) the spec names. Later releases added display hints (`column_names`,
 * `requires_paid_version`) and the check flag `do_not_schedule`; 1.7.0's generated client knows only the hint
 * `textarea` and fails to parse a model with another one. Each generation of routes answers its own
 * generation's model: the older routes this one, the newer `/api/policies/…` routes the current one.
 *
 * Leaving `do_not_schedule` out loses nothing on a round trip: a model written back without the flag keeps the
 * check's current value (applyCheckContainerModel writes only the flags a model sets).
 */
import type { CheckContainerModel } from './checkContainerModel.js';
import type { CheckModel, RuleParametersModel } from './checkModel.js';
import type { FieldModel } from './fieldModel.js';

/** DQOps 1.7.0's DisplayHint enumeration. */
export const DQOPS_1_7_DISPLAY_HINTS: readonly string[] = ['textarea'];

/** The same model as DQOps 1.7.0 shaped it (a copy; the model given is not changed). */
export function checkContainerModelOfDqops17(model: CheckContainerModel): CheckContainerModel {
  return {
    ...model,
    categories: model.categories.map((category) => ({ ...category, checks: category.checks.map(checkOf17) })),
  };
}

function checkOf17(check: CheckModel): CheckModel {
  const { do_not_schedule: _later, ...rest } = check;
  return {
    ...(rest as CheckModel),
    sensor_parameters: check.sensor_parameters.map(fieldOf17),
    rule: { warning: ruleOf17(check.rule.warning), error: ruleOf17(check.rule.error), fatal: ruleOf17(check.rule.fatal) },
  };
}

function ruleOf17(rule: RuleParametersModel): RuleParametersModel {
  return { ...rule, rule_parameters: rule.rule_parameters.map(fieldOf17) };
}

function fieldOf17(field: FieldModel): FieldModel {
  const hint = field.definition.display_hint;
  if (hint === undefined || DQOPS_1_7_DISPLAY_HINTS.includes(hint)) return field;
  const { display_hint: _later, ...definition } = field.definition;
  return { ...field, definition };
}
