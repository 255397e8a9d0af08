import { describe, expect, it } from 'vitest';
import { diffDesired } from '../../src/diff/diffDesired.js';
import { DEFAULT_SETTINGS } from '../../src/manifest/settings.js';
import type { DesiredObject, JsonObject } from '../../src/model/index.js';
import { compareReach, policyReach, reachKey, tableUniverse } from '../../src/policy/blastRadius.js';
import { desired } from '../helpers/objects.js';

const side = (objects: DesiredObject[], settings = DEFAULT_SETTINGS) => ({ objects, settings });

const rowCount = (min: number): JsonObject => ({ monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: min } } } } } });

describe('diffDesired', () => {
  it('lists added, changed (field paths, old -> new) and removed objects, sorted by kind then name', () => {
    const base = [
      desired('source', 'c', { provider_type: 'postgresql' }),
      desired('table', 'c/public.a', rowCount(1)),
      desired('table', 'c/public.gone', {}),
      desired('default_table_checks', 'p', { target: { table: 'fact_*' }, ...rowCount(1) }),
    ];
    const head = [
      desired('source', 'c', { provider_type: 'postgresql' }),
      desired('table', 'c/public.a', { ...rowCount(5), labels: ['x'] }),
      desired('table', 'c/public.new', {}),
      desired('default_table_checks', 'p', { target: { table: '*' }, ...rowCount(1) }),
    ];
    const result = diffDesired(side(base), side(head));
    expect(result.changes.map((c) => [c.action, c.key.kind, c.key.name])).toEqual([
      ['changed', 'table', 'c/public.a'],
      ['removed', 'table', 'c/public.gone'],
      ['added', 'table', 'c/public.new'],
      ['changed', 'default_table_checks', 'p'],
    ]);
    const a = result.changes[0]!;
    expect(a.action === 'changed' && a.fields).toEqual([
      { path: ['spec', 'labels'], before: undefined, after: ['x'] },
      { path: ['spec', 'monitoring_checks', 'daily', 'volume', 'daily_row_count', 'error', 'min_count'], before: 1, after: 5 },
    ]);
    const p = result.changes[3]!;
    expect(p.action === 'changed' && p.fields).toEqual([{ path: ['spec', 'target', 'table'], before: 'fact_*', after: '*' }]);
    expect(result.settings).toEqual([]);
  });

  it('sees no change where only the writing differs (both sides are normalized the same way)', () => {
    const base = [desired('table', 'c/public.a', { labels: ['b', 'a'], ...rowCount(1) }, 'one.yaml')];
    const head = [desired('table', 'c/public.a', { ...rowCount(1), labels: ['b', 'a'] }, 'one.yaml')];
    expect(diffDesired(side(base), side(head)).changes).toEqual([]);
    expect(diffDesired(side([]), side([])).changes).toEqual([]);
  });

  it('shows a rule module change under its own name, and dqctl.yaml changes under the keys of the file', () => {
    const rule = (code: string): DesiredObject => ({ ...desired('rule', 'r', { type: 'python' }), attachments: { python_module: code }, hash: code });
    const result = diffDesired(
      side([rule('a\n')]),
      side([rule('b\n')], { ...DEFAULT_SETTINGS, namespace: 'shop', prune: { unmanaged: false, massDeleteThreshold: 0.2 } }),
    );
    expect(result.changes[0]!.action === 'changed' && result.changes[0]!.fields).toEqual([{ path: ['python_module'], before: 'a\n', after: 'b\n' }]);
    expect(result.settings).toEqual([
      { path: ['spec', 'namespace'], before: 'default', after: 'shop' },
      { path: ['spec', 'prune', 'mass_delete_threshold'], before: 0.5, after: 0.2 },
    ]);
  });
});

describe('policy blast radius', () => {
  const column = (type: string): JsonObject => ({ type_snapshot: { column_type: type } });
  const tables = [
    desired('source', 'dwh', { labels: ['warehouse'] }),
    desired('table', 'dwh/mart.fact_orders', { columns: { order_id: column('bigint'), amount: column('numeric') } }),
    desired('table', 'dwh/mart.fact_refunds', { columns: { refund_id: column('bigint') } }),
    desired('table', 'dwh/mart.dim_customer', { columns: { customer_id: column('bigint'), email: column('text') } }),
    desired('table', 'dwh/staging.raw_events', { columns: { event_id: column('text') } }),
    desired('table', 'oltp/public.orders', { columns: { order_id: column('bigint') } }),
  ];
  const universe = tableUniverse(tables);

  it('counts the tables a table policy reaches, and names those gained and lost', () => {
    const before = desired('default_table_checks', 'p', { target: { table: 'fact_*' } });
    const after = desired('default_table_checks', 'p', { target: { table: '*' } });
    const key = reachKey('default_table_checks', 'p');
    const result = compareReach(policyReach([before], universe).get(key), policyReach([after], universe).get(key));
    expect(result.before).toEqual({ tables: 2, columns: null });
    expect(result.after).toEqual({ tables: 5, columns: null });
    expect(result.tables_gained).toEqual({ count: 3, first: ['dwh/mart.dim_customer', 'dwh/staging.raw_events', 'oltp/public.orders'] });
    expect(result.tables_lost).toEqual({ count: 0, first: [] });
    expect(result.columns_gained).toBeNull();
  });

  it('counts the columns a column policy reaches and the tables they are in; a disabled policy reaches nothing', () => {
    const before = desired('default_column_checks', 'ids', { target: { column: '*_id', data_type_category: 'numeric_integer' } });
    const narrowed = desired('default_column_checks', 'ids', { target: { connection: 'dwh', schema: 'mart', column: '*_id', data_type_category: 'numeric_integer' } });
    const disabled = desired('default_column_checks', 'ids', { disabled: true, target: { column: '*_id' } });
    const key = reachKey('default_column_checks', 'ids');
    const r0 = policyReach([before], universe).get(key)!;
    expect([...r0.columns!].sort()).toEqual([
      'dwh/mart.dim_customer.customer_id',
      'dwh/mart.fact_orders.order_id',
      'dwh/mart.fact_refunds.refund_id',
      'oltp/public.orders.order_id',
    ]);
    const narrowing = compareReach(r0, policyReach([narrowed], universe).get(key));
    expect(narrowing.before).toEqual({ tables: 4, columns: 4 });
    expect(narrowing.after).toEqual({ tables: 3, columns: 3 });
    expect(narrowing.tables_lost).toEqual({ count: 1, first: ['oltp/public.orders'] });
    expect(narrowing.columns_lost).toEqual({ count: 1, first: ['oltp/public.orders.order_id'] });
    const off = compareReach(r0, policyReach([disabled], universe).get(key));
    expect(off.after).toEqual({ tables: 0, columns: 0 });
    expect(off.columns_lost!.count).toBe(4);
  });

  it('lists at most five names, and a new or deleted policy compares against nothing', () => {
    const many = tableUniverse([desired('source', 'c', {}), ...Array.from({ length: 12 }, (_, i) => desired('table', `c/s.t${String(i).padStart(2, '0')}`, {}))]);
    const key = reachKey('default_table_checks', 'all');
    const reach = policyReach([desired('default_table_checks', 'all', { target: {} })], many).get(key);
    const added = compareReach(undefined, reach);
    expect(added.before).toBeNull();
    expect(added.after).toEqual({ tables: 12, columns: null });
    expect(added.tables_gained).toEqual({ count: 12, first: ['c/s.t00', 'c/s.t01', 'c/s.t02', 'c/s.t03', 'c/s.t04'] });
    const removed = compareReach(reach, undefined);
    expect(removed.after).toBeNull();
    expect(removed.tables_lost.count).toBe(12);
  });

  it('matches connection labels from the source spec', () => {
    const key = reachKey('default_table_checks', 'wh');
    const reach = policyReach([desired('default_table_checks', 'wh', { target: { label: 'warehouse' } })], universe).get(key)!;
    expect(reach.tables.size).toBe(4);
  });
});
