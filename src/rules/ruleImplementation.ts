/**
 * The shape of one rule's code. evaluateRule resolves the parameters, picks the history and handles the
 * no-value and too-little-history cases before a rule runs, so a rule is a plain function of numbers.
 */
import type { CatalogRule } from '../catalog/index.js';
import type { PickedHistory } from './historyWindow.js';
import type { ResolvedParameters } from './resolveParameters.js';
import type { RuleOutcome, Severity } from './ruleTypes.js';

export interface RuleContext {
  rule: CatalogRule;
  actualValue: number;
  params: ResolvedParameters;
  /** The readouts inside the rule's time window, oldest first; empty for current_value rules. */
  history: PickedHistory;
  referenceValue: number | undefined;
  severity: Severity | undefined;
}

/** What a rule that judges a missing readout sees: everything but the actual value. */
export type MissingValueContext = Omit<RuleContext, 'actualValue'>;

export interface RuleImplementation {
  evaluate(context: RuleContext): RuleOutcome;
  /**
   * The outcome when the sensor returned no value, for the rules whose DQOps definition gives one (max_missing
   * and max_failures pass, diff_percent fails); without it there is no verdict.
   */
  whenNoActualValue?(context: MissingValueContext): RuleOutcome;
  /** Group the history as the rule's time window says whatever the check's time gradient (names that count days). */
  fixedGrouping?: boolean;
}

export type RuleTable = Readonly<Record<string, RuleImplementation>>;
