import { describe, expect, it } from 'vitest';
import { ownCheckRowIdentity } from '../../src/app/dqopsRowIdentity.js';
import { combineOrdered, fingerprintLong, fingerprintText, hierarchyHash, packedLocalDateTime, uuidOfLongs } from '../../src/model/index.js';

/** The identity of a row of dqctl's own run as DQOps would give it: paths in DQOps's metadata tree, its packed time. */
describe("DQOps's identity of an exported row of dqctl's own", () => {
  it('hashes a path of names: each fingerprinted, combined in order, non-negative', () => {
    const combined = combineOrdered([fingerprintText('connections'), fingerprintText('shop'), fingerprintText('spec')]);
    expect(hierarchyHash(['connections', 'shop', 'spec'])).toBe(combined < 0n ? -combined : combined);
  });

  it("packs a local date-time as DQOps's table library does (date high, hour/minute/millisecond of minute low)", () => {
    // 2024-03-30: 2024 << 16 | 3 << 8 | 30 = 132,644,864 + 768 + 30 = 132,645,662
    expect(packedLocalDateTime('2024-03-30 00:00:00')).toBe(132645662n << 32n);
    // 01:02:03.456: 1 << 24 | 2 << 16 | 3,456 = 16,777,216 + 131,072 + 3,456 = 16,911,744
    expect(packedLocalDateTime('2024-03-30T01:02:03.456789')).toBe((132645662n << 32n) | 16911744n);
  });

  const row = {
    connection_name: 'shop',
    schema_name: 'public',
    table_name: 'orders',
    column_name: 'amount',
    check_type: 'monitoring',
    time_gradient: 'day',
    check_category: 'nulls',
    check_name: 'daily_nulls_count',
    time_period: '2024-03-30 00:00:00.000000',
    data_group_name: 'all data',
  };

  it('computes the connection, table, column and check hashes from their paths, and the ids of an ungrouped row', () => {
    const table = ['connections', 'shop', 'tables', 'public.orders', 'spec'];
    const column = [...table, 'columns', 'amount'];
    const check = hierarchyHash([...column, 'monitoring_checks', 'daily', 'nulls', 'daily_nulls_count']);
    const [tableHash, columnHash] = [hierarchyHash(table), hierarchyHash(column)];
    const period = fingerprintLong(132645662n << 32n);
    expect(ownCheckRowIdentity(row)).toEqual({
      connection_hash: hierarchyHash(['connections', 'shop', 'spec']).toString(),
      table_hash: tableHash.toString(),
      column_hash: columnHash.toString(),
      check_hash: check.toString(),
      data_group_hash: '0',
      time_series_id: uuidOfLongs(check, tableHash ^ columnHash),
      id: uuidOfLongs(check ^ period, tableHash ^ columnHash ^ ~period),
    });
  });

  it('a table check has no column hash; a profiling check no time scale; a comparison its own branch', () => {
    const table = ['connections', 'shop', 'tables', 'public.orders', 'spec'];
    const profiling = ownCheckRowIdentity({ ...row, column_name: null, check_type: 'profiling', time_gradient: 'day', check_name: 'profile_row_count', check_category: 'volume' })!;
    expect(profiling.column_hash).toBeNull();
    expect(profiling.check_hash).toBe(hierarchyHash([...table, 'profiling_checks', 'volume', 'profile_row_count']).toString());
    const compared = ownCheckRowIdentity({ ...row, column_name: null, table_comparison: 'vs_dwh', check_category: 'comparisons', check_name: 'daily_row_count_match' })!;
    expect(compared.check_hash).toBe(hierarchyHash([...table, 'monitoring_checks', 'daily', 'comparisons', 'vs_dwh', 'daily_row_count_match']).toString());
  });

  it('a row of a data group gets the hashes but keeps no DQOps id (its data group hash needs the grouping levels)', () => {
    const grouped = ownCheckRowIdentity({ ...row, data_group_name: 'EU' })!;
    expect(grouped.check_hash).toBeDefined();
    expect(grouped.id).toBeUndefined();
    expect(grouped.data_group_hash).toBeUndefined();
  });
});
