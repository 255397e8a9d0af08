/** Every rule dqctl can evaluate, by its catalog name (`comparison/min_count`). */
import { ANOMALY_RULES } from './anomalyRules.js';
import { CHANGE_RULES } from './changeRules.js';
import { COMPARISON_RULES } from './comparisonRules.js';
import { MOVING_WINDOW_RULES } from './movingWindowRules.js';
import type { RuleImplementation } from './ruleImplementation.js';

const RULES: ReadonlyMap<string, RuleImplementation> = new Map(
  Object.entries({ ...COMPARISON_RULES, ...CHANGE_RULES, ...ANOMALY_RULES, ...MOVING_WINDOW_RULES }),
);

export function ruleImplementation(name: string): RuleImplementation | undefined {
  return RULES.get(name);
}

/** Names of the implemented rules, sorted. */
export function implementedRuleNames(): string[] {
  return [...RULES.keys()].sort();
}
