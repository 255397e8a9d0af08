import { describe, expect, it } from 'vitest';
import { normalCdf, normalQuantile, studentTCdf, studentTQuantile } from '../../src/rules/index.js';
import { logGamma, regularizedIncompleteBeta, regularizedUpperIncompleteGamma } from '../../src/rules/specialFunctions.js';

describe('special functions', () => {
  it('log-gamma of integers is the log of a factorial', () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(11)).toBeCloseTo(Math.log(3628800), 11);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
  });

  it('incomplete beta: closed forms', () => {
    for (const x of [0.01, 0.3, 0.5, 0.77, 0.999]) {
      expect(regularizedIncompleteBeta(x, 1, 1)).toBeCloseTo(x, 13);
      expect(regularizedIncompleteBeta(x, 3, 1)).toBeCloseTo(x ** 3, 13);
      expect(regularizedIncompleteBeta(x, 1, 4)).toBeCloseTo(1 - (1 - x) ** 4, 13);
    }
    expect(regularizedIncompleteBeta(0.5, 2.5, 2.5)).toBeCloseTo(0.5, 14);
    expect(regularizedIncompleteBeta(0, 2, 3)).toBe(0);
    expect(regularizedIncompleteBeta(1, 2, 3)).toBe(1);
  });

  it('upper incomplete gamma: Q(1, x) = e^-x', () => {
    for (const x of [0.1, 1, 2, 5, 30]) expect(regularizedUpperIncompleteGamma(1, x) / Math.exp(-x)).toBeCloseTo(1, 12);
  });
});

describe("Student's t and normal quantiles match the published tables", () => {
  // Student's t table (two-sided confidence / one-tail probability), e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2
  const table: Array<[p: number, df: number, t: number]> = [
    [0.95, 10, 1.812],
    [0.975, 1, 12.706],
    [0.975, 5, 2.571],
    [0.975, 30, 2.042],
    [0.99, 5, 3.365],
    [0.995, 5, 4.032],
    [0.999, 5, 5.893],
    [0.9995, 5, 6.869],
    [0.9995, 8, 5.041],
  ];
  it.each(table)('t(p=%d, df=%d) = %d', (p, df, t) => {
    expect(studentTQuantile(p, df)).toBeCloseTo(t, 3);
    expect(studentTQuantile(1 - p, df)).toBeCloseTo(-t, 3);
    expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 13);
  });

  it('the normal quantiles', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829, 6);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 7);
    expect(normalCdf(-1)).toBeCloseTo(0.158655254, 9);
  });

  it('small tails keep their precision', () => {
    // scipy.stats.t.ppf(0.99975, 5) = 7.975653419040984; t.ppf(0.999999, 3) = 103.29946777942898
    expect(studentTQuantile(0.99975, 5)).toBeCloseTo(7.975653419, 8);
    expect(studentTQuantile(0.999999, 3)).toBeCloseTo(103.299467779, 6);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902, 8);
  });

  it('refuses probabilities outside (0, 1)', () => {
    expect(() => studentTQuantile(1, 5)).toThrow(RangeError);
    expect(() => normalQuantile(0)).toThrow(RangeError);
  });
});
