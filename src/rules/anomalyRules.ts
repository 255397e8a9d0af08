/**
 * percentile/anomaly_*: is the readout an outlier among the earlier readouts of the time window?
 *
 * Method: a Student's t distribution with the rule's degrees_of_freedom (catalog config, 5) is fitted by
 * maximum likelihood (fitStudentT) to the readouts of the window (`stationary`: the values themselves) or to
 * the differences between consecutive readouts (`differencing`: the prediction is the last readout plus the
 * fitted step). `anomaly_percent` is the share of readouts, in percent, that the rule should flag when nothing
 * changed: the bounds are the fitted distribution's quantiles at anomaly_percent/2 percent in each tail, so
 * anomaly_percent 0.05 flags values outside the central 99.95 % (tails of 0.025 % each side). The heavy t
 * tails keep the false-alarm rate honest on the spiky series data quality measures are. The expected value is
 * the fitted location (plus the last readout when differencing).
 *
 * Variants: count values are never below 0 and percent values stay within [0, 100] (bounds clamped);
 * anomaly_timeliness_delay is one-sided (a delay shorter than usual is no anomaly), with the whole
 * anomaly_percent in the upper tail. `use_ai` (a paid DQOps feature) is accepted and ignored.
 */
import { DqError } from '../model/index.js';
import { studentTQuantile } from './distributions.js';
import { fitStudentT } from './fitStudentT.js';
import { isSample, sampleOf, type SampleKind } from './historySamples.js';
import type { RuleContext, RuleImplementation, RuleTable } from './ruleImplementation.js';
import { verdict, withinBounds, type RuleOutcome } from './ruleTypes.js';

interface AnomalyOptions {
  sample: SampleKind;
  floor?: number;
  ceiling?: number;
  upperOnly?: boolean;
}

const DEFAULT_DEGREES_OF_FREEDOM = 5;

function anomalyRule(options: AnomalyOptions): RuleImplementation {
  return { evaluate: (c) => evaluateAnomaly(c, options) };
}

function evaluateAnomaly(c: RuleContext, options: AnomalyOptions): RuleOutcome {
  const anomalyPercent = c.params.requiredNumber('anomaly_percent');
  if (!(anomalyPercent > 0 && anomalyPercent < 100)) {
    throw new DqError('RULE_INPUT_INVALID', `anomaly_percent of rule ${c.rule.name} must be above 0 and below 100, got ${anomalyPercent}`, {
      rule: c.rule.name,
      parameter: 'anomaly_percent',
    });
  }
  const sample = sampleOf(c.history, options.sample);
  if (!isSample(sample)) return sample;
  const degreesOfFreedom = degreesOfFreedomOf(c);
  const fit = fitStudentT(sample.values, degreesOfFreedom);
  const expected = sample.base + fit.location;
  const tail = options.upperOnly ? anomalyPercent / 100 : anomalyPercent / 200;
  const reach = studentTQuantile(1 - tail, degreesOfFreedom) * fit.scale;
  let lower = options.upperOnly ? undefined : expected - reach;
  let upper = expected + reach;
  if (options.floor !== undefined) {
    if (lower !== undefined) lower = Math.max(lower, options.floor);
    upper = Math.max(upper, options.floor);
  }
  if (options.ceiling !== undefined) {
    upper = Math.min(upper, options.ceiling);
    if (lower !== undefined) lower = Math.min(lower, options.ceiling);
  }
  return verdict(withinBounds(c.actualValue, lower, upper), { expectedValue: expected, lowerBound: lower, upperBound: upper });
}

function degreesOfFreedomOf(c: RuleContext): number {
  const configured = c.rule.config.degrees_of_freedom;
  return typeof configured === 'number' && configured > 0 ? configured : DEFAULT_DEGREES_OF_FREEDOM;
}

const stationary = anomalyRule({ sample: 'values' });
const differencing = anomalyRule({ sample: 'differences' });

export const ANOMALY_RULES: RuleTable = {
  'percentile/anomaly_stationary_percentile_moving_average': stationary,
  'percentile/anomaly_stationary_percentile_moving_average_30_days': stationary,
  'percentile/anomaly_differencing_percentile_moving_average': differencing,
  'percentile/anomaly_differencing_percentile_moving_average_30_days': differencing,
  'percentile/anomaly_stationary_count_values': anomalyRule({ sample: 'values', floor: 0 }),
  'percentile/anomaly_stationary_percent_values': anomalyRule({ sample: 'values', floor: 0, ceiling: 100 }),
  'percentile/anomaly_partition_row_count': anomalyRule({ sample: 'values', floor: 0 }),
  'percentile/anomaly_timeliness_delay': anomalyRule({ sample: 'values', upperOnly: true }),
};
