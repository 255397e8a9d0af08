/**
 * percentile/anomaly_*: is the readout an outlier among the earlier readouts of the time window? The method is
 * DQOps's open-source one (anomalyTails.ts: median-split Student's t tails, degrees_of_freedom from the rule's
 * catalog config, 5), with the tails at anomaly_percent / 2 percent each side (the whole anomaly_percent above
 * for anomaly_timeliness_delay, where a shorter delay is no anomaly). The expected value is the window's median.
 *
 * - stationary (…percentile_moving_average, _30_days): the readouts themselves. When all are above 0 they are
 *   first turned into multiples of the median (r/m − 1 above it, 1 − m/r below it), so a count that doubles
 *   and one that halves are equally far away, and the bounds are turned back.
 * - differencing: the same on the steps between consecutive readouts; the prediction is the last readout plus
 *   the step.
 * - anomaly_stationary_count_values, anomaly_partition_row_count: always the multiples of the median;
 *   count_values looks only at readouts above 0 and needs 30 of them.
 * - anomaly_stationary_percent_values: readouts strictly between 0 and 100 (30 needed) turned into 1/(1 − r/100)
 *   above the median and −m/r below it, so the bounds stay inside [0, 100]; a window that has reached 100 (or 0)
 *   has that as its bound.
 * - anomaly_timeliness_delay: readouts above 0 (30 needed), upper bound only, lower bound 0.
 *
 * A window of one repeated value gives bounds equal to it: a readout equal to it gets no verdict (DQOps answers
 * passed: None), any other fails. `use_ai` (a paid DQOps feature) is accepted and ignored.
 * Where DQOps's rule divides by zero (a 0 readout among the counts of count_values or partition_row_count),
 * dqctl leaves the zeros out of the multiples instead (docs/rules.md, deliberate deviations).
 */
import { DqError } from '../model/index.js';
import { lowerTailBound, median, sampleStandardDeviation, upperTailBound } from './anomalyTails.js';
import type { RuleContext, RuleImplementation, RuleTable } from './ruleImplementation.js';
import { noVerdict, verdict, type RuleOutcome } from './ruleTypes.js';

const DEFAULT_DEGREES_OF_FREEDOM = 5;
/** Readouts that the filtered variants (count, percent, timeliness) need after filtering. */
const FILTERED_MINIMUM = 30;

interface Fit {
  tail: number;
  degreesOfFreedom: number;
}

function fitOf(c: RuleContext, oneSided = false): Fit {
  const anomalyPercent = c.params.requiredNumber('anomaly_percent');
  if (!(anomalyPercent > 0 && anomalyPercent < 100)) {
    throw new DqError('RULE_INPUT_INVALID', `anomaly_percent of rule ${c.rule.name} must be above 0 and below 100, got ${anomalyPercent}`, {
      rule: c.rule.name,
      parameter: 'anomaly_percent',
    });
  }
  const configured = c.rule.config.degrees_of_freedom;
  const degreesOfFreedom = typeof configured === 'number' && configured > 0 ? configured : DEFAULT_DEGREES_OF_FREEDOM;
  return { tail: oneSided ? anomalyPercent / 100 : anomalyPercent / 100 / 2, degreesOfFreedom };
}

interface Band {
  expected: number;
  lower?: number;
  upper?: number;
}

/** True when `actual` is inside the band; a NaN bound (a half with one value) fails every readout, as in DQOps. */
function inside(actual: number, band: Band, checkLower = true, checkUpper = true): boolean {
  const belowUpper = !checkUpper || band.upper === undefined || actual <= band.upper;
  const aboveLower = !checkLower || band.lower === undefined || band.lower <= actual;
  return belowUpper && aboveLower;
}

function judge(actual: number, band: Band, checkLower = true, checkUpper = true): RuleOutcome {
  return verdict(inside(actual, band, checkLower, checkUpper), { expectedValue: band.expected, lowerBound: band.lower, upperBound: band.upper });
}

/** A constant window: bounds at its value; equal → no verdict, else failed. */
function constantWindow(matches: boolean, band: Band): RuleOutcome {
  const values = { expectedValue: band.expected, lowerBound: band.lower, upperBound: band.upper };
  return matches ? noVerdict('the window is one repeated value and the readout equals it', values) : verdict(false, values);
}

/** Bounds of values around their median `m`, in multiples of it (all values > 0, m > 0). */
function multiplesBand(values: readonly number[], m: number, fit: Fit): Band {
  const multiples = values.map((r) => (r >= m ? r / m - 1.0 : -1.0 / (r / m) + 1.0));
  const upperMultiple = upperTailBound(multiples, 0, fit.tail, fit.degreesOfFreedom);
  const lowerMultiple = lowerTailBound(multiples, 0, fit.tail, fit.degreesOfFreedom);
  return { expected: m, upper: (upperMultiple + 1.0) * m, lower: m * (-1.0 / (lowerMultiple - 1.0)) };
}

/** Bounds of the raw values around their median. */
function rawBand(values: readonly number[], m: number, fit: Fit): Band {
  return {
    expected: m,
    upper: upperTailBound(values, m, fit.tail, fit.degreesOfFreedom),
    lower: lowerTailBound(values, m, fit.tail, fit.degreesOfFreedom),
  };
}

const values = (c: RuleContext) => c.history.points.map((point) => point.value);

const stationary: RuleImplementation = {
  evaluate: (c) => {
    const readouts = values(c);
    if (readouts.length === 0) return noVerdict('no earlier readouts');
    const m = median(readouts);
    if (sampleStandardDeviation(readouts) === 0) return constantWindow(c.actualValue === m, { expected: m, lower: m, upper: m });
    const fit = fitOf(c);
    return judge(c.actualValue, readouts.every((r) => r > 0) ? multiplesBand(readouts, m, fit) : rawBand(readouts, m, fit));
  },
};

const differencing: RuleImplementation = {
  evaluate: (c) => {
    const readouts = values(c);
    if (readouts.length === 0) return noVerdict('no earlier readouts');
    const steps = readouts.slice(1).map((value, index) => value - readouts[index]);
    const last = readouts[readouts.length - 1];
    const m = median(steps);
    const step = c.actualValue - last;
    if (sampleStandardDeviation(steps) === 0) {
      return constantWindow(step === m, { expected: last + m, lower: last + m, upper: last + m });
    }
    const fit = fitOf(c);
    const band = steps.every((s) => s > 0) ? multiplesBand(steps, m, fit) : rawBand(steps, m, fit);
    const shift = (x: number | undefined) => (x === undefined ? undefined : last + x);
    return verdict(inside(step, band), { expectedValue: last + band.expected, lowerBound: shift(band.lower), upperBound: shift(band.upper) });
  },
};

function tooFew(count: number): RuleOutcome {
  return { verdict: 'not_enough_history', periodsWithReadouts: count, requiredPeriods: FILTERED_MINIMUM };
}

/** Counts: multiples of the median; `positiveOnly` also needs 30 readouts above 0 and fits only those. */
function countRule(positiveOnly: boolean): RuleImplementation {
  return {
    evaluate: (c) => {
      const all = values(c);
      const fitted = positiveOnly ? all.filter((r) => r > 0) : all;
      if (positiveOnly && fitted.length < FILTERED_MINIMUM) return tooFew(fitted.length);
      if (fitted.length === 0) return noVerdict('no earlier readouts');
      const m = median(fitted);
      if (sampleStandardDeviation(fitted) === 0) {
        const hasZero = positiveOnly && all.includes(0);
        return constantWindow(c.actualValue === m || (hasZero && c.actualValue === 0), { expected: m, lower: hasZero ? 0 : m, upper: m });
      }
      const fit = fitOf(c);
      // zeros (empty partitions) have no multiple of the median, DQOps divides by zero on them: left out here
      const nonZero = all.filter((r) => r !== 0);
      return judge(c.actualValue, m !== 0 ? multiplesBand(nonZero, m, fit) : rawBand(fitted, m, fit));
    },
  };
}

const percentValues: RuleImplementation = {
  evaluate: (c) => {
    const all = values(c);
    const inside = all.filter((r) => r > 0 && r < 100);
    if (inside.length < FILTERED_MINIMUM) return tooFew(inside.length);
    const m = median(inside);
    const hasZero = all.includes(0);
    const hasHundred = all.includes(100);
    if (sampleStandardDeviation(inside) === 0) {
      const matches = c.actualValue === m || (c.actualValue === 0 && hasZero) || (c.actualValue === 100 && hasHundred);
      return constantWindow(matches, { expected: m, lower: hasZero ? 0 : m, upper: hasHundred ? 100 : m });
    }
    const fit = fitOf(c);
    let upper = 100;
    let upperForecast = m;
    if (!hasHundred) {
      const odds = all.map((r) => 1.0 / (1.0 - r / 100.0));
      const center = 1.0 / (1.0 - m / 100.0);
      upper = 100.0 - 100.0 * (1.0 / upperTailBound(odds, center, fit.tail, fit.degreesOfFreedom));
      upperForecast = 100.0 - 100.0 * (1.0 / center);
    }
    let lower = 0;
    let lowerForecast = m;
    if (!hasZero) {
      const ratios = all.map((r) => -1.0 / (r / m));
      lower = m * (-1.0 / lowerTailBound(ratios, -1.0, fit.tail, fit.degreesOfFreedom));
      lowerForecast = m * (-1.0 / -1.0);
    }
    // a window that reached 100 (or 0) has that as its bound, and DQOps does not judge against it
    return judge(c.actualValue, { expected: (upperForecast + lowerForecast) / 2, lower, upper }, !hasZero, !hasHundred);
  },
};

const timelinessDelay: RuleImplementation = {
  evaluate: (c) => {
    const all = values(c);
    const positive = all.filter((r) => r > 0);
    if (positive.length < FILTERED_MINIMUM) return tooFew(positive.length);
    const m = median(positive);
    if (sampleStandardDeviation(positive) === 0) return constantWindow(c.actualValue === m, { expected: m, lower: 0, upper: m });
    const fit = fitOf(c, true);
    // lower bound 0: the target delay; only a longer delay than usual is an anomaly
    return judge(c.actualValue, { expected: m, lower: 0, upper: upperTailBound(all, m, fit.tail, fit.degreesOfFreedom) }, false);
  },
};

export const ANOMALY_RULES: RuleTable = {
  'percentile/anomaly_stationary_percentile_moving_average': stationary,
  'percentile/anomaly_stationary_percentile_moving_average_30_days': stationary,
  'percentile/anomaly_differencing_percentile_moving_average': differencing,
  'percentile/anomaly_differencing_percentile_moving_average_30_days': differencing,
  'percentile/anomaly_stationary_count_values': countRule(true),
  'percentile/anomaly_partition_row_count': countRule(false),
  'percentile/anomaly_stationary_percent_values': percentValues,
  'percentile/anomaly_timeliness_delay': timelinessDelay,
};
