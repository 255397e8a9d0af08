import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import type { JsonObject } from '../../src/model/index.js';
import {
  applyCheckContainerModel,
  checkContainerModel,
  comparisonsIn,
  containerComparisons,
  effectiveContainer,
  effectiveTableAndColumnChecks,
  effectiveTableChecks,
  tableComparisonNames,
  type CheckContainerModel,
  type CheckModel,
} from '../../src/policy/index.js';
import { table, tablePolicy } from './policyFixtures.js';

const catalog = getCheckCatalog();
const ALL = { can_edit: true, can_run_checks: true, can_delete_data: true };

/** The demo's fact_orders in short: one comparison to the shop's orders, a table check and a column check. */
function factOrders(extra: JsonObject = {}): JsonObject {
  return {
    table_comparisons: {
      matches_shop_orders: {
        reference_table_connection_name: 'shop_oltp',
        reference_table_schema_name: 'public',
        reference_table_name: 'orders',
        check_type: 'monitoring',
        time_scale: 'daily',
      },
    },
    monitoring_checks: {
      daily: {
        comparisons: { matches_shop_orders: { daily_row_count_match: { warning: { max_diff_percent: 0 }, error: { max_diff_percent: 2 } } } },
        volume: { daily_row_count: { error: { min_count: 1 } } },
      },
    },
    columns: {
      gross_amount: {
        monitoring_checks: {
          daily: { comparisons: { matches_shop_orders: { reference_column: 'order_total', daily_sum_match: { error: { max_diff_percent: 2 } } } } },
        },
      },
      order_status: {},
    },
    ...extra,
  };
}

function model(spec: JsonObject, column: string | null): CheckContainerModel {
  const t = table('dwh/mart.fact_orders', spec);
  const both = effectiveTableAndColumnChecks(t, undefined, []);
  const checks = column === null ? both.table : both.columns[column];
  const comparisons = containerComparisons(spec, column, 'monitoring', 'daily');
  return checkContainerModel(column === null ? 'table' : 'column', 'monitoring', 'daily', effectiveContainer(checks, 'monitoring', 'daily'), ALL, { comparisons });
}

function check(m: CheckContainerModel, category: string, name: string): CheckModel {
  const found = m.categories.find((c) => c.category === category)?.checks.find((c) => c.check_name === name);
  if (!found) throw new Error(`${category}/${name} not in the model`);
  return found;
}

describe('comparison checks in effective checks', () => {
  it('keeps the table\'s and each column\'s comparison checks apart, per container, with the reference column and origin table', () => {
    const both = effectiveTableAndColumnChecks(table('dwh/mart.fact_orders', factOrders()), undefined, []);
    const tableComparisons = comparisonsIn(both.table.comparisons, 'monitoring', 'daily');
    expect(Object.keys(tableComparisons)).toEqual(['matches_shop_orders']);
    expect(tableComparisons.matches_shop_orders.referenceColumn).toBeNull();
    expect(tableComparisons.matches_shop_orders.checks.daily_row_count_match).toEqual({
      spec: { warning: { max_diff_percent: 0 }, error: { max_diff_percent: 2 } },
      origin: { source: 'table' },
    });
    const column = comparisonsIn(both.columns.gross_amount.comparisons, 'monitoring', 'daily').matches_shop_orders;
    expect(column.referenceColumn).toBe('order_total');
    expect(Object.keys(column.checks)).toEqual(['daily_sum_match']);
    expect(comparisonsIn(both.columns.order_status.comparisons, 'monitoring', 'daily')).toEqual({});
    expect(comparisonsIn(both.table.comparisons, 'profiling', null)).toEqual({});
    // the five ordinary containers still hold no comparisons category
    expect(Object.keys(both.table.monitoring.daily)).toEqual(['volume']);
  });

  it('takes no comparisons from policies and keeps a disabled table\'s own', () => {
    const policy = tablePolicy('p', { monitoring_checks: { daily: { comparisons: { other: { daily_row_count_match: {} } } } } });
    const disabled = effectiveTableChecks(table('dwh/mart.fact_orders', factOrders({ disabled: true })), undefined, [policy]);
    expect(Object.keys(comparisonsIn(disabled.comparisons, 'monitoring', 'daily'))).toEqual(['matches_shop_orders']);
    const bare = effectiveTableChecks(table('dwh/mart.other'), undefined, [policy]);
    expect(comparisonsIn(bare.comparisons, 'monitoring', 'daily')).toEqual({});
  });
});

describe('comparison checks in check container models', () => {
  it('lists a comparison as DQOps does: category comparisons/<name>, comparison_name, every comparison check of the container', () => {
    const m = model(factOrders(), null);
    const category = m.categories.find((c) => c.comparison_name === 'matches_shop_orders')!;
    expect(category.category).toBe('comparisons/matches_shop_orders');
    expect(category.compare_to_column).toBeUndefined();
    const expected = catalog.checksIn({ target: 'table', checkType: 'monitoring', timeScale: 'daily' }, 'comparisons').map((c) => c.checkName).sort();
    expect(category.checks.map((c) => c.check_name)).toEqual(expected);
    const rowCount = check(m, 'comparisons/matches_shop_orders', 'daily_row_count_match');
    expect(rowCount.configured).toBe(true);
    expect(rowCount.default_check).toBe(false);
    expect(rowCount.rule.error).toMatchObject({ configured: true, rule_parameters: [{ definition: { field_name: 'max_diff_percent' }, double_value: 2 }] });
    expect(check(m, 'comparisons/matches_shop_orders', 'daily_column_count_match').configured).toBe(false);
    const names = m.categories.map((c) => c.category);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('comparisons');
    // no other category carries a comparison name
    expect(m.categories.filter((c) => c.comparison_name !== undefined)).toHaveLength(1);
  });

  it('names a column comparison\'s reference column, and lists the comparison on a column that configures none yet', () => {
    const gross = model(factOrders(), 'gross_amount');
    const category = gross.categories.find((c) => c.comparison_name === 'matches_shop_orders')!;
    expect(category.compare_to_column).toBe('order_total');
    expect(category.checks.filter((c) => c.configured).map((c) => c.check_name)).toEqual(['daily_sum_match']);
    const status = model(factOrders(), 'order_status').categories.find((c) => c.comparison_name === 'matches_shop_orders')!;
    expect(status.compare_to_column).toBeUndefined();
    expect(status.checks.some((c) => c.configured)).toBe(false);
  });

  it('lists a configuration only in the container it names (profiling unless said), and configured checks wherever they are', () => {
    const spec = factOrders();
    (spec.table_comparisons as JsonObject).matches_shop_orders = { reference_table_connection_name: 'shop_oltp' };
    (spec.table_comparisons as JsonObject).unused = { reference_table_connection_name: 'shop_oltp', check_type: 'monitoring', time_scale: 'monthly' };
    expect(containerComparisons(spec, null, 'profiling', null).map((c) => c.name)).toEqual(['matches_shop_orders']);
    // not named by its configuration, but configured here: listed, because it runs here
    expect(containerComparisons(spec, null, 'monitoring', 'daily').map((c) => c.name)).toEqual(['matches_shop_orders']);
    expect(containerComparisons(spec, null, 'monitoring', 'monthly').map((c) => c.name)).toEqual(['unused']);
    // checks of a comparison the table no longer configures are listed too
    const orphan = factOrders({ table_comparisons: {} });
    expect(containerComparisons(orphan, null, 'monitoring', 'daily').map((c) => c.name)).toEqual(['matches_shop_orders']);
    expect(tableComparisonNames(orphan)).toEqual([]);
  });
});

describe('writing a model with comparisons back', () => {
  const daily = (spec: JsonObject, column: string | null): JsonObject => {
    const owner = column === null ? spec : ((spec.columns as JsonObject)[column] as JsonObject);
    return ((owner.monitoring_checks as JsonObject).daily as JsonObject) ?? {};
  };

  it('round-trips the comparison checks, the reference column included', () => {
    const spec = factOrders();
    for (const column of [null, 'gross_amount']) {
      const previous = daily(spec, column);
      const written = applyCheckContainerModel(model(spec, column), { previous, tableComparisons: tableComparisonNames(spec) });
      expect(written).toEqual(previous);
    }
  });

  it('writes an edited threshold, a newly configured comparison check, and removes an unconfigured one', () => {
    const spec = factOrders();
    const m = model(spec, null);
    check(m, 'comparisons/matches_shop_orders', 'daily_row_count_match').rule.error.rule_parameters[0].double_value = 5;
    const columnCount = check(m, 'comparisons/matches_shop_orders', 'daily_column_count_match');
    columnCount.configured = true;
    columnCount.rule.warning.configured = true;
    const written = applyCheckContainerModel(m, { previous: daily(spec, null), tableComparisons: tableComparisonNames(spec) });
    expect(written.comparisons).toEqual({
      matches_shop_orders: {
        daily_row_count_match: { warning: { max_diff_percent: 0 }, error: { max_diff_percent: 5 } },
        daily_column_count_match: { warning: {} },
      },
    });
    expect(written.volume).toEqual({ daily_row_count: { error: { min_count: 1 } } });

    const column = model(spec, 'gross_amount');
    check(column, 'comparisons/matches_shop_orders', 'daily_sum_match').configured = false;
    // the reference column stays: only the checks go
    expect(applyCheckContainerModel(column, { previous: daily(spec, 'gross_amount'), tableComparisons: tableComparisonNames(spec) })).toEqual({
      comparisons: { matches_shop_orders: { reference_column: 'order_total' } },
    });
    const tableOnly = model(spec, null);
    check(tableOnly, 'comparisons/matches_shop_orders', 'daily_row_count_match').configured = false;
    expect(applyCheckContainerModel(tableOnly, { previous: daily(spec, null) })).toEqual({ volume: { daily_row_count: { error: { min_count: 1 } } } });
  });

  it('writes no check for a comparison the table does not configure, and keeps what it had', () => {
    const spec = factOrders({ table_comparisons: {} });
    const m = model(spec, null);
    check(m, 'comparisons/matches_shop_orders', 'daily_row_count_match').rule.error.rule_parameters[0].double_value = 50;
    const previous = daily(spec, null);
    expect(applyCheckContainerModel(m, { previous, tableComparisons: tableComparisonNames(spec) })).toEqual(previous);
    // a bare "comparisons" category is not a category of checks
    const bare: CheckContainerModel = { categories: [{ category: 'comparisons', help_text: '', checks: [] }], can_edit: true, can_run_checks: true, can_delete_data: true };
    expect(applyCheckContainerModel(bare, { previous })).toEqual(previous);
  });
});
