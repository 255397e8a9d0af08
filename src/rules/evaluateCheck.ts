/**
 * Judges one readout of a check at each configured severity and combines the verdicts: the check's severity
 * is the highest failed one (fatal 3 > error 2 > warning 1), 0 when every judged severity passed, and null when
 * no severity gave a verdict (none configured, not enough history yet, or no actual value): a check without
 * thresholds only records its readout. A severity is configured when its key is present (`{}` or null enable
 * it with the catalog defaults); `{disabled: true}` turns it off.
 *
 * The reported bounds are those of the highest failed severity, or, when none failed, of the first judged one
 * in the order error, warning, fatal (error is the severity a check usually sets). The expected value is the
 * one DQOps stores in the result: warning's if it has one, else error's, else fatal's (any outcome that
 * computed one). A rule's new actual value (max_failures: the failure count) is fatal's, else error's, else
 * warning's, as in DQOps.
 */
import { evaluateRule, type EvaluateRuleOptions } from './evaluateRule.js';
import { RULE_SEVERITIES, SEVERITY_NUMBERS } from '../model/index.js';
import { type Readout, type RuleOutcome, type RuleParameters, type Severity } from './ruleTypes.js';

export interface CheckEvaluationInput {
  ruleName: string;
  actualValue: number | null;
  history?: readonly Readout[];
  timePeriod: string;
  /** Thresholds per severity; an absent key is a severity not configured. */
  severities: Partial<Record<Severity, RuleParameters | undefined>>;
  referenceValue?: number | null;
  timeGradient?: string;
}

export type CheckSeverity = 0 | 1 | 2 | 3;

export interface CheckEvaluation {
  /** Highest failed severity, 0 valid, null no verdict. */
  severity: CheckSeverity | null;
  expectedValue: number | null;
  /** The value DQOps stores as the result's actual value instead of the readout, when a rule gives one. */
  newActualValue: number | null;
  lowerBound: number | null;
  upperBound: number | null;
  /** The outcome of each configured severity. */
  perSeverity: Partial<Record<Severity, RuleOutcome>>;
}

const REPORT_ORDER: readonly Severity[] = ['error', 'warning', 'fatal'];

export function evaluateCheck(input: CheckEvaluationInput, options: EvaluateRuleOptions = {}): CheckEvaluation {
  const perSeverity: Partial<Record<Severity, RuleOutcome>> = {};
  for (const severity of RULE_SEVERITIES) {
    if (!(severity in input.severities)) continue;
    const parameters = input.severities[severity];
    if (parameters === undefined || (parameters !== null && parameters.disabled === true)) continue;
    perSeverity[severity] = evaluateRule(
      input.ruleName,
      {
        actualValue: input.actualValue,
        parameters,
        history: input.history,
        timePeriod: input.timePeriod,
        referenceValue: input.referenceValue,
        severity,
        timeGradient: input.timeGradient,
      },
      options,
    );
  }
  return combineOutcomes(perSeverity);
}

/** The check's evaluation from the outcome of each configured severity (built-in or custom rule alike). */
export function combineOutcomes(perSeverity: Partial<Record<Severity, RuleOutcome>>): CheckEvaluation {
  let severity: CheckSeverity | null = null;
  let reported: Severity | undefined;
  for (const name of RULE_SEVERITIES) {
    const outcome = perSeverity[name];
    if (!outcome || (outcome.verdict !== 'passed' && outcome.verdict !== 'failed')) continue;
    if (outcome.passed) {
      severity ??= 0;
    } else {
      severity = SEVERITY_NUMBERS[name];
      reported = name;
    }
  }
  reported ??= REPORT_ORDER.find((name) => {
    const verdict = perSeverity[name]?.verdict;
    return verdict === 'passed' || verdict === 'failed';
  });
  const outcome = reported ? perSeverity[reported] : undefined;
  const judged = outcome && (outcome.verdict === 'passed' || outcome.verdict === 'failed') ? outcome : undefined;
  const valueOf = (name: Severity, key: 'expectedValue' | 'newActualValue') => {
    const value = (perSeverity[name] as { expectedValue?: number; newActualValue?: number } | undefined)?.[key];
    return value ?? undefined;
  };
  const expectedValue = valueOf('warning', 'expectedValue') ?? valueOf('error', 'expectedValue') ?? valueOf('fatal', 'expectedValue');
  const newActualValue = valueOf('fatal', 'newActualValue') ?? valueOf('error', 'newActualValue') ?? valueOf('warning', 'newActualValue');
  return {
    severity,
    expectedValue: severity === null ? null : (expectedValue ?? null),
    newActualValue: severity === null ? null : (newActualValue ?? null),
    lowerBound: judged?.lowerBound ?? null,
    upperBound: judged?.upperBound ?? null,
    perSeverity,
  };
}
