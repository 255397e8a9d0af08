import { maxOf, minOf } from '../model/index.js';
/**
 * Fits a Student's t distribution with fixed degrees of freedom ν (location μ, scale σ) to a sample by
 * maximum likelihood, with the EM iteration for the t distribution (each point weighted by
 * (ν + 1) / (ν + ((x − μ)/σ)²), then weighted mean and weighted variance). This is the fit that
 * scipy.stats.t.fit(sample, fix_df=ν) computes. Unlike a mean and standard deviation, it is robust: one
 * earlier outlier widens the bounds far less.
 *
 * When more than ν/(ν + 1) of the sample is one repeated value (for ν = 5, more than 5/6 of it) the
 * likelihood grows without bound as σ → 0 at that value, so there is no maximum; then, and for samples under three points, the moment estimates are used instead:
 * μ = mean, σ = s·√((ν − 2)/ν) (the scale whose t distribution has the sample variance s²; for ν ≤ 2, σ = s).
 * A sample of one repeated value has σ = 0.
 */

export interface StudentTFit {
  location: number;
  scale: number;
  method: 'maximum_likelihood' | 'moments' | 'constant';
}

const MAX_ITERATIONS = 500;

export function fitStudentT(sample: readonly number[], degreesOfFreedom: number): StudentTFit {
  const n = sample.length;
  if (n === 0) throw new RangeError('cannot fit a distribution to no values');
  const mean = sample.reduce((sum, x) => sum + x, 0) / n;
  const spread = maxOf(sample) - minOf(sample);
  if (spread === 0) return { location: sample[0], scale: 0, method: 'constant' };
  const moments = momentFit(sample, mean, degreesOfFreedom);
  if (n < 3 || largestTieCount(sample) > (n * degreesOfFreedom) / (degreesOfFreedom + 1)) return moments;

  const nu = degreesOfFreedom;
  let location = median(sample);
  let scale = Math.sqrt(sample.reduce((sum, x) => sum + (x - mean) ** 2, 0) / n);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration += 1) {
    let weightSum = 0;
    let weightedSum = 0;
    const weights = sample.map((x) => {
      const z = (x - location) / scale;
      const weight = (nu + 1) / (nu + z * z);
      weightSum += weight;
      weightedSum += weight * x;
      return weight;
    });
    const nextLocation = weightedSum / weightSum;
    let weightedSquares = 0;
    for (let i = 0; i < n; i += 1) weightedSquares += weights[i] * (sample[i] - nextLocation) ** 2;
    const nextScale = Math.sqrt(weightedSquares / n);
    if (!(nextScale > spread * 1e-9)) return moments; // collapsing onto a repeated value: no maximum
    const converged = Math.abs(nextLocation - location) <= 1e-13 * (Math.abs(location) + scale) && Math.abs(nextScale - scale) <= 1e-13 * scale;
    location = nextLocation;
    scale = nextScale;
    if (converged) return { location, scale, method: 'maximum_likelihood' };
  }
  return { location, scale, method: 'maximum_likelihood' };
}

function largestTieCount(sample: readonly number[]): number {
  const counts = new Map<number, number>();
  let largest = 0;
  for (const x of sample) {
    const count = (counts.get(x) ?? 0) + 1;
    counts.set(x, count);
    largest = Math.max(largest, count);
  }
  return largest;
}

function momentFit(sample: readonly number[], mean: number, degreesOfFreedom: number): StudentTFit {
  const n = sample.length;
  const variance = n > 1 ? sample.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1) : 0;
  const factor = degreesOfFreedom > 2 ? Math.sqrt((degreesOfFreedom - 2) / degreesOfFreedom) : 1;
  return { location: mean, scale: Math.sqrt(variance) * factor, method: 'moments' };
}

function median(sample: readonly number[]): number {
  const sorted = [...sample].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
