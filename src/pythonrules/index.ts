/** Custom Python rules: the worker processes that run them (DQOps's `evaluate_rule` contract). */
export {
  DEFAULT_RULE_TIMEOUT_MS,
  PythonRuleRunner,
  pythonRuleOptionsFromEnvironment,
  type PythonRuleResult,
  type PythonRuleRunnerOptions,
  type RuleCallOutcome,
  type RuleModule,
  type TemplateRenderOutcome,
} from './pythonRuleRunner.js';
