import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/catalog/index.js';

describe('didYouMean', () => {
  it('suggests the closest name for a typo', () => {
    expect(didYouMean('min_cont', ['min_count', 'max_count'])).toEqual(['min_count']);
    expect(didYouMean('warnin', ['parameters', 'warning', 'error', 'fatal'])).toEqual(['warning']);
    expect(didYouMean('daily_row_cont', ['daily_row_count', 'daily_row_count_change'])).toEqual(['daily_row_count']);
  });

  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('warnign', 'warning')).toBe(1);
    expect(didYouMean('warnign', ['warning', 'error'])).toEqual(['warning']);
  });

  it('is case-insensitive', () => {
    expect(didYouMean('Volume', ['volume', 'schema'])).toEqual(['volume']);
  });

  it('suggests a name written without its prefix', () => {
    expect(didYouMean('row_count', ['daily_row_count', 'daily_nulls_count'])).toEqual(['daily_row_count']);
  });

  it('returns several candidates only when they are equally close, at most three', () => {
    expect(didYouMean('ab', ['ax', 'xb', 'ay', 'yb'])).toHaveLength(3);
    expect(didYouMean('mix_count', ['min_count', 'max_count', 'min_percent'])).toEqual(['max_count', 'min_count']);
    expect(didYouMean('min_counts', ['min_count', 'max_counts'])).toEqual(['min_count']);
  });

  it('returns nothing when nothing is close', () => {
    expect(didYouMean('tresh', ['priority', 'stage', 'filter'])).toEqual([]);
    expect(didYouMean('x', ['y'])).toEqual([]);
    expect(didYouMean('warning', ['warning'])).toEqual([]);
  });
});
