import { describe, expect, it } from 'vitest';
import { compileNamePattern } from '../../src/policy/index.js';

function matches(filter: string, value: string): boolean {
  const pattern = compileNamePattern(filter);
  if (pattern === undefined) throw new Error(`"${filter}" does not filter`);
  return pattern.matches(value);
}

describe('compileNamePattern', () => {
  it('does not filter when absent, not text or empty', () => {
    expect(compileNamePattern(undefined)).toBeUndefined();
    expect(compileNamePattern(null)).toBeUndefined();
    expect(compileNamePattern(12)).toBeUndefined();
    expect(compileNamePattern('')).toBeUndefined();
    expect(compileNamePattern('  ')).toBeUndefined();
    expect(compileNamePattern(' , ,')).toBeUndefined();
  });

  it('matches a plain name exactly', () => {
    expect(matches('orders', 'orders')).toBe(true);
    expect(matches('orders', 'orders_2024')).toBe(false);
    expect(matches('orders', 'my_orders')).toBe(false);
  });

  it('supports every wildcard form', () => {
    expect(matches('*', 'anything')).toBe(true);
    expect(matches('*', '')).toBe(true);

    expect(matches('fact_*', 'fact_sales')).toBe(true);
    expect(matches('fact_*', 'fact_')).toBe(true);
    expect(matches('fact_*', 'dim_fact_sales')).toBe(false);

    expect(matches('*_tmp', 'orders_tmp')).toBe(true);
    expect(matches('*_tmp', 'orders_tmp2')).toBe(false);

    expect(matches('a*b', 'ab')).toBe(true);
    expect(matches('a*b', 'a-middle-b')).toBe(true);
    expect(matches('a*b', 'a-middle-bc')).toBe(false);
    expect(matches('a*b', 'xa-b')).toBe(false);

    expect(matches('*sales*', 'sales')).toBe(true);
    expect(matches('*sales*', 'fact_sales_2024')).toBe(true);
    expect(matches('*sales*', 'fact_sale_2024')).toBe(false);

    expect(matches('a*b*c', 'a1b2c')).toBe(true);
    expect(matches('a*b*c', 'a1c2b')).toBe(false);
  });

  it('takes comma-separated lists, trims the items, and any item may match', () => {
    expect(matches('orders, customers ,fact_*', 'customers')).toBe(true);
    expect(matches('orders, customers ,fact_*', 'orders')).toBe(true);
    expect(matches('orders, customers ,fact_*', 'fact_x')).toBe(true);
    expect(matches('orders, customers ,fact_*', 'dim_x')).toBe(false);
    expect(matches('orders,,', 'orders')).toBe(true);
    expect(matches('orders,,', '')).toBe(false);
  });

  it('is case-sensitive', () => {
    expect(matches('Orders', 'orders')).toBe(false);
    expect(matches('FACT_*', 'fact_sales')).toBe(false);
    expect(matches('*Sales', 'fact_Sales')).toBe(true);
  });

  it('treats regular-expression characters literally', () => {
    expect(matches('a.b', 'a.b')).toBe(true);
    expect(matches('a.b*', 'axb')).toBe(false);
    expect(matches('t(1)*', 't(1)x')).toBe(true);
    expect(matches('[x]*', '[x]y')).toBe(true);
    expect(matches('a+b*', 'aab')).toBe(false);
    expect(matches('$a*', '$ab')).toBe(true);
    expect(matches('a\\b*', 'a\\bc')).toBe(true);
  });

  it('matchesAny: one of several values (labels)', () => {
    const pattern = compileNamePattern('pii, team=*')!;
    expect(pattern.matchesAny(['gold', 'team=finance'])).toBe(true);
    expect(pattern.matchesAny(['gold'])).toBe(false);
    expect(pattern.matchesAny([])).toBe(false);
    expect(compileNamePattern('*')!.matchesAny([])).toBe(false);
  });
});
