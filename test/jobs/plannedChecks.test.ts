import { describe, expect, it } from 'vitest';
import { plannedChecksOfTable, refuseUnsupportedCheckFilters, selectTables, type CheckSearchFilters } from '../../src/jobs/checkRun/plannedChecks.js';
import type { JsonObject, LiveObject } from '../../src/model/index.js';
import { compilePolicies } from '../../src/policy/index.js';

/** Which checks a run selects: each CheckSearchFilters field narrows, none is ignored. */
const daily = (checks: JsonObject) => ({ monitoring_checks: { daily: checks } });
const TABLE_SPEC: JsonObject = {
  labels: ['finance'],
  ...daily({ volume: { daily_row_count: { error: { min_count: 1 } } } }),
  columns: {
    id: { type_snapshot: { column_type: 'bigint', nullable: false }, labels: ['key'], ...daily({ nulls: { daily_nulls_count: {} } }) },
    email: { type_snapshot: { column_type: 'text', nullable: true }, ...daily({ nulls: { daily_nulls_count: {} }, patterns: { daily_invalid_email_format_found: {} } }) },
  },
};
const table = { connection: 'shop', schema: 'public', table: 'orders', spec: TABLE_SPEC };
const connection: JsonObject = { provider_type: 'postgresql', labels: ['oltp'] };

const planned = (filters: CheckSearchFilters) =>
  plannedChecksOfTable(table, connection, compilePolicies([]), filters)
    .map((c) => `${c.column ?? '(table)'}:${c.checkName}`)
    .sort();

describe('planned checks and their filters', () => {
  it('checkTarget, columnNullable and labels narrow the checks', () => {
    expect(planned({})).toHaveLength(4);
    expect(planned({ checkTarget: 'table' })).toEqual(['(table):daily_row_count']);
    expect(planned({ checkTarget: 'column' })).toEqual(['email:daily_invalid_email_format_found', 'email:daily_nulls_count', 'id:daily_nulls_count']);
    expect(planned({ columnNullable: true })).toEqual(['email:daily_invalid_email_format_found', 'email:daily_nulls_count']);
    expect(planned({ columnNullable: false })).toEqual(['id:daily_nulls_count']);
    // labels of the connection, the table and (for column checks) the column; each must match
    expect(planned({ labels: ['fin*', 'oltp'] })).toHaveLength(4);
    expect(planned({ labels: ['key'] })).toEqual(['id:daily_nulls_count']);
    expect(planned({ labels: ['nowhere'] })).toEqual([]);
  });

  it('selectTables keeps disabled tables out unless enabled: false asks for them', () => {
    const live = (name: string, spec: JsonObject) => ({ kind: 'table', name, spec }) as unknown as LiveObject;
    const tables = [live('shop/public.a', {}), live('shop/public.b', { disabled: true }), live('crm/public.a', {})];
    expect(selectTables(tables, { connection: 'shop' }).map((t) => t.table)).toEqual(['a']);
    expect(selectTables(tables, { enabled: false }).map((t) => `${t.connection}/${t.table}`)).toEqual(['shop/b']);
  });

  it('filters a run could only ignore are refused', () => {
    expect(() => refuseUnsupportedCheckFilters({ check_search_filters: { tags: ['eu'] } })).toThrow(/tags is not supported/);
    expect(() => refuseUnsupportedCheckFilters({ check_search_filters: { qualityDimension: 'Validity' } })).toThrow(/qualityDimension/);
    expect(() => refuseUnsupportedCheckFilters({ check_search_filters: { connection: 'x', tags: [] } })).not.toThrow();
  });
});
