/**
 * The anomaly bounds DQOps's open-source rules compute, described from their public definitions: the window's
 * values are split at a median; the values at or above it give the upper bound, those at or below it the lower
 * bound. Each bound is the median of its half plus a Student's t quantile (the rule's degrees_of_freedom) times
 * the half's sample standard deviation (n − 1): t(1 − tail) above, t(tail) below. A half whose values are all
 * equal puts the bound at its median. The forecast is the median the values were split at.
 *
 * Splitting at the median lets a series that is skewed (a row count that jumps up more often than down) have
 * an upper band wider than its lower one.
 */
import { studentTQuantile } from './distributions.js';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The sample standard deviation (n − 1); NaN for fewer than two values, as scipy's tstd. */
export function sampleStandardDeviation(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const mean = values.reduce((sum, x) => sum + x, 0) / values.length;
  return Math.sqrt(values.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (values.length - 1));
}

/** The bound above `center`: from the values ≥ center, at the upper `tail` (a probability, 0.0005 = 0.05 %). */
export function upperTailBound(values: readonly number[], center: number, tail: number, degreesOfFreedom: number): number {
  return halfBound(values.filter((x) => x >= center), 1 - tail, degreesOfFreedom);
}

/** The bound below `center`: from the values ≤ center, at the lower `tail`. */
export function lowerTailBound(values: readonly number[], center: number, tail: number, degreesOfFreedom: number): number {
  return halfBound(values.filter((x) => x <= center), tail, degreesOfFreedom);
}

function halfBound(half: readonly number[], probability: number, degreesOfFreedom: number): number {
  const halfMedian = median(half);
  const deviation = sampleStandardDeviation(half);
  if (deviation === 0) return halfMedian;
  return studentTQuantile(probability, degreesOfFreedom) * deviation + halfMedian;
}
