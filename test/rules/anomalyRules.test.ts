/**
 * The anomaly rules compute DQOps's open-source method: the window's values (or steps) are split at their
 * median; the upper bound is the median of the upper half plus t₅(1 − tail) times that half's sample standard
 * deviation (n − 1), the lower bound likewise from the lower half with t₅(tail). Positive series are first
 * turned into multiples of the median (r/m − 1 at or above it, 1 − m/r below it) and the bounds turned back.
 *
 * Every expected value below is worked out by hand from that description, with t₅(0.995) = 4.03214 from a
 * published t table (anomaly_percent 1 → 0.5 % in each tail; the one-sided timeliness rule puts its default
 * 0.5 % in the upper tail). The histories are chosen so the halves are easy: 10 readouts of each of three values.
 */
import { describe, expect, it } from 'vitest';
import { evaluateRule, type Readout, type RuleInput, type RuleOutcome } from '../../src/rules/index.js';

const TODAY = '2024-06-30';
const DAY = 86_400_000;
const TODAY_MS = Date.UTC(2024, 5, 30);
const dayBefore = (days: number) => new Date(TODAY_MS - days * DAY).toISOString().slice(0, 10);

/** Readouts on the `values.length` days before today, the last value yesterday. */
function lastDays(values: number[]): Readout[] {
  return values.map((value, index) => ({ timePeriod: dayBefore(values.length - index), value }));
}
const alternating = (count: number, low: number, high: number) => Array.from({ length: count }, (_, i) => (i % 2 ? high : low));
/** 10 readouts of each value, interleaved (a, b, c, a, b, c, …). */
const tens = (a: number, b: number, c: number) => Array.from({ length: 30 }, (_, i) => [a, b, c][i % 3]);

const judge = (rule: string, actualValue: number | null, parameters: RuleInput['parameters'], history: Readout[], extra: Partial<RuleInput> = {}): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters, history, timePeriod: TODAY, ...extra });
const bounds = (outcome: RuleOutcome) => outcome as { verdict: string; passed: boolean; expectedValue: number; lowerBound?: number; upperBound?: number };

const T = 4.03214; // t₅(0.995)
/** Sample standard deviation of 10 readouts of x and 10 of y: |x − y|/2 · √(20/19). */
const halfSpread = (x: number, y: number) => (Math.abs(x - y) / 2) * Math.sqrt(20 / 19);

describe('anomaly_stationary_percentile_moving_average: the readouts themselves', () => {
  const rule = 'percentile/anomaly_stationary_percentile_moving_average';

  it('a positive series: bounds in multiples of the median, as far above as below', () => {
    // 50, 100, 200 → median 100, multiples −1, 0, +1. Upper half {0 ×10, 1 ×10}: median 0.5, deviation
    // halfSpread(0, 1); upper multiple 0.5 + T·0.51299 = 2.56844 → upper (2.56844 + 1)·100 = 356.844;
    // lower multiple −2.56844 → lower 100 · (−1 / (−2.56844 − 1)) = 28.0234. Expected: the median, 100.
    const history = lastDays(tens(50, 100, 200));
    const multiple = 0.5 + T * halfSpread(0, 1);
    const outcome = bounds(judge(rule, 300, { anomaly_percent: 1 }, history));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 100 });
    expect(outcome.upperBound).toBeCloseTo((multiple + 1) * 100, 3);
    expect(outcome.upperBound).toBeCloseTo(356.844, 2);
    expect(outcome.lowerBound).toBeCloseTo(100 / (multiple + 1), 3);
    expect(outcome.lowerBound).toBeCloseTo(28.0234, 3);
    expect(judge(rule, 360, { anomaly_percent: 1 }, history)).toMatchObject({ verdict: 'failed' });
    expect(judge(rule, 27, { anomaly_percent: 1 }, history)).toMatchObject({ verdict: 'failed' });
  });

  it('a series with values ≤ 0: bounds from the raw halves', () => {
    // −10, 0, 10 → median 0. Upper half {0 ×10, 10 ×10}: median 5, deviation halfSpread(0, 10) = 5.12989;
    // upper 5 + T·5.12989 = 25.6844; lower half symmetric: −25.6844. Expected 0.
    const history = lastDays(tens(-10, 0, 10));
    const outcome = bounds(judge(rule, 25, { anomaly_percent: 1 }, history));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 0 });
    expect(outcome.upperBound).toBeCloseTo(5 + T * halfSpread(0, 10), 3);
    expect(outcome.upperBound).toBeCloseTo(25.6844, 3);
    expect(outcome.lowerBound).toBeCloseTo(-25.6844, 3);
    expect(judge(rule, -26, { anomaly_percent: 1 }, history)).toMatchObject({ verdict: 'failed' });
  });

  it('an old outlier widens only the side it is on', () => {
    // −10 ×10, 0 ×10, 10 ×9 and one 1000 → median 0. Upper half {0 ×10, 10 ×9, 1000}: median 5, mean 54.5,
    // squares 10·54.5² + 9·44.5² + 945.5² = 941495, deviation √(941495/19) = 222.604 → upper 5 + T·222.604 = 902.56.
    // The lower half is untouched: −25.6844 as above.
    const values = tens(-10, 0, 10);
    values[29] = 1000; // the last "10"
    const outcome = bounds(judge(rule, 500, { anomaly_percent: 1 }, lastDays(values)));
    expect(outcome.verdict).toBe('passed');
    expect(outcome.upperBound).toBeCloseTo(5 + T * Math.sqrt(941495 / 19), 1);
    expect(outcome.lowerBound).toBeCloseTo(-25.6844, 3);
  });

  it('the default anomaly_percent 0.05: tails of 0.025 %, t₅(0.99975) = 7.97565', () => {
    const outcome = bounds(judge(rule, 0, {}, lastDays(tens(-10, 0, 10))));
    expect(outcome.upperBound).toBeCloseTo(5 + 7.97565 * halfSpread(0, 10), 3);
  });

  it('a constant history: bounds at its value; the same value gets no verdict (as DQOps), any other fails', () => {
    const history = lastDays(Array(30).fill(100));
    expect(judge(rule, 100, {}, history)).toEqual({
      verdict: 'no_verdict', reason: expect.any(String), expectedValue: 100, lowerBound: 100, upperBound: 100,
    });
    expect(judge(rule, 100.5, {}, history)).toEqual({ verdict: 'failed', passed: false, expectedValue: 100, lowerBound: 100, upperBound: 100 });
  });

  it('no readout: no verdict', () => {
    expect(judge(rule, null, {}, lastDays(tens(50, 100, 200)))).toEqual({ verdict: 'no_actual_value' });
  });

  it('the _30_days variant needs 10 readouts in the last 30 days', () => {
    // 50, 100, 200 ×4 (12 readouts): the same halves as above, so the same bounds
    const twelve = lastDays(Array.from({ length: 12 }, (_, i) => [50, 100, 200][i % 3]));
    const outcome = bounds(judge('percentile/anomaly_stationary_percentile_moving_average_30_days', 100, { anomaly_percent: 1 }, twelve));
    expect(outcome.verdict).toBe('passed');
    // halves of 4 + 4: deviation 0.5·√(8/7)
    expect(outcome.upperBound).toBeCloseTo((0.5 + T * 0.5 * Math.sqrt(8 / 7) + 1) * 100, 3);
    expect(judge('percentile/anomaly_stationary_percentile_moving_average', 100, {}, twelve)).toMatchObject({ verdict: 'not_enough_history' });
    expect(judge('percentile/anomaly_stationary_percentile_moving_average_30_days', 100, {}, twelve.slice(3))).toMatchObject({
      verdict: 'not_enough_history', periodsWithReadouts: 9, requiredPeriods: 10,
    });
  });

  it('anomaly_percent must be a percentage', () => {
    const history = lastDays(tens(-10, 0, 10));
    for (const anomaly_percent of [0, 100]) {
      expect(() => judge(rule, 1, { anomaly_percent }, history)).toThrow(expect.objectContaining({ code: 'RULE_INPUT_INVALID' }));
    }
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
  /** 31 readouts from 1000 with the given steps repeated: 30 steps. */
  const growing = (steps: number[]) => {
    const values = [1000];
    for (let i = 0; i < 30; i += 1) values.push(values[values.length - 1] + steps[i % steps.length]);
    return values;
  };

  it('positive steps: the last readout plus the usual step, in multiples of the median step', () => {
    // steps 10, 30 alternately (15 each) → last readout 1000 + 15·10 + 15·30 = 1600, median step 20, multiples
    // −1 (for 10) and +0.5 (for 30). Each half is one repeated multiple: upper 0.5 → step 30, lower −1 → step
    // 20 · (−1 / (−1 − 1)) = 10. Bounds 1610 … 1630, expected 1620.
    const history = lastDays(growing([10, 30]));
    expect(judge(rule, 1630, {}, history)).toEqual({ verdict: 'passed', passed: true, expectedValue: 1620, lowerBound: 1610, upperBound: 1630 });
    expect(judge(rule, 1631, {}, history)).toMatchObject({ verdict: 'failed' });
    expect(judge(rule, 1609, {}, history)).toMatchObject({ verdict: 'failed' });
  });

  it('steps of both signs: the raw halves of the steps', () => {
    // steps −10, 30 → last 1000 − 150 + 450 = 1300, median step 10; halves {30 ×15} and {−10 ×15}
    const history = lastDays(growing([-10, 30]));
    expect(judge(rule, 1300, {}, history)).toEqual({ verdict: 'passed', passed: true, expectedValue: 1310, lowerBound: 1290, upperBound: 1330 });
  });

  it('spread steps: t tails of the halves', () => {
    // steps −10, 0, 10 (10 each) → last 1000, median 0: bounds 1000 ∓ 25.6844 as for the raw readouts above
    const history = lastDays(growing([-10, 0, 10]));
    const outcome = bounds(judge(rule, 1020, { anomaly_percent: 1 }, history));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 1000 });
    expect(outcome.upperBound).toBeCloseTo(1025.6844, 3);
    expect(outcome.lowerBound).toBeCloseTo(974.3156, 3);
  });

  it('one repeated step: the next step must be the same; equal gets no verdict, as DQOps', () => {
    const history = lastDays(growing([10])); // last 1300
    expect(judge(rule, 1310, {}, history)).toMatchObject({ verdict: 'no_verdict', expectedValue: 1310, lowerBound: 1310, upperBound: 1310 });
    expect(judge(rule, 1311, {}, history)).toMatchObject({ verdict: 'failed', expectedValue: 1310 });
  });

  it('the _30_days variant and the minimum of readouts', () => {
    const history = lastDays(growing([10, 30]));
    expect(judge('percentile/anomaly_differencing_percentile_moving_average_30_days', 1620, {}, history)).toMatchObject({ verdict: 'passed' });
    expect(judge(rule, 1620, {}, history.slice(2))).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 29 });
  });
});

describe('the anomaly variants', () => {
  it('anomaly_stationary_count_values: 30 readouts above 0 needed; zeros are left out of the multiples', () => {
    const rule = 'percentile/anomaly_stationary_count_values';
    // the 30 positive readouts of the first test plus 5 empty days: the same bounds, 28.0234 … 356.844
    // (DQOps's rule divides by zero on the zeros here: a deliberate deviation)
    const withZeros = lastDays([...tens(50, 100, 200), 0, 0, 0, 0, 0]);
    const outcome = bounds(judge(rule, 300, { anomaly_percent: 1 }, withZeros));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 100 });
    expect(outcome.upperBound).toBeCloseTo(356.844, 2);
    expect(outcome.lowerBound).toBeCloseTo(28.0234, 3);
    // 29 positive readouts and zeros: not enough
    expect(judge(rule, 300, {}, lastDays([...tens(50, 100, 200).slice(1), 0, 0, 0]))).toEqual({
      verdict: 'not_enough_history', periodsWithReadouts: 29, requiredPeriods: 30,
    });
    // a constant count with an empty day: bounds 0 … 100; 0 and 100 get no verdict, 50 fails
    const constant = lastDays([...Array(30).fill(100), 0]);
    expect(judge(rule, 0, {}, constant)).toMatchObject({ verdict: 'no_verdict', expectedValue: 100, lowerBound: 0, upperBound: 100 });
    expect(judge(rule, 50, {}, constant)).toMatchObject({ verdict: 'failed', lowerBound: 0, upperBound: 100 });
  });

  it('anomaly_partition_row_count: multiples of the median of every readout', () => {
    const outcome = bounds(judge('percentile/anomaly_partition_row_count', 20, { anomaly_percent: 1 }, lastDays(tens(50, 100, 200))));
    expect(outcome).toMatchObject({ verdict: 'failed', expectedValue: 100 });
    expect(outcome.lowerBound).toBeCloseTo(28.0234, 3);
  });

  it('anomaly_stationary_percent_values: bounds that stay inside [0, 100]', () => {
    const rule = 'percentile/anomaly_stationary_percent_values';
    // 20, 50, 80 → median 50. Above: 1/(1 − r/100) = 1.25, 2, 5 around 2; upper half {2, 5}: median 3.5,
    // deviation halfSpread(2, 5) = 1.53897 → 3.5 + T·1.53897 = 9.70534 → upper 100 − 100/9.70534 = 89.6964.
    // Below: −50/r = −2.5, −1, −0.625 around −1; lower half {−2.5, −1}: median −1.75, deviation 0.769484 →
    // −1.75 − T·0.769484 = −4.85267 → lower 50 · (1/4.85267) = 10.3036. Expected (50 + 50)/2 = 50.
    const history = lastDays(tens(20, 50, 80));
    const outcome = bounds(judge(rule, 89, { anomaly_percent: 1 }, history));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 50 });
    expect(outcome.upperBound).toBeCloseTo(100 - 100 / (3.5 + T * halfSpread(2, 5)), 3);
    expect(outcome.upperBound).toBeCloseTo(89.6964, 3);
    expect(outcome.lowerBound).toBeCloseTo(50 / (1.75 + T * halfSpread(1, 2.5)), 3);
    expect(outcome.lowerBound).toBeCloseTo(10.3036, 3);
    expect(judge(rule, 10, { anomaly_percent: 1 }, history)).toMatchObject({ verdict: 'failed' });
    // a window that reached 100: the upper bound is 100 and is not judged against
    const reached = lastDays([...tens(20, 50, 80), 100]);
    expect(judge(rule, 100, { anomaly_percent: 1 }, reached)).toMatchObject({ verdict: 'passed', upperBound: 100 });
    // 0 and 100 are not counted among the 30 needed
    expect(judge(rule, 50, {}, lastDays([...tens(20, 50, 80).slice(1), 0, 100]))).toMatchObject({ verdict: 'not_enough_history', periodsWithReadouts: 29 });
  });

  it('anomaly_timeliness_delay: one-sided, the whole anomaly_percent (default 0.5) above, lower bound 0', () => {
    const rule = 'percentile/anomaly_timeliness_delay';
    // delays 1, 2, 4 days → median 2; upper half {2, 4}: median 3, deviation halfSpread(2, 4) = 1.02598 →
    // upper 3 + T·1.02598 = 7.13685
    const history = lastDays(tens(1, 2, 4));
    const outcome = bounds(judge(rule, 7, {}, history));
    expect(outcome).toMatchObject({ verdict: 'passed', expectedValue: 2, lowerBound: 0 });
    expect(outcome.upperBound).toBeCloseTo(3 + T * halfSpread(2, 4), 3);
    expect(outcome.upperBound).toBeCloseTo(7.13685, 3);
    expect(judge(rule, 7.2, {}, history)).toMatchObject({ verdict: 'failed' });
    // a shorter delay than usual is no anomaly
    expect(judge(rule, 0, {}, history)).toMatchObject({ verdict: 'passed' });
    expect(judge(rule, null, {}, history)).toEqual({ verdict: 'no_actual_value' });
  });
});
