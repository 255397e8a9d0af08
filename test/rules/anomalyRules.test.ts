/**
 * The anomaly rules fit a Student's t distribution with ν = 5 (the catalog's degrees_of_freedom) to the window
 * by maximum likelihood. Expected bounds here are computed independently:
 * - a sample made of c − d and c + d in equal numbers has the MLE location c and scale d, for any ν: by symmetry
 *   μ = c, and with every |x − μ| = d the scale equation σ² = mean(w·(x − μ)²), w = (ν + 1)/(ν + d²/σ²), has the
 *   single root σ = d;
 * - quantiles come from a published t table (df 5: 4.032 at one-tail 0.005, 6.869 at 0.0005);
 * - for other samples the fit is checked against the MLE equations themselves.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRule, fitStudentT, type Readout, type RuleInput, type RuleOutcome } from '../../src/rules/index.js';

const TODAY = '2024-06-30';
const DAY = 86_400_000;
const TODAY_MS = Date.UTC(2024, 5, 30);
const dayBefore = (days: number) => new Date(TODAY_MS - days * DAY).toISOString().slice(0, 10);

/** Readouts on the `values.length` days before today, the last value yesterday. */
function lastDays(values: number[]): Readout[] {
  return values.map((value, index) => ({ timePeriod: dayBefore(values.length - index), value }));
}
const alternating = (count: number, low: number, high: number) => Array.from({ length: count }, (_, i) => (i % 2 ? high : low));

const judge = (rule: string, actualValue: number, parameters: RuleInput['parameters'], history: Readout[], extra: Partial<RuleInput> = {}): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters, history, timePeriod: TODAY, ...extra });
const bounds = (outcome: RuleOutcome) => outcome as { passed: boolean; expectedValue: number; lowerBound?: number; upperBound?: number };

// published t table, ν = 5
const T5_TAIL_0005 = 6.869; // one-tail 0.0005: anomaly_percent 0.1 split into two tails of 0.05 %
const T5_TAIL_005 = 4.032; // one-tail 0.005: anomaly_percent 1, or the one-sided 0.5 of timeliness

describe('anomaly_stationary_percentile_moving_average: the values themselves', () => {
  const rule = 'percentile/anomaly_stationary_percentile_moving_average';
  const history = lastDays(alternating(30, 90, 110)); // location 100, scale 10

  it('bounds at the anomaly_percent/2 tails of the fitted t', () => {
    const outcome = bounds(judge(rule, 150, { anomaly_percent: 0.1 }, history));
    expect(outcome.expectedValue).toBeCloseTo(100, 9);
    expect(outcome.lowerBound).toBeCloseTo(100 - T5_TAIL_0005 * 10, 2);
    expect(outcome.upperBound).toBeCloseTo(100 + T5_TAIL_0005 * 10, 2);
    expect(outcome.passed).toBe(true);
    expect(judge(rule, 169, { anomaly_percent: 0.1 }, history)).toMatchObject({ verdict: 'failed', passed: false });
    expect(judge(rule, 31, { anomaly_percent: 0.1 }, history)).toMatchObject({ passed: false });
  });

  it('a larger anomaly_percent gives narrower bounds', () => {
    const outcome = bounds(judge(rule, 100, { anomaly_percent: 1 }, history));
    expect(outcome.lowerBound).toBeCloseTo(100 - T5_TAIL_005 * 10, 2);
    expect(outcome.upperBound).toBeCloseTo(100 + T5_TAIL_005 * 10, 2);
    expect(judge(rule, 141, { anomaly_percent: 1 }, history)).toMatchObject({ passed: false });
  });

  it('default anomaly_percent 0.05: tails of 0.025 % (t = 7.9757 for ν = 5)', () => {
    const outcome = bounds(judge(rule, 100, {}, history));
    expect(outcome.upperBound).toBeCloseTo(100 + 7.97565 * 10, 3);
  });

  it('the _30_days variant needs only 10 readouts of the last 30 days', () => {
    const short = lastDays(alternating(10, 90, 110));
    expect(judge('percentile/anomaly_stationary_percentile_moving_average', 100, {}, short)).toMatchObject({ verdict: 'not_enough_history' });
    expect(bounds(judge('percentile/anomaly_stationary_percentile_moving_average_30_days', 100, { anomaly_percent: 0.1 }, short)).upperBound).toBeCloseTo(
      168.69,
      1,
    );
  });

  it('an outlier in the history barely moves the bounds (robust fit)', () => {
    const values = alternating(30, 90, 110);
    values[10] = 1000;
    const outcome = bounds(judge(rule, 100, { anomaly_percent: 0.1 }, lastDays(values)));
    // the mean and standard deviation would give an upper bound near 100 + 30 + 6.869·0.775·163 ≈ 996
    expect(outcome.upperBound!).toBeLessThan(200);
  });

  it('a constant history: any other value is an anomaly', () => {
    const constant = lastDays(Array(30).fill(42));
    expect(judge(rule, 42, {}, constant)).toEqual({ verdict: 'passed', passed: true, expectedValue: 42, lowerBound: 42, upperBound: 42 });
    expect(judge(rule, 43, {}, constant)).toMatchObject({ passed: false });
  });

  it('mostly one repeated value: the moment fit (no maximum-likelihood fit exists)', () => {
    // 28 × 100, 95, 105: mean 100, s² = 50/29, scale = s·√(3/5)
    const values = [...Array(14).fill(100), 95, ...Array(14).fill(100), 105];
    const scale = Math.sqrt(50 / 29) * Math.sqrt(3 / 5);
    const outcome = bounds(judge(rule, 100, { anomaly_percent: 0.1 }, lastDays(values)));
    expect(outcome.upperBound).toBeCloseTo(100 + T5_TAIL_0005 * scale, 2);
    expect(fitStudentT(values, 5).method).toBe('moments');
  });
});

describe('not enough history: no verdict, whatever the value', () => {
  const rule = 'percentile/anomaly_stationary_percentile_moving_average';

  it('29 days with readouts of the 30 needed', () => {
    expect(judge(rule, 1e9, {}, lastDays(alternating(29, 90, 110)))).toEqual({
      verdict: 'not_enough_history', periodsWithReadouts: 29, requiredPeriods: 30,
    });
  });

  it('readouts older than the 90-day window do not count', () => {
    const old = alternating(30, 90, 110).map((value, i) => ({ timePeriod: dayBefore(91 + i), value }));
    expect(judge(rule, 100, {}, old)).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 0 });
  });

  it('several readouts of one day count once (the latest stands for the day)', () => {
    const history = lastDays(alternating(29, 90, 110));
    const sameDay = [{ timePeriod: `${dayBefore(40)}T01:00:00Z`, value: 1 }, { timePeriod: `${dayBefore(40)}T23:00:00Z`, value: 2 }];
    expect(judge(rule, 100, {}, [...history, ...sameDay])).toMatchObject({ verdict: 'passed' });
    expect(judge(rule, 100, {}, [...history.slice(1), ...sameDay])).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 29 });
  });

  it("today's earlier readouts are not history", () => {
    const today = Array.from({ length: 5 }, (_, i) => ({ timePeriod: `${TODAY}T0${i}:00:00Z`, value: 100 }));
    expect(judge(rule, 100, {}, [...lastDays(alternating(29, 90, 110)), ...today], { timePeriod: `${TODAY}T12:00:00Z` })).toMatchObject({
      verdict: 'not_enough_history',
    });
  });
});

describe('anomaly_differencing_percentile_moving_average: the steps between readouts', () => {
  const rule = 'percentile/anomaly_differencing_percentile_moving_average';
  // 31 readouts growing by 40 and 60 alternately: steps have location 50, scale 10; the last readout is 2500
  const values = [1000];
  for (let i = 0; i < 30; i += 1) values.push(values[values.length - 1] + (i % 2 ? 60 : 40));
  const history = lastDays(values);

  it('predicts the last readout plus the usual step', () => {
    expect(values.at(-1)).toBe(2500);
    const outcome = bounds(judge(rule, 2550, { anomaly_percent: 0.1 }, history));
    expect(outcome.expectedValue).toBeCloseTo(2550, 8);
    expect(outcome.lowerBound).toBeCloseTo(2550 - T5_TAIL_0005 * 10, 2);
    expect(outcome.upperBound).toBeCloseTo(2550 + T5_TAIL_0005 * 10, 2);
    expect(outcome.passed).toBe(true);
    // the table stopped growing: at anomaly_percent 1 (bounds 2550 ± 40.32) an anomaly, though 2500 was a normal value before
    expect(judge(rule, 2500, { anomaly_percent: 1 }, history)).toMatchObject({ passed: false });
    expect(judge(rule, 2510, { anomaly_percent: 1 }, history)).toMatchObject({ passed: true });
    expect(judge(rule, 2700, { anomaly_percent: 0.1 }, history)).toMatchObject({ passed: false });
  });

  it('the _30_days variant and the minimum of readouts', () => {
    expect(judge(rule, 2550, {}, history.slice(2))).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 29 });
    const outcome = bounds(judge('percentile/anomaly_differencing_percentile_moving_average_30_days', 2550, { anomaly_percent: 1 }, history.slice(-11)));
    expect(outcome.upperBound).toBeCloseTo(2550 + T5_TAIL_005 * 10, 2);
  });
});

describe('the anomaly variants', () => {
  it('anomaly_stationary_count_values: never below 0', () => {
    const outcome = bounds(judge('percentile/anomaly_stationary_count_values', 0, { anomaly_percent: 0.1 }, lastDays(alternating(30, 0, 2))));
    expect(outcome.lowerBound).toBe(0);
    expect(outcome.upperBound).toBeCloseTo(1 + T5_TAIL_0005, 2);
    expect(outcome.passed).toBe(true);
  });

  it('anomaly_stationary_percent_values: within [0, 100]', () => {
    const outcome = bounds(judge('percentile/anomaly_stationary_percent_values', 100, { anomaly_percent: 0.1 }, lastDays(alternating(30, 96, 100))));
    expect(outcome.upperBound).toBe(100);
    expect(outcome.lowerBound).toBeCloseTo(98 - T5_TAIL_0005 * 2, 2);
  });

  it('anomaly_partition_row_count: stationary, never below 0', () => {
    const outcome = bounds(judge('percentile/anomaly_partition_row_count', 5, { anomaly_percent: 0.1 }, lastDays(alternating(30, 10, 30))));
    expect(outcome.lowerBound).toBe(0);
    expect(outcome.upperBound).toBeCloseTo(20 + T5_TAIL_0005 * 10, 2);
  });

  it('anomaly_timeliness_delay: one-sided, the whole anomaly_percent above (default 0.5 %)', () => {
    const history = lastDays(alternating(30, 1, 3)); // delays of 1 and 3 days: location 2, scale 1
    const outcome = bounds(judge('percentile/anomaly_timeliness_delay', 0, {}, history));
    expect(outcome.lowerBound).toBeUndefined();
    expect(outcome.upperBound).toBeCloseTo(2 + T5_TAIL_005, 2);
    expect(outcome.passed).toBe(true);
    expect(judge('percentile/anomaly_timeliness_delay', 6.1, {}, history)).toMatchObject({ passed: false });
  });

  it('anomaly_percent must be a percentage', () => {
    const history = lastDays(alternating(30, 1, 3));
    expect(() => judge('percentile/anomaly_stationary_percentile_moving_average', 1, { anomaly_percent: 0 }, history)).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
    expect(() => judge('percentile/anomaly_stationary_percentile_moving_average', 1, { anomaly_percent: 100 }, history)).toThrow(
      expect.objectContaining({ code: 'RULE_INPUT_INVALID' }),
    );
  });
});

describe('fitStudentT: the maximum-likelihood equations hold at the fit', () => {
  it('on an asymmetric sample with an outlier', () => {
    const sample = [100, 102, 98, 101, 99, 103, 97, 100, 150, 101, 99, 100];
    const nu = 5;
    const { location, scale, method } = fitStudentT(sample, nu);
    expect(method).toBe('maximum_likelihood');
    const weights = sample.map((x) => (nu + 1) / (nu + ((x - location) / scale) ** 2));
    // ∂/∂μ: Σ w (x − μ) = 0; ∂/∂σ: σ² = Σ w (x − μ)² / n
    expect(weights.reduce((sum, w, i) => sum + w * (sample[i] - location), 0)).toBeCloseTo(0, 9);
    expect(weights.reduce((sum, w, i) => sum + w * (sample[i] - location) ** 2, 0) / sample.length).toBeCloseTo(scale ** 2, 9);
    // scipy.stats.t.fit(sample, fix_df=5) → loc 100.0556, scale 2.16735
    expect(location).toBeCloseTo(100.0556, 3);
    expect(scale).toBeCloseTo(2.16735, 4);
  });

  it('c ± d in equal numbers: location c, scale d', () => {
    expect(fitStudentT([7, 13, 7, 13], 5)).toMatchObject({ location: 10, scale: expect.closeTo(3, 10) });
    expect(fitStudentT([7, 13, 7, 13], 30)).toMatchObject({ location: 10, scale: expect.closeTo(3, 10) });
  });
});
