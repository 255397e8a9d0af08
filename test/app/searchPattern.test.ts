import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_LIMIT, pageOf, pagingOf } from '../../src/app/listPaging.js';
import { isSearchPattern, matchesSearchPattern, withoutQuotes } from '../../src/app/searchPattern.js';

/** DQOps's name patterns (its StringPatternComparer) and its paging of lists, rule by rule. */
describe("DQOps's name patterns", () => {
  it('without a star: the whole name, ignoring case', () => {
    expect(matchesSearchPattern('Orders', 'orders')).toBe(true);
    expect(matchesSearchPattern('orders', 'ORDERS')).toBe(true);
    expect(matchesSearchPattern('orders_2024', 'orders')).toBe(false);
    expect(isSearchPattern('orders')).toBe(false);
  });

  it('prefix*, *suffix, *contains*, pre*post, ignoring case', () => {
    expect(matchesSearchPattern('Fact_Orders', 'fact*')).toBe(true);
    expect(matchesSearchPattern('dim_orders', 'fact*')).toBe(false);
    expect(matchesSearchPattern('fact_ORDERS', '*orders')).toBe(true);
    expect(matchesSearchPattern('orders_fact', '*orders')).toBe(false);
    expect(matchesSearchPattern('big_Orders_table', '*orders*')).toBe(true);
    expect(matchesSearchPattern('big_table', '*orders*')).toBe(false);
    expect(matchesSearchPattern('fact_daily_orders', 'fact*orders')).toBe(true);
    expect(matchesSearchPattern('fact_daily_order', 'fact*orders')).toBe(false);
    expect(isSearchPattern('fact*')).toBe(true);
  });

  it('* and ** match every name, the empty one too', () => {
    for (const pattern of ['*', '**']) {
      expect(matchesSearchPattern('anything', pattern)).toBe(true);
      expect(matchesSearchPattern('', pattern)).toBe(true);
    }
  });

  it('a name shorter than the pattern without its stars never matches (no overlap of prefix and suffix)', () => {
    expect(matchesSearchPattern('aba', 'ab*ba')).toBe(false);
    expect(matchesSearchPattern('abba', 'ab*ba')).toBe(true);
  });

  it('only the first star of pre*post is a wildcard; *a*b matches the suffix "a*b" literally (as DQOps)', () => {
    expect(matchesSearchPattern('pre_x_mid_y_post', 'pre*mid*post')).toBe(false);
    expect(matchesSearchPattern('pre_mid*post', 'pre*mid*post')).toBe(true);
    expect(matchesSearchPattern('x_a_b', '*a*b')).toBe(false);
    expect(matchesSearchPattern('xa*b', '*a*b')).toBe(true);
  });

  it('drops one pair of SQL quotes around a name part', () => {
    expect(withoutQuotes('"Orders"')).toBe('Orders');
    expect(withoutQuotes('[Orders]')).toBe('Orders');
    expect(withoutQuotes('`Orders`')).toBe('Orders');
    expect(withoutQuotes("'Orders'")).toBe('Orders');
    expect(withoutQuotes('"Orders')).toBe('"Orders');
    expect(withoutQuotes('[Orders"')).toBe('[Orders"');
    expect(withoutQuotes('')).toBe('');
  });
});

describe("DQOps's paging of lists", () => {
  const rows = Array.from({ length: 250 }, (_, i) => i);

  it('is off without page and limit: the whole list', () => {
    expect(pagingOf({})).toBeUndefined();
    expect(pageOf(rows, undefined)).toHaveLength(250);
  });

  it('page alone takes 100 rows; limit alone is the first page', () => {
    expect(pagingOf({ page: 2 })).toEqual({ page: 2, limit: DEFAULT_PAGE_LIMIT });
    expect(pageOf(rows, pagingOf({ page: 2 }))).toEqual(rows.slice(100, 200));
    expect(pageOf(rows, pagingOf({ limit: 7 }))).toEqual(rows.slice(0, 7));
  });

  it('the last page is short; a page past the end is empty', () => {
    expect(pageOf(rows, pagingOf({ page: 3, limit: 100 }))).toEqual(rows.slice(200));
    expect(pageOf(rows, pagingOf({ page: 4, limit: 100 }))).toEqual([]);
    expect(pageOf(rows, pagingOf({ page: 1, limit: 1000 }))).toHaveLength(250);
  });

  it('refuses a page or limit below 1 or not whole (400)', () => {
    for (const bad of [{ page: 0 }, { limit: 0 }, { page: -1, limit: 5 }, { page: 1.5 }, { limit: Number.NaN }]) {
      expect(() => pagingOf(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});
