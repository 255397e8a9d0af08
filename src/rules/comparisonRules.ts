/**
 * comparison/*: the readout against fixed thresholds. Bounds are inclusive (`min_count: 5` passes 5). A rule
 * whose bounds are all optional and unset passes (the severity is enabled but only records the value).
 */
import type { MissingValueContext, RuleContext, RuleTable } from './ruleImplementation.js';
import { noVerdict, verdict, withinBounds, type RuleOutcome } from './ruleTypes.js';

/**
 * Codes of the data types that the column/datatype/string_datatype_detect sensor reports, in the order of the
 * expected_datatype values of comparison/detected_datatype_equals: integers = 1 … mixed = 8.
 */
export const DETECTED_DATATYPES = ['integers', 'floats', 'dates', 'datetimes', 'timestamps', 'booleans', 'texts', 'mixed'] as const;

function atLeast(actual: number, minimum: number): RuleOutcome {
  return verdict(actual >= minimum, { expectedValue: minimum, lowerBound: minimum });
}

function atMost(actual: number, maximum: number): RuleOutcome {
  return verdict(actual <= maximum, { expectedValue: maximum, upperBound: maximum });
}

function between(actual: number, lower: number | undefined, upper: number | undefined): RuleOutcome {
  return verdict(withinBounds(actual, lower, upper), { lowerBound: lower, upperBound: upper });
}

function equalTo(actual: number, expected: number, margin = 0): RuleOutcome {
  return verdict(Math.abs(actual - expected) <= margin, { expectedValue: expected, lowerBound: expected - margin, upperBound: expected + margin });
}

const minCount = (name: string) => ({ evaluate: (c: RuleContext) => atLeast(c.actualValue, c.params.requiredNumber(name)) });
const maxCount = (name: string) => ({ evaluate: (c: RuleContext) => atMost(c.actualValue, c.params.requiredNumber(name)) });
const range = (from: string, to: string) => ({
  evaluate: (c: RuleContext) => between(c.actualValue, c.params.number(from), c.params.number(to)),
});

export const COMPARISON_RULES: RuleTable = {
  'comparison/min_count': minCount('min_count'),
  'comparison/max_count': maxCount('max_count'),
  'comparison/min_percent': minCount('min_percent'),
  'comparison/max_percent': maxCount('max_percent'),
  'comparison/max_days': maxCount('max_days'),
  'comparison/min': minCount('min_value'),
  'comparison/min_value': minCount('min_value'),
  'comparison/max': maxCount('max_value'),
  'comparison/max_value': maxCount('max_value'),
  'comparison/min_count_1': { evaluate: (c) => atLeast(c.actualValue, 1) },
  'comparison/between_floats': range('from', 'to'),
  'comparison/between_ints': range('from', 'to'),
  'comparison/between_percent': range('min_percent', 'max_percent'),
  'comparison/count_between': {
    evaluate: (c) => between(c.actualValue, c.params.requiredNumber('min_count'), c.params.requiredNumber('max_count')),
  },
  'comparison/equals': {
    evaluate: (c) => equalTo(c.actualValue, c.params.requiredNumber('expected_value'), Math.abs(c.params.number('error_margin') ?? 0)),
  },
  'comparison/equals_integer': { evaluate: (c) => equalTo(c.actualValue, c.params.requiredNumber('expected_value')) },
  'comparison/equals_0': { evaluate: (c) => equalTo(c.actualValue, 0) },
  'comparison/equals_1': { evaluate: (c) => equalTo(c.actualValue, 1) },
  'comparison/pass': { evaluate: () => verdict(true) },

  /** The readout is a data type code (DETECTED_DATATYPES); passes when it is the expected one. No expected type: no verdict. */
  'comparison/detected_datatype_equals': {
    evaluate: (c) => {
      const expected = c.params.string('expected_datatype');
      if (expected === undefined) return noVerdict('no expected_datatype is set');
      return equalTo(c.actualValue, DETECTED_DATATYPES.indexOf(expected as (typeof DETECTED_DATATYPES)[number]) + 1);
    },
  },

  /**
   * The readout against the reference value (the same measure on the compared table): passes when it is
   * within max_diff_percent percent of the reference (bounds reference ∓ percent·|reference|, so a zero
   * reference matches only zero). Without a reference value, or without a readout, it fails (DQOps's rule
   * does the same: a side of the comparison that returned nothing is a difference).
   */
  'comparison/diff_percent': {
    evaluate: (c) => diffPercent(c, c.actualValue),
    whenNoActualValue: (c) => (c.referenceValue === undefined ? { verdict: 'no_actual_value' } : diffPercent(c, undefined)),
  },

  /**
   * How many expected values may be missing: the readout is the number of expected values found, the reference
   * value the number expected; passes when found ≥ expected − max_missing (the lower bound, at least 0). No
   * readout: passes (nothing was found missing). Without a reference value the readout is taken as the
   * missing count itself (DQOps's rule fails with an error then).
   */
  'comparison/max_missing': {
    evaluate: (c) => {
      const maxMissing = c.params.requiredNumber('max_missing');
      if (c.referenceValue === undefined) return atMost(c.actualValue, maxMissing);
      const lowerBound = c.referenceValue < maxMissing ? 0 : c.referenceValue - maxMissing;
      return verdict(c.actualValue >= lowerBound, { expectedValue: c.referenceValue, lowerBound });
    },
    whenNoActualValue: () => verdict(true),
  },

  /**
   * Enables a severity for a custom query's imported results. The imported severity (the query's `severity`
   * column) is the check's result and the rule does not run; when the query returned no severity, a readout
   * fails at every enabled severity, as in DQOps.
   */
  'comparison/import_severity': {
    evaluate: () => verdict(false),
  },

  /**
   * Schema hashes and other fingerprints: passes when the readout equals the previous readout (the last of
   * the window; expected value and both bounds), and when there is no previous readout yet (the first readout
   * sets the baseline).
   */
  'comparison/value_changed': {
    evaluate: (c) => {
      const previous = c.history.points.at(-1);
      if (!previous) return verdict(true);
      return verdict(c.actualValue === previous.value, { expectedValue: previous.value, lowerBound: previous.value, upperBound: previous.value });
    },
  },

  /**
   * Table availability: a readout above 0 is a failure. Counts the current failure and the failures
   * immediately before it (consecutive readouts above 0); passes while that count is at most max_failures.
   * Expected 0 failures, upper bound max_failures; the count is reported as the result's new actual value.
   * No readout: passes.
   */
  'comparison/max_failures': {
    evaluate: (c) => {
      const maxFailures = c.params.requiredNumber('max_failures');
      let failures = 0;
      if (c.actualValue > 0) {
        failures = 1;
        for (let i = c.history.points.length - 1; i >= 0 && c.history.points[i].value > 0; i -= 1) failures += 1;
      }
      return verdict(failures <= maxFailures, { expectedValue: 0, upperBound: maxFailures, newActualValue: failures });
    },
    whenNoActualValue: () => verdict(true),
  },
};

function diffPercent(c: MissingValueContext, actual: number | undefined): RuleOutcome {
  if (c.referenceValue === undefined) return verdict(false);
  const reference = c.referenceValue;
  const margin = (c.params.requiredNumber('max_diff_percent') / 100) * Math.abs(reference);
  const lowerBound = reference - margin;
  const upperBound = reference + margin;
  return verdict(actual !== undefined && lowerBound <= actual && actual <= upperBound, { expectedValue: reference, lowerBound, upperBound });
}
