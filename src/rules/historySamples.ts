/**
 * The two samples the moving-window rules fit: the readouts themselves (a stationary measure, predicted
 * around its usual level) or the differences between consecutive readouts (a growing measure such as a row
 * count, predicted as the last readout plus a usual step). A differenced sample needs two readouts; fewer
 * is "not enough history", never a verdict.
 */
import type { PickedHistory } from './historyWindow.js';
import type { NotEnoughHistory } from './ruleTypes.js';

export type SampleKind = 'values' | 'differences';

export interface Sample {
  values: number[];
  /** Added to a prediction made from the sample: 0 for values, the last readout for differences. */
  base: number;
}

export function sampleOf(history: PickedHistory, kind: SampleKind): Sample | NotEnoughHistory {
  const values = history.points.map((point) => point.value);
  const needed = kind === 'values' ? 1 : 2;
  if (values.length < needed) return { verdict: 'not_enough_history', periodsWithReadouts: values.length, requiredPeriods: needed };
  if (kind === 'values') return { values, base: 0 };
  return { values: values.slice(1).map((value, index) => value - values[index]), base: values[values.length - 1] };
}

export function isSample(value: Sample | NotEnoughHistory): value is Sample {
  return !('verdict' in value);
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, x) => sum + x, 0) / values.length;
}

/** The sample standard deviation (n − 1); 0 for fewer than two values. */
export function standardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, x) => sum + (x - m) ** 2, 0) / (values.length - 1));
}
