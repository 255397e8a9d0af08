/**
 * The values rules take and return. A rule judges one sensor readout (the actual value) against the thresholds
 * of one severity and, for rules that look back, the earlier readouts of the same check and data group. It
 * either gives a verdict or says it cannot give one yet (too little history, or no value to judge): a missing
 * verdict is never reported as a failure.
 */
import type { JsonValue, RuleSeverity as Severity } from '../model/index.js';

/** One earlier readout of the same check and data group. */
export interface Readout {
  /** Start of the readout's time period, ISO-8601 (`2024-05-01`, `2024-05-01T00:00:00Z`); no zone = UTC. */
  timePeriod: string;
  value: number;
  /** The expected value stored with it, when known (custom rules see it as `expected_value`). */
  expectedValue?: number | null;
}

export type { RuleSeverity as Severity } from '../model/index.js';

/** Thresholds of one severity as written in a check (`error: {min_count: 5}`); `{}` or null: catalog defaults. */
export type RuleParameters = Readonly<Record<string, JsonValue | undefined>> | null;

export interface RuleInput {
  /** The sensor readout; null when the sensor returned no value (then there is no verdict). */
  actualValue: number | null;
  parameters?: RuleParameters;
  /**
   * Earlier readouts of the same check and data group, in any order. Readouts of the current time period and
   * later ones are ignored; the rule's time window picks the rest.
   */
  history?: readonly Readout[];
  /** The time period of the actual value (ISO-8601). */
  timePeriod: string;
  /**
   * The value the sensor read from the reference (the compared table of a table comparison, the number of
   * expected values): needed by comparison/diff_percent, optional for comparison/max_missing.
   */
  referenceValue?: number | null;
  /** The severity being judged; comparison/import_severity needs it (evaluateCheck passes it). */
  severity?: Severity;
  /**
   * The check's time gradient (`day`, `week`, `month`, …). When coarser than the rule's history grouping the
   * history is grouped by the gradient instead, and the time window counts its periods (a monthly check's
   * anomaly window is 90 months, not 90 days).
   */
  timeGradient?: string;
}

/** What a rule says for one severity. Bounds are inclusive: the readout passes when lower ≤ actual ≤ upper. */
export type RuleOutcome = RuleVerdict | NotEnoughHistory | NoActualValue | NoVerdict;

export interface RuleVerdict {
  verdict: 'passed' | 'failed';
  passed: boolean;
  expectedValue?: number;
  lowerBound?: number;
  upperBound?: number;
  /** The value DQOps stores as the result's actual value instead of the readout (max_failures: the failure count). */
  newActualValue?: number;
}

export interface NotEnoughHistory {
  verdict: 'not_enough_history';
  /** Time periods (or readouts, for last_n_readouts) with a readout inside the rule's window. */
  periodsWithReadouts: number;
  requiredPeriods: number;
}

export interface NoActualValue {
  verdict: 'no_actual_value';
}

/**
 * The rule ran but judges nothing, as DQOps's rule answers `passed: None`: no threshold is set, or the history
 * is one repeated value that the readout equals (an anomaly rule). What it computed is kept.
 */
export interface NoVerdict {
  verdict: 'no_verdict';
  reason: string;
  expectedValue?: number;
  lowerBound?: number;
  upperBound?: number;
}

export function noVerdict(reason: string, values: Omit<NoVerdict, 'verdict' | 'reason'> = {}): NoVerdict {
  return { verdict: 'no_verdict', reason, ...finiteValues(values) };
}

export function verdict(passed: boolean, values: Omit<RuleVerdict, 'verdict' | 'passed'> = {}): RuleVerdict {
  return { verdict: passed ? 'passed' : 'failed', passed, ...finiteValues(values) };
}

interface ReportedValues {
  expectedValue?: number;
  lowerBound?: number;
  upperBound?: number;
  newActualValue?: number;
}

function finiteValues(values: ReportedValues): ReportedValues {
  const result: ReportedValues = {};
  for (const key of ['expectedValue', 'lowerBound', 'upperBound', 'newActualValue'] as const) {
    const value = values[key];
    if (value !== undefined && Number.isFinite(value)) result[key] = value;
  }
  return result;
}

/** True when lower ≤ value ≤ upper, absent bounds not limiting. */
export function withinBounds(value: number, lowerBound: number | undefined, upperBound: number | undefined): boolean {
  return (lowerBound === undefined || value >= lowerBound) && (upperBound === undefined || value <= upperBound);
}
