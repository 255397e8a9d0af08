import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import type { JsonObject } from '../../src/model/index.js';
import { checkConfigurationModels, type CheckConfigurationFilters, type CheckConfigurationModel } from '../../src/policy/index.js';
import { columnPolicy, table, tablePolicy } from './policyFixtures.js';

const catalog = getCheckCatalog();
const dailyCount = (target: 'table' | 'column') =>
  catalog.checksIn({ target, checkType: 'monitoring', timeScale: 'daily' }).filter((c) => c.category !== 'comparisons').length;

const tables = [
  table('shop/public.orders', {
    filter: 'deleted = false',
    monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 5 }, warning: {} } } } },
    columns: {
      id: { type_snapshot: { column_type: 'int8' } },
      status: {
        type_snapshot: { column_type: 'varchar(20)' },
        monitoring_checks: {
          daily: {
            nulls: { daily_nulls_count: { parameters: { filter: "status <> 'x'" }, error: { max_count: 0 } } },
            whitespace: { daily_empty_text_found: { disabled: true } },
          },
        },
      },
    },
  }),
  table('shop/public.customers', { columns: { email: { type_snapshot: { column_type: 'text' } } } }),
  table('shop/public.audit_log', {}),
];
const policies = [
  tablePolicy('volume', { target: { table: 'customers' }, monitoring_checks: { daily: { volume: { daily_row_count: {} } } } }),
  columnPolicy('ids', { target: { column: 'id' }, monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } }),
];

function rows(filters: CheckConfigurationFilters = {}): CheckConfigurationModel[] {
  return checkConfigurationModels({ tables, connectionSpec: {}, policies, checkType: 'monitoring', timeScale: 'daily' }, { limit: 100_000, ...filters });
}

const where = (r: CheckConfigurationModel) => `${r.table_name}${r.column_name === null ? '' : `.${r.column_name}`}/${r.category_name}/${r.check_name}`;

describe('checkConfigurationModels', () => {
  it('lists every check of the container on every table and column, sorted', () => {
    const all = rows();
    const tableRows = 3 * dailyCount('table');
    const columnRows = 3 * dailyCount('column');
    expect(all).toHaveLength(tableRows + columnRows);
    const order = all.map((r) => [r.table_name, r.column_name === null ? '0' : `1 ${r.column_name}`, r.category_name, r.check_name].join('|'));
    const tableOrder = ['audit_log', 'customers', 'orders'];
    expect([...new Set(all.map((r) => r.table_name))]).toEqual(tableOrder);
    for (const name of tableOrder) {
      const mine = order.filter((o) => o.startsWith(`${name}|`));
      expect(mine).toEqual([...mine].sort());
    }
  });

  it('fills each row from the effective checks', () => {
    const all = rows({ check_configured: true });
    expect(all.map(where)).toEqual([
      'customers/volume/daily_row_count',
      'orders/volume/daily_row_count',
      'orders.id/nulls/daily_nulls_count',
      'orders.status/nulls/daily_nulls_count',
      'orders.status/whitespace/daily_empty_text_found',
    ]);
    const orders = all[1];
    expect(orders).toMatchObject({
      connection_name: 'shop',
      schema_name: 'public',
      table_name: 'orders',
      column_name: null,
      check_target: 'table',
      check_type: 'monitoring',
      check_time_scale: 'daily',
      category_name: 'volume',
      check_name: 'daily_row_count',
      sensor_parameters: [],
      table_level_filter: 'deleted = false',
      sensor_level_filter: null,
      disabled: false,
      configured: true,
    });
    expect(orders.error).toMatchObject({ rule_name: 'comparison/min_count', configured: true, rule_parameters: [{ long_value: 5 }] });
    expect(orders.warning.configured).toBe(true);
    expect(orders.fatal.configured).toBe(false);
    expect(all[3]).toMatchObject({ column_name: 'status', check_target: 'column', sensor_level_filter: "status <> 'x'", table_level_filter: 'deleted = false' });
    expect(all[2]).toMatchObject({ column_name: 'id', configured: true }); // from the column policy
    expect(all[4]).toMatchObject({ disabled: true, configured: true });
  });

  it('filters on configured and enabled', () => {
    expect(rows({ check_configured: false })).toHaveLength(rows().length - 5);
    expect(rows({ check_enabled: true }).map(where)).toEqual([
      'customers/volume/daily_row_count',
      'orders/volume/daily_row_count',
      'orders.id/nulls/daily_nulls_count',
      'orders.status/nulls/daily_nulls_count',
    ]);
    expect(rows({ check_enabled: false, check_configured: true }).map(where)).toEqual(['orders.status/whitespace/daily_empty_text_found']);
    expect(rows({ check_enabled: false })).toHaveLength(rows().length - 4);
  });

  it('filters on table and column names, with lists and wildcards', () => {
    expect(new Set(rows({ table_name_pattern: 'ord*' }).map((r) => r.table_name))).toEqual(new Set(['orders']));
    expect(new Set(rows({ table_name_pattern: 'orders, audit_*' }).map((r) => r.table_name))).toEqual(new Set(['orders', 'audit_log']));
    const byColumn = rows({ column_name_pattern: 'st*' });
    expect(new Set(byColumn.map((r) => r.column_name))).toEqual(new Set(['status']));
    expect(byColumn).toHaveLength(dailyCount('column'));
  });

  it('filters on the column data type; column filters leave table checks out', () => {
    expect(new Set(rows({ column_data_type: 'varchar*' }).map((r) => r.column_name))).toEqual(new Set(['status']));
    expect(new Set(rows({ column_data_type: 'text, int8' }).map((r) => r.column_name))).toEqual(new Set(['email', 'id']));
    expect(rows({ column_data_type: 'VARCHAR*' })).toEqual([]);
  });

  it('filters on the check target, category and name', () => {
    expect(rows({ check_target: 'table' })).toHaveLength(3 * dailyCount('table'));
    expect(rows({ check_target: 'table' }).every((r) => r.column_name === null)).toBe(true);
    expect(rows({ check_target: 'column' })).toHaveLength(3 * dailyCount('column'));
    expect(new Set(rows({ check_category: 'volume' }).map((r) => r.category_name))).toEqual(new Set(['volume']));
    expect(rows({ check_name: 'daily_row_count' }).map(where)).toEqual([
      'audit_log/volume/daily_row_count', 'customers/volume/daily_row_count', 'orders/volume/daily_row_count',
    ]);
    expect(rows({ check_name: 'daily_nulls_*', check_configured: true }).map(where)).toEqual([
      'orders.id/nulls/daily_nulls_count', 'orders.status/nulls/daily_nulls_count',
    ]);
  });

  it('returns at most limit rows, 1000 by default', () => {
    const many = Array.from({ length: 20 }, (_, i) => table(`shop/public.t${String(i).padStart(2, '0')}`, { columns: { a: {}, b: {} } }));
    const input = { tables: many, connectionSpec: {} as JsonObject, policies, checkType: 'monitoring' as const, timeScale: 'daily' as const };
    const unlimited = checkConfigurationModels(input, { limit: 100_000 });
    expect(unlimited.length).toBeGreaterThan(1000);
    expect(checkConfigurationModels(input)).toEqual(unlimited.slice(0, 1000));
    expect(checkConfigurationModels(input, { limit: 7 })).toEqual(unlimited.slice(0, 7));
    expect(checkConfigurationModels(input, { limit: 0 })).toEqual([]);
  });

  it('serves profiling with no time scale', () => {
    const profiling = checkConfigurationModels({ tables, connectionSpec: {}, policies, checkType: 'profiling', timeScale: 'daily' }, { check_target: 'table', limit: 5 });
    expect(profiling.every((r) => r.check_type === 'profiling' && r.check_time_scale === undefined && r.check_name.startsWith('profile_'))).toBe(true);
  });
});
