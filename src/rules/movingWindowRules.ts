/**
 * averages/*, stdev/* and percentile/(change_)percentile_moving_*: the readout against the mean of the
 * window's readouts (or, for the `change_` variants, the last readout plus the mean step between consecutive
 * readouts), widened by
 * - averages: a percent of that mean (`max_percent_above/below`, `max_percent_within`);
 * - stdev: a multiple of the sample standard deviation (`multiply_stdev_above/below`, `multiply_stdev`);
 * - percentile: the normal quantile of a tail probability in percent (`percentile_above: 5` puts the upper
 *   bound where 5 % of a normal distribution with the window's mean and standard deviation lies above).
 * An unset optional side has no bound.
 */
import { DqError } from '../model/index.js';
import { normalQuantile } from './distributions.js';
import { isSample, mean, sampleOf, standardDeviation, type SampleKind } from './historySamples.js';
import type { RuleContext, RuleImplementation, RuleTable } from './ruleImplementation.js';
import { noVerdict, verdict, withinBounds } from './ruleTypes.js';

/** How far below and above the expected value the bounds are, from the rule's parameters and the sample. */
type Reach = (c: RuleContext, center: number, deviation: number) => { below?: number; above?: number };

function movingRule(kind: SampleKind, reach: Reach): RuleImplementation {
  return {
    evaluate: (c) => {
      const sample = sampleOf(c.history, kind);
      if (!isSample(sample)) return sample;
      const center = mean(sample.values);
      const expected = sample.base + center;
      const { below, above } = reach(c, expected, standardDeviation(sample.values));
      if (below === undefined && above === undefined) return noVerdict('no threshold is set');
      const lower = below === undefined ? undefined : expected - below;
      const upper = above === undefined ? undefined : expected + above;
      return verdict(withinBounds(c.actualValue, lower, upper), { expectedValue: expected, lowerBound: lower, upperBound: upper });
    },
  };
}

/** A percent of the mean's magnitude: a negative mean keeps its band the right way round (DQOps's is inverted). */
const percentOfMean = (percent: number | undefined, center: number) => (percent === undefined ? undefined : (Math.abs(center) * percent) / 100);
const timesDeviation = (multiple: number | undefined, deviation: number) => (multiple === undefined ? undefined : multiple * deviation);

const averageAboveBelow: Reach = (c, center) => ({
  below: percentOfMean(c.params.number('max_percent_below'), center),
  above: percentOfMean(c.params.number('max_percent_above'), center),
});
const averageWithin: Reach = (c, center) => {
  const reach = percentOfMean(c.params.requiredNumber('max_percent_within'), center);
  return { below: reach, above: reach };
};
const stdevAboveBelow: Reach = (c, _center, deviation) => ({
  below: timesDeviation(c.params.number('multiply_stdev_below'), deviation),
  above: timesDeviation(c.params.number('multiply_stdev_above'), deviation),
});
/** multiply_stdev is the width of the whole band: half of it each side of the mean, as in DQOps. */
const stdevWithin: Reach = (c, _center, deviation) => {
  const reach = timesDeviation(c.params.requiredNumber('multiply_stdev'), deviation) ?? 0;
  return { below: reach / 2, above: reach / 2 };
};
const percentileAboveBelow: Reach = (c, _center, deviation) => ({
  below: tailReach(c, 'percentile_below', deviation),
  above: tailReach(c, 'percentile_above', deviation),
});

function tailReach(c: RuleContext, name: string, deviation: number): number | undefined {
  const percent = c.params.number(name);
  if (percent === undefined) return undefined;
  if (!(percent > 0 && percent < 100)) {
    throw new DqError('RULE_INPUT_INVALID', `${name} of rule ${c.rule.name} must be above 0 and below 100, got ${percent}`, {
      rule: c.rule.name,
      parameter: name,
    });
  }
  return normalQuantile(1 - percent / 100) * deviation;
}

function windows(prefix: string, kind: SampleKind, reach: Reach, suffixes: readonly string[]): Record<string, RuleImplementation> {
  const rule = movingRule(kind, reach);
  return Object.fromEntries(suffixes.map((suffix) => [`${prefix}${suffix}`, rule]));
}

const DAYS = ['_7_days', '_30_days', '_60_days'] as const;

export const MOVING_WINDOW_RULES: RuleTable = {
  'averages/percent_moving_average': movingRule('values', averageAboveBelow),
  ...windows('averages/between_percent_moving_average', 'values', averageAboveBelow, DAYS),
  ...windows('averages/within_percent_moving_average', 'values', averageWithin, DAYS),
  ...windows('stdev/multiply_moving_stdev', 'values', stdevAboveBelow, DAYS),
  ...windows('stdev/multiply_moving_stdev_within', 'values', stdevWithin, DAYS),
  ...windows('stdev/change_multiply_moving_stdev', 'differences', stdevAboveBelow, DAYS),
  ...windows('stdev/change_multiply_moving_stdev_within', 'differences', stdevWithin, DAYS),
  ...windows('percentile/percentile_moving', 'values', percentileAboveBelow, DAYS),
  ...windows('percentile/change_percentile_moving', 'differences', percentileAboveBelow, DAYS),
};
