import { describe, expect, it } from 'vitest';
import { DETECTED_DATATYPES, evaluateRule, type RuleInput, type RuleOutcome } from '../../src/rules/index.js';

const TODAY = '2024-05-20';
const judge = (rule: string, actualValue: number | null, parameters: RuleInput['parameters'] = {}, extra: Partial<RuleInput> = {}): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters, timePeriod: TODAY, ...extra });
const passes = (rule: string, actual: number, parameters: RuleInput['parameters'] = {}, extra: Partial<RuleInput> = {}) =>
  (judge(rule, actual, parameters, extra) as { passed: boolean }).passed;

describe('comparison rules: thresholds are inclusive', () => {
  it('min_count', () => {
    expect(judge('comparison/min_count', 5, { min_count: 5 })).toEqual({ verdict: 'passed', passed: true, expectedValue: 5, lowerBound: 5 });
    expect(judge('comparison/min_count', 4, { min_count: 5 })).toEqual({ verdict: 'failed', passed: false, expectedValue: 5, lowerBound: 5 });
    // {} takes the catalog default min_count: 1
    expect(passes('comparison/min_count', 1, {})).toBe(true);
    expect(passes('comparison/min_count', 0, null)).toBe(false);
  });

  it('max_count (default 0)', () => {
    expect(judge('comparison/max_count', 3, { max_count: 3 })).toEqual({ verdict: 'passed', passed: true, expectedValue: 3, upperBound: 3 });
    expect(passes('comparison/max_count', 4, { max_count: 3 })).toBe(false);
    expect(passes('comparison/max_count', 0, {})).toBe(true);
    expect(passes('comparison/max_count', 1, {})).toBe(false);
  });

  it('min_percent (default 100) and max_percent (default 0)', () => {
    expect(passes('comparison/min_percent', 99.5, { min_percent: 99.5 })).toBe(true);
    expect(passes('comparison/min_percent', 99.49, { min_percent: 99.5 })).toBe(false);
    expect(passes('comparison/min_percent', 99.99, {})).toBe(false);
    expect(passes('comparison/min_percent', 100, {})).toBe(true);
    expect(judge('comparison/max_percent', 2.5, { max_percent: 2 })).toEqual({ verdict: 'failed', passed: false, expectedValue: 2, upperBound: 2 });
    expect(passes('comparison/max_percent', 0, {})).toBe(true);
  });

  it('between_floats, between_ints: either bound may be unset', () => {
    expect(judge('comparison/between_floats', 10.5, { from: 10, to: 11 })).toEqual({ verdict: 'passed', passed: true, lowerBound: 10, upperBound: 11 });
    expect(passes('comparison/between_floats', 11.01, { from: 10, to: 11 })).toBe(false);
    expect(passes('comparison/between_floats', 9.99, { from: 10 })).toBe(false);
    expect(passes('comparison/between_floats', 1e9, { from: 10 })).toBe(true);
    expect(passes('comparison/between_floats', -1e9, { to: 11 })).toBe(true);
    expect(judge('comparison/between_floats', 5, {})).toEqual({ verdict: 'passed', passed: true });
    expect(passes('comparison/between_ints', 20, { from: 5, to: 20 })).toBe(true);
    expect(passes('comparison/between_ints', 21, { from: 5, to: 20 })).toBe(false);
    expect(passes('comparison/between_ints', 4, { from: 5, to: 20 })).toBe(false);
  });

  it('between_percent (min_percent defaults to 100)', () => {
    expect(passes('comparison/between_percent', 50, { min_percent: 40, max_percent: 60 })).toBe(true);
    expect(passes('comparison/between_percent', 61, { min_percent: 40, max_percent: 60 })).toBe(false);
    expect(judge('comparison/between_percent', 99, {})).toEqual({ verdict: 'failed', passed: false, lowerBound: 100 });
  });

  it('count_between: both bounds required, no defaults', () => {
    expect(passes('comparison/count_between', 10, { min_count: 10, max_count: 20 })).toBe(true);
    expect(passes('comparison/count_between', 21, { min_count: 10, max_count: 20 })).toBe(false);
    expect(() => judge('comparison/count_between', 10, { min_count: 10 })).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID', message: expect.stringContaining('max_count') }),
    );
  });

  it('equals_integer (default 1), equals_1, equals_0, equals with a margin', () => {
    expect(judge('comparison/equals_integer', 12, { expected_value: 12 })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 12, lowerBound: 12, upperBound: 12,
    });
    expect(passes('comparison/equals_integer', 11, { expected_value: 12 })).toBe(false);
    expect(passes('comparison/equals_integer', 1, {})).toBe(true);
    expect(passes('comparison/equals_1', 1)).toBe(true);
    expect(passes('comparison/equals_1', 0)).toBe(false);
    expect(passes('comparison/equals_0', 0)).toBe(true);
    expect(passes('comparison/equals_0', 2)).toBe(false);
    expect(passes('comparison/equals', 10.4, { expected_value: 10, error_margin: 0.5 })).toBe(true);
    expect(passes('comparison/equals', 10.6, { expected_value: 10, error_margin: 0.5 })).toBe(false);
  });

  it('min_count_1', () => {
    expect(judge('comparison/min_count_1', 1)).toEqual({ verdict: 'passed', passed: true, expectedValue: 1, lowerBound: 1 });
    expect(passes('comparison/min_count_1', 0)).toBe(false);
  });

  it('max_days (default 1), min/max/min_value/max_value, pass', () => {
    expect(passes('comparison/max_days', 1, {})).toBe(true);
    expect(passes('comparison/max_days', 1.01, {})).toBe(false);
    expect(passes('comparison/max_days', 2.5, { max_days: 3 })).toBe(true);
    expect(passes('comparison/min', 3, { min_value: 3 })).toBe(true);
    expect(passes('comparison/min_value', 2.9, { min_value: 3 })).toBe(false);
    expect(passes('comparison/max', 3, { max_value: 3 })).toBe(true);
    expect(passes('comparison/max_value', 3.1, { max_value: 3 })).toBe(false);
    expect(passes('comparison/pass', -42)).toBe(true);
  });

  it('diff_percent: against the reference value, as a percent of it', () => {
    // reference 200, 5 % → [190, 210]
    expect(judge('comparison/diff_percent', 210, { max_diff_percent: 5 }, { referenceValue: 200 })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 200, lowerBound: 190, upperBound: 210,
    });
    expect(passes('comparison/diff_percent', 189, { max_diff_percent: 5 }, { referenceValue: 200 })).toBe(false);
    // default 0 %: exact match
    expect(passes('comparison/diff_percent', 200, {}, { referenceValue: 200 })).toBe(true);
    expect(passes('comparison/diff_percent', 201, {}, { referenceValue: 200 })).toBe(false);
    // a zero reference matches only zero
    expect(passes('comparison/diff_percent', 0, { max_diff_percent: 50 }, { referenceValue: 0 })).toBe(true);
    expect(passes('comparison/diff_percent', 1, { max_diff_percent: 50 }, { referenceValue: 0 })).toBe(false);
    // no reference value (the compared table returned nothing): a difference, so it fails, without bounds
    expect(judge('comparison/diff_percent', 200, { max_diff_percent: 5 })).toEqual({ verdict: 'failed', passed: false });
    // no readout but a reference: fails, with the reference's bounds (200 ∓ 5 % of 200)
    expect(judge('comparison/diff_percent', null, { max_diff_percent: 5 }, { referenceValue: 200 })).toEqual({
      verdict: 'failed', passed: false, expectedValue: 200, lowerBound: 190, upperBound: 210,
    });
    // neither side: nothing to judge
    expect(judge('comparison/diff_percent', null, { max_diff_percent: 5 })).toEqual({ verdict: 'no_actual_value' });
    // a negative reference: the margin is a percent of its magnitude, −200 ∓ 10 → [−210, −190]
    expect(judge('comparison/diff_percent', -195, { max_diff_percent: 5 }, { referenceValue: -200 })).toEqual({
      verdict: 'passed', passed: true, expectedValue: -200, lowerBound: -210, upperBound: -190,
    });
  });

  it('max_missing: the missing count, or reference − found', () => {
    expect(passes('comparison/max_missing', 0, {})).toBe(true);
    expect(passes('comparison/max_missing', 2, { max_missing: 1 })).toBe(false);
    // 5 expected values, 4 found → 1 missing
    expect(judge('comparison/max_missing', 4, { max_missing: 1 }, { referenceValue: 5 })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 5, lowerBound: 4,
    });
    expect(passes('comparison/max_missing', 3, { max_missing: 1 }, { referenceValue: 5 })).toBe(false);
    // more allowed missing than expected values: the lower bound stops at 0
    expect(judge('comparison/max_missing', 0, { max_missing: 3 }, { referenceValue: 2 })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 2, lowerBound: 0,
    });
    // no readout: nothing was found missing, it passes (as DQOps's rule does)
    expect(judge('comparison/max_missing', null, { max_missing: 1 }, { referenceValue: 5 })).toEqual({ verdict: 'passed', passed: true });
  });

  it('detected_datatype_equals: codes in the order of the enum', () => {
    expect(DETECTED_DATATYPES.indexOf('texts') + 1).toBe(7);
    expect(passes('comparison/detected_datatype_equals', 1, { expected_datatype: 'integers' })).toBe(true);
    expect(passes('comparison/detected_datatype_equals', 8, { expected_datatype: 'integers' })).toBe(false);
    expect(passes('comparison/detected_datatype_equals', 7, { expected_datatype: 'texts' })).toBe(true);
    expect(judge('comparison/detected_datatype_equals', 7, { expected_datatype: 'texts' })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 7, lowerBound: 7, upperBound: 7,
    });
    // no expected data type: no verdict (DQOps answers passed: None)
    expect(judge('comparison/detected_datatype_equals', 3, {})).toEqual({ verdict: 'no_verdict', reason: 'no expected_datatype is set' });
    expect(judge('comparison/detected_datatype_equals', null, { expected_datatype: 'texts' })).toEqual({ verdict: 'no_actual_value' });
    expect(() => judge('comparison/detected_datatype_equals', 3, { expected_datatype: 'strings' })).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
  });

  it('import_severity: a readout that reaches the rule (no imported severity) fails, as in DQOps', () => {
    // the imported severity column decides the result without the rule; the rule only sees readouts without one
    for (const severity of ['warning', 'error', 'fatal'] as const) {
      expect(judge('comparison/import_severity', 0, {}, { severity })).toEqual({ verdict: 'failed', passed: false });
    }
    expect(judge('comparison/import_severity', null, {})).toEqual({ verdict: 'no_actual_value' });
  });
});

describe('comparison rules that look at the previous readouts', () => {
  const history = [
    { timePeriod: '2024-05-17', value: 0 },
    { timePeriod: '2024-05-18', value: 1 },
    { timePeriod: '2024-05-19', value: 1 },
  ];

  it('value_changed: equal to the previous readout; the first readout passes', () => {
    const hashes = [
      { timePeriod: '2024-05-18', value: 111 },
      { timePeriod: '2024-05-19', value: 4242424242 },
    ];
    // expected value and both bounds are the previous readout
    expect(judge('comparison/value_changed', 4242424242, {}, { history: hashes })).toEqual({
      verdict: 'passed', passed: true, expectedValue: 4242424242, lowerBound: 4242424242, upperBound: 4242424242,
    });
    expect(judge('comparison/value_changed', 111, {}, { history: hashes })).toEqual({
      verdict: 'failed', passed: false, expectedValue: 4242424242, lowerBound: 4242424242, upperBound: 4242424242,
    });
    expect(judge('comparison/value_changed', null, {}, { history: hashes })).toEqual({ verdict: 'no_actual_value' });
    expect(judge('comparison/value_changed', 5, {}, { history: [] })).toEqual({ verdict: 'passed', passed: true });
    // a readout of the same time period (a re-run) is not "the previous one"
    expect(passes('comparison/value_changed', 7, {}, { history: [...hashes, { timePeriod: TODAY, value: 7 }] })).toBe(false);
  });

  it('max_failures: consecutive failures, the current one included', () => {
    // two failures before today, today fails: 3 consecutive
    // expected 0 failures, at most max_failures; the count (3) becomes the result's actual value
    expect(judge('comparison/max_failures', 1, { max_failures: 2 }, { history })).toEqual({
      verdict: 'failed', passed: false, expectedValue: 0, upperBound: 2, newActualValue: 3,
    });
    // no readout: passes (as DQOps's rule does)
    expect(judge('comparison/max_failures', null, { max_failures: 0 }, { history })).toEqual({ verdict: 'passed', passed: true });
    expect(passes('comparison/max_failures', 1, { max_failures: 3 }, { history })).toBe(true);
    // today available: no failures
    expect(passes('comparison/max_failures', 0, {}, { history })).toBe(true);
    // default 0: the first failure fails
    expect(passes('comparison/max_failures', 1, {}, { history: [] })).toBe(false);
  });
});

describe('parameters', () => {
  it('an unknown parameter name is an error, not the default', () => {
    expect(() => judge('comparison/min_count', 5, { min_cont: 5 })).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID', message: expect.stringContaining('it takes min_count') }),
    );
  });

  it('a value of the wrong type is an error', () => {
    expect(() => judge('comparison/min_count', 5, { min_count: '5' })).toThrow(expect.objectContaining({ code: 'RULE_INPUT_INVALID' }));
    expect(() => judge('comparison/min_count', 5, { min_count: 1.5 })).toThrow(expect.objectContaining({ code: 'RULE_INPUT_INVALID' }));
  });

  it('an unknown rule is RULE_UNKNOWN', () => {
    expect(() => judge('comparison/min_cont', 5)).toThrow(expect.objectContaining({ code: 'RULE_UNKNOWN' }));
  });

  it('no actual value: no verdict', () => {
    expect(judge('comparison/min_count', null, { min_count: 1 })).toEqual({ verdict: 'no_actual_value' });
  });

  it('a malformed time period is an error', () => {
    expect(() => evaluateRule('comparison/min_count', { actualValue: 1, timePeriod: 'yesterday' })).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
  });
});
