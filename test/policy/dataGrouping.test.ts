import { describe, expect, it } from 'vitest';
import { plannedChecksOfTable } from '../../src/jobs/checkRun/plannedChecks.js';
import { tableQueryRequestOf } from '../../src/jobs/checkRun/tableQueryRequest.js';
import type { JsonObject } from '../../src/model/index.js';
import { compilePolicies, dataGroupingLevelsOf } from '../../src/policy/index.js';

/** One rule for a table's data grouping, read by check runs, error samples and statistics alike. */
const byCountry: JsonObject = { level_1: { source: 'column_value', column: 'country' }, level_2: { source: 'tag', tag: 'eu' } };
const connection: JsonObject = { provider_type: 'postgresql', default_grouping_configuration: byCountry };

describe('dataGroupingLevelsOf', () => {
  it("uses the table's default grouping, named or 'default'", () => {
    const named = { default_grouping_name: 'by_city', groupings: { by_city: { level_1: { source: 'column_value', column: 'city' } } } };
    expect(dataGroupingLevelsOf(named, connection)).toEqual([{ column: 'city' }]);
    const unnamed = { groupings: { default: { level_3: { column: 'state' } } } };
    expect(dataGroupingLevelsOf(unnamed, connection)).toEqual([{ column: 'state' }]);
  });

  it("falls back to the connection's default grouping when the table has none", () => {
    expect(dataGroupingLevelsOf({}, connection)).toEqual([{ column: 'country' }, { tag: 'eu' }]);
    expect(dataGroupingLevelsOf({ default_grouping_name: 'missing', groupings: {} }, connection)).toEqual([{ column: 'country' }, { tag: 'eu' }]);
    expect(dataGroupingLevelsOf({}, undefined)).toEqual([]);
    expect(dataGroupingLevelsOf({}, { provider_type: 'postgresql' })).toEqual([]);
  });

  it('skips levels without a column or tag, and infers the source', () => {
    const grouping = { level_1: { source: 'column_value' }, level_2: { tag: 'static' }, level_4: { column: '' }, level_9: { column: 'last' } };
    expect(dataGroupingLevelsOf({ groupings: { default: grouping } }, undefined)).toEqual([{ tag: 'static' }, { column: 'last' }]);
  });

  it("a check run of a table that relies on its connection's grouping groups by it", () => {
    const table = { connection: 'shop', schema: 'public', table: 'orders', spec: { monitoring_checks: { daily: { volume: { daily_row_count: {} } } } } };
    const checks = plannedChecksOfTable(table, connection, compilePolicies([]), {});
    expect(checks).toHaveLength(1);
    const request = tableQueryRequestOf(checks, { now: new Date('2026-11-26T00:00:00Z'), grouping: true });
    expect(request.grouping).toEqual({ levels: [{ column: 'country' }, { tag: 'eu' }] });
    expect(tableQueryRequestOf(checks, { now: new Date('2026-11-26T00:00:00Z'), grouping: false }).grouping).toBeUndefined();
  });
});
