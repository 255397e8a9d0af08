/**
 * Judges one readout against one rule at one severity. The rule comes from the built-in catalog (its
 * parameters, defaults, mode and time window); the code from the registry. Before the rule runs: no actual
 * value → `no_actual_value` (unless the rule judges a missing value, as a few DQOps rules do); for rules
 * that look back, fewer periods with readouts in the window than `min_periods_with_readouts` →
 * `not_enough_history` (no verdict, never a false alarm).
 * Throws RULE_UNKNOWN for a rule the catalog or the registry does not have and RULE_INPUT_INVALID for wrong
 * parameters; the check runner stores either as the check's execution error.
 */
import { getCheckCatalog, type CatalogRule, type CheckCatalog } from '../catalog/index.js';
import { DqError } from '../model/index.js';
import { pickHistory, type PickedHistory } from './historyWindow.js';
import { resolveParameters } from './resolveParameters.js';
import { ruleImplementation } from './ruleRegistry.js';
import type { RuleInput, RuleOutcome } from './ruleTypes.js';
import { timePeriodMillis } from './timePeriods.js';

export interface EvaluateRuleOptions {
  /** The catalog to read rule definitions from; default: the built-in catalog. */
  catalog?: CheckCatalog;
}

export function evaluateRule(ruleName: string, input: RuleInput, options: EvaluateRuleOptions = {}): RuleOutcome {
  const rule = (options.catalog ?? getCheckCatalog()).rules.get(ruleName);
  const implementation = ruleImplementation(ruleName);
  if (!rule || !implementation) {
    throw new DqError('RULE_UNKNOWN', `unknown rule "${ruleName}"${rule ? ' (in the catalog, but dqctl cannot evaluate it)' : ''}`, {
      rule: ruleName,
    });
  }
  // parameters first: a wrong threshold is an error even when there is nothing to judge yet
  const params = resolveParameters(rule, input.parameters);
  timePeriodMillis(input.timePeriod); // a malformed period is an error for every rule, not only those that look back
  const actualValue = input.actualValue;
  const missing = actualValue === null || actualValue === undefined || !Number.isFinite(actualValue);
  const judgeMissing = implementation.whenNoActualValue?.bind(implementation);
  if (missing && !judgeMissing) return { verdict: 'no_actual_value' };

  const history = historyOf(rule, input, implementation.fixedGrouping ?? false);
  const required = rule.timeWindow?.minPeriodsWithReadouts ?? 0;
  if (history.points.length < required) {
    return { verdict: 'not_enough_history', periodsWithReadouts: history.points.length, requiredPeriods: required };
  }
  const referenceValue = typeof input.referenceValue === 'number' && Number.isFinite(input.referenceValue) ? input.referenceValue : undefined;
  const context = { rule, params, history, referenceValue, severity: input.severity };
  if (missing || actualValue === null || actualValue === undefined) return judgeMissing ? judgeMissing(context) : { verdict: 'no_actual_value' };
  return implementation.evaluate({ ...context, actualValue });
}

function historyOf(rule: CatalogRule, input: RuleInput, fixedGrouping: boolean): PickedHistory {
  if (rule.mode !== 'previous_readouts' || !rule.timeWindow) {
    return { grouping: 'last_n_readouts', currentPeriod: 0, points: [] };
  }
  return pickHistory(input.history ?? [], input.timePeriod, rule.timeWindow, { timeGradient: input.timeGradient, fixedGrouping });
}
