/**
 * Student's t and the standard normal distribution: CDFs from the incomplete beta / gamma functions and
 * quantiles by bisection on the CDF (monotone, so the bracket always converges; 200 halvings reach the
 * floating-point resolution of the CDF). Quantiles are what the anomaly and percentile rules turn a tail
 * probability into a bound with.
 */
import { regularizedIncompleteBeta, regularizedUpperIncompleteGamma } from './specialFunctions.js';

/** P(T > t) for t ≥ 0: computed directly, so small tails keep their precision. */
function studentTUpperTail(t: number, degreesOfFreedom: number): number {
  return 0.5 * regularizedIncompleteBeta(degreesOfFreedom / (degreesOfFreedom + t * t), degreesOfFreedom / 2, 0.5);
}

/** P(Z > z) for z ≥ 0 (erfc(u) = Q(1/2, u²)). */
function normalUpperTail(z: number): number {
  return 0.5 * regularizedUpperIncompleteGamma(0.5, (z * z) / 2);
}

/** P(T ≤ t) for Student's t with `degreesOfFreedom` > 0. */
export function studentTCdf(t: number, degreesOfFreedom: number): number {
  if (Number.isNaN(t)) return Number.NaN;
  const tail = studentTUpperTail(Math.abs(t), degreesOfFreedom);
  return t >= 0 ? 1 - tail : tail;
}

/** P(Z ≤ z) for the standard normal distribution. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const tail = normalUpperTail(Math.abs(z));
  return z >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p, for 0 < p < 1. */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  if (!(degreesOfFreedom > 0)) throw new RangeError(`degrees of freedom must be > 0, got ${degreesOfFreedom}`);
  return symmetricQuantile(p, (x) => studentTUpperTail(x, degreesOfFreedom));
}

/** The z with P(Z ≤ z) = p for the standard normal distribution, for 0 < p < 1. */
export function normalQuantile(p: number): number {
  return symmetricQuantile(p, normalUpperTail);
}

/**
 * Quantile of a distribution symmetric around 0: the x ≥ 0 whose upper tail is min(p, 1 - p), found by
 * doubling a bracket and bisecting it; negated for p < 1/2.
 */
function symmetricQuantile(p: number, upperTail: (x: number) => number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a quantile needs 0 < p < 1, got ${p}`);
  if (p === 0.5) return 0;
  const tail = Math.min(p, 1 - p);
  let low = 0;
  let high = 1;
  while (upperTail(high) > tail && high < 1e300) {
    low = high;
    high *= 2;
  }
  for (let i = 0; i < 200 && high - low > high * 1e-15; i += 1) {
    const middle = (low + high) / 2;
    if (upperTail(middle) > tail) low = middle;
    else high = middle;
  }
  const x = (low + high) / 2;
  return p > 0.5 ? x : -x;
}
