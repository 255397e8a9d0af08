import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/model/index.js';
import {
  compilePolicies,
  effectiveColumnChecks,
  effectiveContainer,
  effectiveTableAndColumnChecks,
  effectiveTableChecks,
  ownChecks,
  type EffectiveChecks,
} from '../../src/policy/index.js';
import { columnPolicy, table, tablePolicy } from './policyFixtures.js';

/** `container/category/check <- origin` lines, to compare whole results at a glance. */
function summary(checks: EffectiveChecks): string[] {
  const lines: string[] = [];
  const containers: [string, Record<string, Record<string, { spec: JsonObject; origin: { source: string; policyName?: string } }>>][] = [
    ['profiling', checks.profiling],
    ['monitoring.daily', checks.monitoring.daily],
    ['monitoring.monthly', checks.monitoring.monthly],
    ['partitioned.daily', checks.partitioned.daily],
    ['partitioned.monthly', checks.partitioned.monthly],
  ];
  for (const [name, container] of containers) {
    for (const [category, list] of Object.entries(container)) {
      for (const [check, effective] of Object.entries(list)) {
        lines.push(`${name}/${category}/${check} <- ${effective.origin.source === 'policy' ? effective.origin.policyName : 'table'}`);
      }
    }
  }
  return lines.sort();
}

const rowCount = (min: number): JsonObject => ({ error: { min_count: min } });

describe('effectiveTableChecks', () => {
  it('lists the table\'s own checks with origin table', () => {
    const t = table('shop/public.orders', {
      profiling_checks: { volume: { profile_row_count: {} } },
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(1) } }, monthly: { schema: { monthly_column_count: {} } } },
    });
    const result = effectiveTableChecks(t, undefined, []);
    expect(summary(result)).toEqual([
      'monitoring.daily/volume/daily_row_count <- table',
      'monitoring.monthly/schema/monthly_column_count <- table',
      'profiling/volume/profile_row_count <- table',
    ]);
    expect(result.monitoring.daily.volume.daily_row_count).toEqual({ spec: rowCount(1), origin: { source: 'table' } });
    expect(result).toEqual(ownChecks(t.spec));
  });

  it('adds the checks of matching policies with their name and priority', () => {
    const policy = tablePolicy('volume/all tables', {
      priority: 10,
      target: { connection: 'shop' },
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(5) } } },
    });
    const result = effectiveTableChecks(table('shop/public.orders'), undefined, [policy]);
    expect(result.monitoring.daily.volume.daily_row_count).toEqual({
      spec: rowCount(5),
      origin: { source: 'policy', policyName: 'volume/all tables', priority: 10 },
    });
    expect(summary(effectiveTableChecks(table('crm/public.orders'), undefined, [policy]))).toEqual([]);
  });

  it('skips disabled policies', () => {
    const policy = tablePolicy('off', { disabled: true, monitoring_checks: { daily: { volume: { daily_row_count: rowCount(5) } } } });
    expect(summary(effectiveTableChecks(table('shop/public.orders'), undefined, [policy]))).toEqual([]);
  });

  it('lets checks written in the table win over every policy, even disabled ones', () => {
    const policy = tablePolicy('p', {
      priority: 1,
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(5), daily_row_count_change: {} } } },
    });
    const t = table('shop/public.orders', {
      monitoring_checks: { daily: { volume: { daily_row_count: { disabled: true, error: { min_count: 1 } } } } },
    });
    const result = effectiveTableChecks(t, undefined, [policy]);
    expect(result.monitoring.daily.volume.daily_row_count).toEqual({ spec: { disabled: true, error: { min_count: 1 } }, origin: { source: 'table' } });
    expect(result.monitoring.daily.volume.daily_row_count_change.origin).toMatchObject({ source: 'policy', policyName: 'p' });
  });

  it('applies policies in ascending priority, check by check: the lower number wins each check', () => {
    const low = tablePolicy('low-number', {
      priority: 10,
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(10) } } },
    });
    const high = tablePolicy('high-number', {
      priority: 500,
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(500), daily_row_count_anomaly: {} } } },
      profiling_checks: { volume: { profile_row_count: rowCount(500) } },
    });
    const defaulted = tablePolicy('no-priority', {
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(1000), daily_row_count_anomaly: { warning: {} } } } },
      profiling_checks: { volume: { profile_row_count: rowCount(1000) } },
    });
    for (const order of [[low, high, defaulted], [defaulted, high, low], [high, defaulted, low]]) {
      const result = effectiveTableChecks(table('shop/public.orders'), undefined, order);
      expect(summary(result)).toEqual([
        'monitoring.daily/volume/daily_row_count <- low-number',
        'monitoring.daily/volume/daily_row_count_anomaly <- high-number',
        'profiling/volume/profile_row_count <- high-number',
      ]);
      expect(result.monitoring.daily.volume.daily_row_count.spec).toEqual(rowCount(10));
    }
  });

  it('breaks priority ties by policy name', () => {
    const b = tablePolicy('b', { priority: 5, profiling_checks: { volume: { profile_row_count: rowCount(2) } } });
    const a = tablePolicy('a', { priority: 5, profiling_checks: { volume: { profile_row_count: rowCount(1) } } });
    expect(effectiveTableChecks(table('s/p.t'), undefined, [b, a]).profiling.volume.profile_row_count.spec).toEqual(rowCount(1));
  });

  it('applies partitioned checks of policies only to tables with a partition_by_column', () => {
    const policy = tablePolicy('p', {
      partitioned_checks: {
        daily: { volume: { daily_partition_row_count: rowCount(1) } },
        monthly: { volume: { monthly_partition_row_count: rowCount(1) } },
      },
      monitoring_checks: { daily: { volume: { daily_row_count: rowCount(1) } } },
    });
    expect(summary(effectiveTableChecks(table('s/p.plain'), undefined, [policy]))).toEqual([
      'monitoring.daily/volume/daily_row_count <- p',
    ]);
    expect(summary(effectiveTableChecks(table('s/p.events', { timestamp_columns: { event_timestamp_column: 'ts' } }), undefined, [policy]))).toEqual([
      'monitoring.daily/volume/daily_row_count <- p',
    ]);
    expect(summary(effectiveTableChecks(table('s/p.events', { timestamp_columns: { partition_by_column: 'day' } }), undefined, [policy]))).toEqual([
      'monitoring.daily/volume/daily_row_count <- p',
      'partitioned.daily/volume/daily_partition_row_count <- p',
      'partitioned.monthly/volume/monthly_partition_row_count <- p',
    ]);
  });

  it('keeps a table\'s own partitioned checks without a partition column (validation warns about them)', () => {
    const t = table('s/p.t', { partitioned_checks: { daily: { volume: { daily_partition_row_count: {} } } } });
    expect(summary(effectiveTableChecks(t, undefined, []))).toEqual(['partitioned.daily/volume/daily_partition_row_count <- table']);
  });

  it('gives a disabled table nothing from policies but keeps its own checks', () => {
    const policy = tablePolicy('p', { profiling_checks: { volume: { profile_row_count: {} } } });
    const t = table('s/p.t', { disabled: true, monitoring_checks: { daily: { volume: { daily_row_count: {} } } } });
    expect(summary(effectiveTableChecks(t, undefined, [policy]))).toEqual(['monitoring.daily/volume/daily_row_count <- table']);
  });

  it('ignores checks written as null and the comparisons category', () => {
    const policy = tablePolicy('p', {
      profiling_checks: {
        volume: { profile_row_count: null, profile_row_count_change: {} },
        comparisons: { compare_to_dwh: { profile_row_count_match: {} } },
      },
    });
    const t = table('s/p.t', { profiling_checks: { comparisons: { cmp: { profile_row_count_match: {} } }, volume: { profile_row_count: null } } });
    expect(summary(effectiveTableChecks(t, undefined, [policy]))).toEqual(['profiling/volume/profile_row_count_change <- p']);
  });

  it('does not apply column policies to tables, nor table policies to columns', () => {
    const t = table('s/p.t', { columns: { id: {} } });
    const columnOnly = columnPolicy('c', { profiling_checks: { nulls: { profile_nulls_count: {} } } });
    const tableOnly = tablePolicy('t', { profiling_checks: { volume: { profile_row_count: {} } } });
    expect(summary(effectiveTableChecks(t, undefined, [columnOnly, tableOnly]))).toEqual(['profiling/volume/profile_row_count <- t']);
    expect(summary(effectiveColumnChecks(t, 'id', undefined, [columnOnly, tableOnly]))).toEqual(['profiling/nulls/profile_nulls_count <- c']);
  });

  it('shares the spec objects with its inputs instead of copying them', () => {
    const spec = { error: { min_count: 3 } };
    const policy = tablePolicy('p', { profiling_checks: { volume: { profile_row_count: spec } } });
    expect(effectiveTableChecks(table('s/p.t'), undefined, [policy]).profiling.volume.profile_row_count.spec).toBe(spec);
  });
});

describe('effectiveColumnChecks', () => {
  const t = table('shop/public.customers', {
    labels: ['crm'],
    timestamp_columns: { partition_by_column: 'created_at' },
    columns: {
      email: {
        type_snapshot: { column_type: 'varchar(320)' },
        labels: ['pii'],
        monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } },
      },
      id: { type_snapshot: { column_type: 'int8' } },
      legacy: { disabled: true, type_snapshot: { column_type: 'text' } },
    },
  });
  const policies = compilePolicies([
    columnPolicy('pii', {
      priority: 1,
      target: { label: 'pii' },
      monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 10 } } }, pii: { daily_contains_email_percent: {} } } },
    }),
    columnPolicy('texts', {
      priority: 2,
      target: { data_type_category: 'text' },
      monitoring_checks: { daily: { whitespace: { daily_empty_text_found: {} } } },
      partitioned_checks: { daily: { nulls: { daily_partition_nulls_count: {} } } },
    }),
    columnPolicy('ids', { target: { column: 'id', data_type: 'int8' }, profiling_checks: { uniqueness: { profile_duplicate_count: {} } } }),
  ]);

  it('merges the column\'s own checks with the matching column policies', () => {
    expect(summary(effectiveColumnChecks(t, 'email', undefined, policies))).toEqual([
      'monitoring.daily/nulls/daily_nulls_count <- table',
      'monitoring.daily/pii/daily_contains_email_percent <- pii',
      'monitoring.daily/whitespace/daily_empty_text_found <- texts',
      'partitioned.daily/nulls/daily_partition_nulls_count <- texts',
    ]);
    expect(summary(effectiveColumnChecks(t, 'id', undefined, policies))).toEqual(['profiling/uniqueness/profile_duplicate_count <- ids']);
  });

  it('gives a disabled column, or any column of a disabled table, nothing from policies', () => {
    expect(summary(effectiveColumnChecks(t, 'legacy', undefined, policies))).toEqual([]);
    const disabledTable = table('shop/public.customers', { ...t.spec, disabled: true });
    expect(summary(effectiveColumnChecks(disabledTable, 'email', undefined, policies))).toEqual(['monitoring.daily/nulls/daily_nulls_count <- table']);
  });

  it('effectiveTableAndColumnChecks gives the same results for the table and every listed column', () => {
    const both = effectiveTableAndColumnChecks(t, undefined, policies);
    expect(Object.keys(both.columns)).toEqual(['email', 'id', 'legacy']);
    for (const column of ['email', 'id', 'legacy']) expect(both.columns[column]).toEqual(effectiveColumnChecks(t, column, undefined, policies));
    expect(both.table).toEqual(effectiveTableChecks(t, undefined, policies));
  });

  it('effectiveContainer picks one container', () => {
    const result = effectiveColumnChecks(t, 'email', undefined, policies);
    expect(effectiveContainer(result, 'monitoring', 'daily')).toBe(result.monitoring.daily);
    expect(effectiveContainer(result, 'partitioned', 'monthly')).toBe(result.partitioned.monthly);
    expect(effectiveContainer(result, 'profiling', null)).toBe(result.profiling);
  });
});
