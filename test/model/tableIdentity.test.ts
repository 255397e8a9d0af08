import { describe, expect, it } from 'vitest';
import { parseTableKey, tableKey, tableKeyPrefix, type TableIdentity } from '../../src/model/index.js';

/** A table's identity and its store key: one function each way, a round trip for any names DQOps allows. */
describe('table identity', () => {
  it('keys a plain table as DQOps names it', () => {
    expect(tableKey({ connection: 'shop', schema: 'public', table: 'orders' })).toBe('shop/public.orders');
    expect(parseTableKey('shop/public.orders')).toEqual({ connection: 'shop', schema: 'public', table: 'orders' });
  });

  it('round-trips a connection holding "/" and "%", and a table holding dots and slashes', () => {
    const cases: TableIdentity[] = [
      { connection: 'team/oltp', schema: 'public', table: 'orders' },
      { connection: '100%', schema: 's', table: 'a.b/c' },
      { connection: 'a%2Fb', schema: 'Ünïcode', table: '<img src=x>' },
      { connection: 'x', schema: 's', table: '' },
    ];
    for (const identity of cases) expect(parseTableKey(tableKey(identity))).toEqual(identity);
    expect(tableKey({ connection: 'team/oltp', schema: 'public', table: 'orders' })).toBe('team%2Foltp/public.orders');
  });

  it("a connection's prefix selects its tables only, even when another connection's name starts the same", () => {
    const keys = ['team/a', 'team', 'team/a/b'].map((connection) => tableKey({ connection, schema: 's', table: 't' }));
    expect(keys.filter((k) => k.startsWith(tableKeyPrefix('team')))).toEqual(['team/s.t']);
    expect(keys.filter((k) => k.startsWith(tableKeyPrefix('team/a')))).toEqual(['team%2Fa/s.t']);
    expect(keys.filter((k) => k.startsWith(tableKeyPrefix('team/a', 's')))).toEqual(['team%2Fa/s.t']);
  });

  it('refuses what is not a table key', () => {
    for (const key of ['', 'shop', '/public.orders', 'shop/public']) expect(parseTableKey(key)).toBeUndefined();
  });
});
