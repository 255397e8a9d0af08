/**
 * Rules: pure functions that judge a sensor readout at the warning, error and fatal thresholds of a check,
 * for every rule of the built-in catalog. No I/O: the history of earlier readouts is passed in.
 */
export { combineOutcomes, evaluateCheck, type CheckEvaluation, type CheckEvaluationInput, type CheckSeverity } from './evaluateCheck.js';
export {
  customRuleArguments,
  customRuleOf,
  outcomeOfRuleResult,
  type CustomRuleDefinition,
  type CustomRuleReadout,
} from './customRule.js';
export { evaluateRule, type EvaluateRuleOptions } from './evaluateRule.js';
export { implementedRuleNames } from './ruleRegistry.js';
export { keepThreeDigits, loosenedRuleParameters, recalibratedRuleNames, type CalibrationHistory, type RuleSlot } from './recalibrateRule.js';
export { DETECTED_DATATYPES } from './comparisonRules.js';
export { normalCdf, normalQuantile, studentTCdf, studentTQuantile } from './distributions.js';
export {
  type NoActualValue,
  type NotEnoughHistory,
  type Readout,
  type RuleInput,
  type RuleOutcome,
  type RuleParameters,
  type RuleVerdict,
  type Severity,
} from './ruleTypes.js';
