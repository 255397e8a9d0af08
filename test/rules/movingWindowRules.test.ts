import { describe, expect, it } from 'vitest';
import { evaluateRule, type Readout, type RuleInput, type RuleOutcome } from '../../src/rules/index.js';

const TODAY = '2024-06-30';
const TODAY_MS = Date.UTC(2024, 5, 30);
function lastDays(values: number[]): Readout[] {
  return values.map((value, index) => ({ timePeriod: new Date(TODAY_MS - (values.length - index) * 86_400_000).toISOString().slice(0, 10), value }));
}
const judge = (rule: string, actualValue: number | null, parameters: RuleInput['parameters'], history: Readout[]): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters, history, timePeriod: TODAY });

// 10, 20, 30: mean 20, sample standard deviation 10
const TEN_TWENTY_THIRTY = lastDays([10, 20, 30]);
// 10, 20, 40, 70: steps 10, 20, 30 (mean 20, standard deviation 10); last readout 70
const GROWING = lastDays([10, 20, 40, 70]);

describe('averages', () => {
  it('within_percent_moving_average_7_days: mean ± percent of it', () => {
    expect(judge('averages/within_percent_moving_average_7_days', 22, { max_percent_within: 10 }, TEN_TWENTY_THIRTY)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 20, lowerBound: 18, upperBound: 22,
    });
    expect(judge('averages/within_percent_moving_average_7_days', 17.9, {}, TEN_TWENTY_THIRTY)).toMatchObject({ passed: false });
  });

  it('between_percent_moving_average_30_days: separate sides, defaults 10 %', () => {
    const history = lastDays([10, 20, 30, 10, 20, 30, 10, 20, 30, 20]); // mean 20
    expect(judge('averages/between_percent_moving_average_30_days', 25, { max_percent_above: 25, max_percent_below: 5 }, history)).toMatchObject({
      passed: true, lowerBound: 19, upperBound: 25,
    });
    expect(judge('averages/between_percent_moving_average_30_days', 23, {}, history)).toMatchObject({ passed: false, upperBound: 22 });
  });

  it('percent_moving_average: an unset side has no bound', () => {
    const history = lastDays([10, 20, 30, 20, 20]);
    expect(judge('averages/percent_moving_average', 1e6, { max_percent_below: 50 }, history)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 20, lowerBound: 10,
    });
  });

  it('needs min_periods_with_readouts', () => {
    expect(judge('averages/within_percent_moving_average_7_days', 20, {}, lastDays([10, 20]))).toEqual({
      verdict: 'not_enough_history', periodsWithReadouts: 2, requiredPeriods: 3,
    });
    // readouts 8 days back are outside a 7-day window
    const old = [10, 20, 30].map((value, i) => ({ timePeriod: new Date(TODAY_MS - (8 + i) * 86_400_000).toISOString().slice(0, 10), value }));
    expect(judge('averages/within_percent_moving_average_7_days', 20, {}, old)).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 0 });
  });
});

describe('stdev', () => {
  it('multiply_moving_stdev_7_days: mean + k·s above, mean − k·s below', () => {
    expect(judge('stdev/multiply_moving_stdev_7_days', 40, { multiply_stdev_above: 2, multiply_stdev_below: 1 }, TEN_TWENTY_THIRTY)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 20, lowerBound: 10, upperBound: 40,
    });
    expect(judge('stdev/multiply_moving_stdev_7_days', 9, { multiply_stdev_below: 1 }, TEN_TWENTY_THIRTY)).toMatchObject({ passed: false });
  });

  it('multiply_moving_stdev_within_7_days: a band multiply_stdev·s wide in all, half each side (as DQOps)', () => {
    // s = 10, 1.5 → 15 wide: 20 ∓ 7.5
    expect(judge('stdev/multiply_moving_stdev_within_7_days', 27.5, { multiply_stdev: 1.5 }, TEN_TWENTY_THIRTY)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 20, lowerBound: 12.5, upperBound: 27.5,
    });
    expect(judge('stdev/multiply_moving_stdev_within_7_days', 27.6, { multiply_stdev: 1.5 }, TEN_TWENTY_THIRTY)).toMatchObject({ passed: false });
    expect(() => judge('stdev/multiply_moving_stdev_within_7_days', 35, {}, TEN_TWENTY_THIRTY)).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
  });

  it('change_multiply_moving_stdev(_within)_7_days: the last readout plus the mean step ± k·s of the steps', () => {
    // 70 + 20 = 90; within: 1·10 wide → 85 … 95
    expect(judge('stdev/change_multiply_moving_stdev_within_7_days', 95, { multiply_stdev: 1 }, GROWING)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 90, lowerBound: 85, upperBound: 95,
    });
    expect(judge('stdev/change_multiply_moving_stdev_within_7_days', 96, { multiply_stdev: 1 }, GROWING)).toMatchObject({ passed: false });
    expect(judge('stdev/change_multiply_moving_stdev_7_days', 110, { multiply_stdev_above: 2, multiply_stdev_below: 1 }, GROWING)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 90, lowerBound: 80, upperBound: 110,
    });
    // one-sided (DQOps gives no verdict: a deliberate deviation): only the lower bound 70 + 20 − 10 = 80
    expect(judge('stdev/change_multiply_moving_stdev_7_days', 79, { multiply_stdev_below: 1 }, GROWING)).toMatchObject({ passed: false });
  });
});

describe('percentile moving (normal distribution of the window)', () => {
  it('percentile_moving_7_days: the upper bound leaves percentile_above % above it', () => {
    // z(0.975) = 1.960 (standard normal table): 20 + 1.960·10
    const outcome = judge('percentile/percentile_moving_7_days', 39, { percentile_above: 2.5, percentile_below: 2.5 }, TEN_TWENTY_THIRTY) as {
      lowerBound: number; upperBound: number; passed: boolean;
    };
    expect(outcome.upperBound).toBeCloseTo(39.6, 2);
    expect(outcome.lowerBound).toBeCloseTo(0.4, 2);
    expect(outcome.passed).toBe(true);
    expect(judge('percentile/percentile_moving_7_days', 39.7, { percentile_above: 2.5 }, TEN_TWENTY_THIRTY)).toMatchObject({ passed: false });
  });

  it('change_percentile_moving_7_days: on the steps', () => {
    // z(0.95) = 1.645: 90 + 1.645·10
    const outcome = judge('percentile/change_percentile_moving_7_days', 100, { percentile_above: 5 }, GROWING) as { upperBound: number };
    expect(outcome.upperBound).toBeCloseTo(106.45, 2);
  });

  it('a percentile outside (0, 100) is an error', () => {
    expect(() => judge('percentile/percentile_moving_7_days', 1, { percentile_above: 100 }, TEN_TWENTY_THIRTY)).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
  });
});

describe('edge cases of the moving-window rules', () => {
  it('no threshold set: no verdict (as DQOps)', () => {
    expect(judge('averages/percent_moving_average', 20, {}, lastDays([10, 20, 30, 20, 20]))).toEqual({ verdict: 'no_verdict', reason: 'no threshold is set' });
    expect(judge('stdev/multiply_moving_stdev_7_days', 20, {}, TEN_TWENTY_THIRTY)).toMatchObject({ verdict: 'no_verdict' });
    expect(judge('percentile/percentile_moving_7_days', 20, {}, TEN_TWENTY_THIRTY)).toMatchObject({ verdict: 'no_verdict' });
  });

  it('no readout: no verdict', () => {
    expect(judge('stdev/multiply_moving_stdev_within_7_days', null, { multiply_stdev: 1 }, TEN_TWENTY_THIRTY)).toEqual({ verdict: 'no_actual_value' });
  });

  it('a constant window: deviation 0, both bounds at the mean', () => {
    const constant = lastDays([5, 5, 5]);
    expect(judge('stdev/multiply_moving_stdev_within_7_days', 5, { multiply_stdev: 3 }, constant)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 5, lowerBound: 5, upperBound: 5,
    });
    expect(judge('percentile/percentile_moving_7_days', 5.1, { percentile_above: 5, percentile_below: 5 }, constant)).toEqual({
      verdict: 'failed', passed: false, expectedValue: 5, lowerBound: 5, upperBound: 5,
    });
  });

  it('an outlier in the window widens the stdev band', () => {
    // 10, 20, 30, 100: mean 40, s = √((30² + 20² + 10² + 60²)/3) = √(5000/3) = 40.8248; 1·s wide → 40 ∓ 20.4124
    const outcome = judge('stdev/multiply_moving_stdev_within_7_days', 60, { multiply_stdev: 1 }, lastDays([10, 20, 30, 100])) as {
      passed: boolean; lowerBound: number; upperBound: number;
    };
    expect(outcome.passed).toBe(true);
    expect(outcome.upperBound).toBeCloseTo(40 + Math.sqrt(5000 / 3) / 2, 9);
    expect(outcome.lowerBound).toBeCloseTo(19.5876, 4);
  });

  it('a negative window mean keeps its averages band the right way round (DQOps inverts it: deliberate deviation)', () => {
    // mean −20, 10 % of 20 = 2 → −22 … −18 (DQOps: lower −18, upper −22, nothing passes)
    expect(judge('averages/within_percent_moving_average_7_days', -19, { max_percent_within: 10 }, lastDays([-10, -20, -30]))).toEqual({
      verdict: 'passed', passed: true, expectedValue: -20, lowerBound: -22, upperBound: -18,
    });
  });
});
