import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { keepThreeDigits, loosenedRuleParameters, recalibratedRuleNames, type CalibrationHistory, type RuleSlot } from '../../src/rules/index.js';
import type { JsonObject } from '../../src/model/index.js';

/**
 * Recalibration loosens thresholds rule by rule as DQOps does (the expected numbers below are worked out by hand
 * from DQOps's rule parameter classes): limits × 1.3 or × 0.7 kept to three significant digits, counts stepped
 * up, 0 catching up with the largest recent value, ranges widened only on a crossed side, anomaly tails × 0.7.
 */
const catalog = getCheckCatalog();
const seen = (...values: number[]): CalibrationHistory => ({ actualValues: values, newestActualValue: values.at(-1) ?? null });
const slot = (severity: RuleSlot['severity'], checkBaseName = 'nulls_count'): RuleSlot => ({ severity, checkBaseName });

function loosen(rule: string, given: JsonObject | null, history: CalibrationHistory = seen(1, 2, 3), at: RuleSlot = slot('error')): JsonObject | undefined {
  const known = catalog.rules.get(rule);
  if (!known) throw new Error(`no rule ${rule}`);
  return loosenedRuleParameters(known, at, given, history);
}

describe('keepThreeDigits', () => {
  it('keeps three significant digits, cut towards zero, without float noise', () => {
    expect(keepThreeDigits(10 * 1.3)).toBe(13);
    expect(keepThreeDigits(0.05 * 0.7)).toBe(0.035);
    expect(keepThreeDigits(123456)).toBe(123000);
    expect(keepThreeDigits(-123456)).toBe(-123000);
    expect(keepThreeDigits(12.99999)).toBe(12.9);
    expect(keepThreeDigits(-0.0012345)).toBe(-0.00123);
    expect(keepThreeDigits(0)).toBe(0);
  });
});

describe('loosenedRuleParameters', () => {
  it('knows every rule of the catalog (those with nothing to loosen answer undefined)', () => {
    const nothing = ['comparison/equals_0', 'comparison/equals_1', 'comparison/import_severity', 'comparison/min_count_1', 'comparison/pass', 'comparison/value_changed'];
    expect([...recalibratedRuleNames(), ...nothing].sort()).toEqual([...catalog.rules.keys()].sort());
    for (const rule of nothing) expect(loosen(rule, {})).toBeUndefined();
  });

  it('max_count: below 5 becomes 5; above, × 1.3 (× 1.5 for warnings and for the error of lookup_key_not_found)', () => {
    expect(loosen('comparison/max_count', { max_count: 0 })).toEqual({ max_count: 5 });
    expect(loosen('comparison/max_count', {})).toEqual({ max_count: 5 }); // the default 0, written out
    expect(loosen('comparison/max_count', { max_count: 100 }, seen(1), slot('fatal'))).toEqual({ max_count: 130 });
    expect(loosen('comparison/max_count', { max_count: 10 }, seen(1), slot('warning'))).toEqual({ max_count: 15 });
    expect(loosen('comparison/max_count', { max_count: 10 }, seen(1), slot('error'))).toEqual({ max_count: 13 });
    expect(loosen('comparison/max_count', { max_count: 10 }, seen(1), slot('error', 'lookup_key_not_found'))).toEqual({ max_count: 15 });
    expect(loosen('comparison/max_count', { max_count: 7 }, seen(1), slot('error'))).toEqual({ max_count: 9 });
  });

  it('percentages: max_percent catches up from 0, × 1.3 below 70, 30 % towards 100 above; min_percent 30 % towards 100', () => {
    expect(loosen('comparison/max_percent', { max_percent: 0 }, seen(2.5, 7.25, 1))).toEqual({ max_percent: 7.25 });
    expect(loosen('comparison/max_percent', { max_percent: 5 })).toEqual({ max_percent: 6.5 });
    expect(loosen('comparison/max_percent', { max_percent: 80 })).toEqual({ max_percent: 86 });
    expect(loosen('comparison/min_percent', { min_percent: 99 })).toEqual({ min_percent: 99.3 });
    expect(loosen('comparison/min_percent', { min_percent: 95 })).toEqual({ min_percent: 96.5 });
  });

  it('counts of failures and missing values step up', () => {
    expect(loosen('comparison/max_failures', { max_failures: 0 })).toEqual({ max_failures: 1 });
    expect(loosen('comparison/max_missing', { max_missing: 0 })).toEqual({ max_missing: 1 });
    expect(loosen('comparison/max_missing', { max_missing: 8 })).toEqual({ max_missing: 11 });
  });

  it('min_count takes the smallest recent count when that is higher, then 30 % less (one more when that rounds back)', () => {
    expect(loosen('comparison/min_count', { min_count: 5000 }, seen(9000, 12000))).toEqual({ min_count: 6300 });
    expect(loosen('comparison/min_count', { min_count: 50000 }, seen(40000))).toEqual({ min_count: 35000 });
    expect(loosen('comparison/min_count', { min_count: 0 }, seen(-1))).toEqual({ min_count: 1 });
  });

  it('value limits: max × 1.3 when positive (× 0.7 when negative), min × 0.7 when positive (× 1.3 when negative)', () => {
    expect(loosen('comparison/max_value', { max_value: 25000 })).toEqual({ max_value: 32500 });
    expect(loosen('comparison/max', { max_value: -10 })).toEqual({ max_value: -7 });
    expect(loosen('comparison/min_value', { min_value: 10 })).toEqual({ min_value: 7 });
    expect(loosen('comparison/min', { min_value: -10 })).toEqual({ min_value: -13 });
    expect(loosen('comparison/max_days', { max_days: 1.5 })).toEqual({ max_days: 1.95 });
    expect(loosen('comparison/max_days', { max_days: 0 }, seen(3.5, 2))).toEqual({ max_days: 3.5 });
  });

  it('ranges widen only the side the recent values crossed', () => {
    // between_floats: 15 % of the range on the crossed side; without the other bound, to the value seen
    expect(loosen('comparison/between_floats', { from: 10, to: 20 }, seen(12, 25))).toEqual({ from: 10, to: 21.5 });
    expect(loosen('comparison/between_floats', { from: 10 }, seen(4.25, 15))).toEqual({ from: 4.25 });
    expect(loosen('comparison/between_floats', { from: 10, to: 20 }, seen(12, 18))).toBeUndefined();
    // between_ints: whole numbers, one more than the cut
    expect(loosen('comparison/between_ints', { from: 100, to: 200 }, seen(90, 150))).toEqual({ from: 86, to: 200 });
    // between_percent: beyond the value seen by 30 % of the overshoot, at most 30 % of the room left
    expect(loosen('comparison/between_percent', { min_percent: 90, max_percent: 95 }, seen(80, 97))).toEqual({ min_percent: 77, max_percent: 97.6 });
    // count_between: from the values seen, by 30 % of the overshoot, never below 0
    expect(loosen('comparison/count_between', { min_count: 100, max_count: 1000 }, seen(50, 2000))).toEqual({ min_count: 35, max_count: 2300 });
    expect(loosen('comparison/count_between', { min_count: 100 }, seen(10))).toEqual({ min_count: 0 });
  });

  it('equals: no margin takes the median; a zero margin half the spread; else the margin × 1.3', () => {
    expect(loosen('comparison/equals', { expected_value: 5 }, seen(1, 9, 3, 4))).toEqual({ expected_value: 3.5 });
    expect(loosen('comparison/equals', { expected_value: 5, error_margin: 0 }, seen(1, 9))).toEqual({ expected_value: 5, error_margin: 4 });
    expect(loosen('comparison/equals', { expected_value: 5, error_margin: 2 }, seen(1))).toEqual({ expected_value: 5, error_margin: 2.6 });
    expect(loosen('comparison/equals_integer', { expected_value: 1 }, seen(3, 7.9))).toEqual({ expected_value: 7 });
    expect(loosen('comparison/detected_datatype_equals', { expected_datatype: 'integers' }, { actualValues: [1, 7], newestActualValue: 7 })).toEqual({ expected_datatype: 'texts' });
  });

  it('change rules: bounds × 0.7 / × 1.3, a plain 0 percent catches up (× 0.7 of the largest change for change_percent)', () => {
    expect(loosen('change/between_change', { from: 10, to: 20 })).toEqual({ from: 7, to: 26 });
    expect(loosen('change/between_percent_change_7_days', { from_percent: -10, to_percent: 10 })).toEqual({ from_percent: -7, to_percent: 13 });
    expect(loosen('change/change_percent', { max_percent: 0 }, seen(10, 20))).toEqual({ max_percent: 14 });
    expect(loosen('change/change_percent_1_day', { max_percent: 0 }, seen(10, 20))).toEqual({ max_percent: 20 });
    expect(loosen('change/change_percent_30_days', {}, seen(1))).toEqual({ max_percent: 13 });
    expect(loosen('change/change_difference', { max_difference: 0 }, seen(4, 6))).toEqual({ max_difference: 6 });
    expect(loosen('change/change_difference_7_days', { max_difference: 0 }, seen(4, 6))).toBeUndefined();
    expect(loosen('change/change_difference_7_days', { max_difference: 10 })).toEqual({ max_difference: 13 });
  });

  it('moving averages, standard deviations and percentiles', () => {
    expect(loosen('averages/between_percent_moving_average_7_days', {})).toEqual({ max_percent_above: 13, max_percent_below: 13 });
    expect(loosen('averages/within_percent_moving_average_30_days', { max_percent_within: 0 }, seen(2, 8))).toEqual({ max_percent_within: 8 });
    expect(loosen('stdev/multiply_moving_stdev_60_days', { multiply_stdev_above: 3, multiply_stdev_below: 2 })).toEqual({ multiply_stdev_above: 3.9, multiply_stdev_below: 2.6 });
    expect(loosen('stdev/change_multiply_moving_stdev_within_7_days', { multiply_stdev: 0 })).toEqual({ multiply_stdev: 1 });
    expect(loosen('stdev/multiply_moving_stdev_within_7_days', { multiply_stdev: 0 })).toBeUndefined();
    expect(loosen('percentile/percentile_moving_7_days', { percentile_above: 5, percentile_below: 5 })).toEqual({ percentile_above: 3.5, percentile_below: 3.5 });
  });

  it('anomaly rules: the tail percentage × 0.7; at 0, the usual value of the severity', () => {
    expect(loosen('percentile/anomaly_partition_row_count', {})).toEqual({ anomaly_percent: 0.035 });
    expect(loosen('percentile/anomaly_stationary_percentile_moving_average', { anomaly_percent: 0.5 })).toEqual({ anomaly_percent: 0.35 });
    expect(loosen('percentile/anomaly_timeliness_delay', { anomaly_percent: 0 }, seen(1), slot('warning'))).toEqual({ anomaly_percent: 1 });
    expect(loosen('percentile/anomaly_timeliness_delay', { anomaly_percent: 0 }, seen(1), slot('error'))).toEqual({ anomaly_percent: 0.5 });
    expect(loosen('percentile/anomaly_timeliness_delay', { anomaly_percent: 0 }, seen(1), slot('fatal'))).toEqual({ anomaly_percent: 0.1 });
    // the differencing rule without a window suffix goes back to 1 % whatever the severity
    expect(loosen('percentile/anomaly_differencing_percentile_moving_average', { anomaly_percent: 0 }, seen(1), slot('fatal'))).toEqual({ anomaly_percent: 1 });
  });

  it('keeps the other keys of the threshold object, and answers undefined when the values it needs are missing', () => {
    expect(loosen('comparison/max_count', { max_count: 10, disabled: false }, seen(1), slot('fatal'))).toEqual({ max_count: 13, disabled: false });
    expect(loosen('comparison/max_value', {})).toBeUndefined();
    expect(loosen('comparison/between_floats', { from: 1, to: 2 }, seen())).toBeUndefined();
  });
});
