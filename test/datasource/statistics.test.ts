import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectTableStatistics, DataSources, type StatisticsValue } from '../../src/datasource/index.js';
import { createSourceFixture, INJECTION_COLUMN, SCHEMA, SEED_SQL, TABLE, type SourceFixture } from './sourceFixture.js';

const EXTRA = `
create table public.empty (n int, t text);
create table public.all_null (n int, t text);
insert into public.all_null values (null, null), (null, null);
create table public.wide as select g, g / 2 as half, (g % 7)::text as seven from generate_series(1, 30000) as g;
`;

/** statistic → value, for one column (or the table: null) and one data group. */
function byCollector(values: readonly StatisticsValue[], column: string | null, dataGroup = 'all data'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of values.filter((v) => v.columnName === column && v.dataGroup === dataGroup)) {
    out[v.collector] = v.json ?? (v.double !== null && v.text !== null ? [v.double, v.text] : (v.double ?? v.text));
  }
  return out;
}

describe('statistics of a table with hostile names, every value asserted', () => {
  let source: SourceFixture;
  let registry: DataSources;
  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL + EXTRA);
    registry = new DataSources({ env: source.env });
  });
  afterAll(async () => {
    await registry.close();
    await source.dispose();
  });

  it('whole table: row count, nulls, distinct, min, max, mean, text lengths, most common values', async () => {
    const stats = await collectTableStatistics(registry.get('src', source.spec()), { schema: SCHEMA, table: TABLE });
    const v = stats.values;
    expect(byCollector(v, null)).toEqual({ row_count: 6 });
    expect(byCollector(v, 'Line ID')).toEqual({
      nulls_count: 0, nulls_percent: 0, distinct_count: 6, distinct_percent: 100, duplicate_count: 0,
      min_value: [1, '1'], max_value: [6, '6'], mean_value: 3.5,
      // every value once: the first ones by text
      top_values: [1, 2, 3, 4, 5].map((n) => ({ value: String(n), count: 1 })),
    });
    expect(byCollector(v, 'Ünit Price')).toEqual({
      nulls_count: 2, nulls_percent: (2 * 100) / 6, distinct_count: 3, distinct_percent: 75, duplicate_count: 1,
      min_value: [4.25, '4.25'], max_value: [20, '20.00'], mean_value: 11.3125,
      top_values: [{ value: '10.50', count: 2 }, { value: '20.00', count: 1 }, { value: '4.25', count: 1 }],
    });
    expect(byCollector(v, 'Product Name')).toEqual({
      nulls_count: 1, nulls_percent: 100 / 6, distinct_count: 4, distinct_percent: 80, duplicate_count: 1,
      min_value: 'apple', max_value: 'Äpfel',
      text_min_length: 4, text_max_length: 10, text_mean_length: 5.8,
      top_values: [{ value: 'apple', count: 2 }, { value: 'kiwi fruit', count: 1 }, { value: 'pear', count: 1 }, { value: 'Äpfel', count: 1 }],
    });
    expect(byCollector(v, 'created_at')).toEqual({
      nulls_count: 1, nulls_percent: 100 / 6, distinct_count: 5, distinct_percent: 100, duplicate_count: 0,
      min_value: '2024-01-01 10:00:00+00', max_value: '2024-01-05 10:00:00+00',
      top_values: [1, 2, 3, 4, 5].map((d) => ({ value: `2024-01-0${d} 10:00:00+00`, count: 1 })),
    });
    expect(byCollector(v, 'Flag')).toEqual({
      nulls_count: 1, nulls_percent: 100 / 6, distinct_count: 2, distinct_percent: 40, duplicate_count: 3,
      top_values: [{ value: 'true', count: 3 }, { value: 'false', count: 2 }],
    });
    // jsonb has no min / max; it is counted and ranked by its text
    expect(byCollector(v, 'doc')).toEqual({
      nulls_count: 2, nulls_percent: (2 * 100) / 6, distinct_count: 2, distinct_percent: 50, duplicate_count: 2,
      top_values: [{ value: '{"a": 1}', count: 3 }, { value: '{"b": 2}', count: 1 }],
    });
    expect(byCollector(v, 'Region.Code')).toMatchObject({
      nulls_count: 1, distinct_count: 2, min_value: 'EU-E', max_value: 'EU-W', text_min_length: 4, text_max_length: 4, text_mean_length: 4,
      top_values: [{ value: 'EU-W', count: 3 }, { value: 'EU-E', count: 2 }],
    });
    expect(byCollector(v, INJECTION_COLUMN)).toMatchObject({
      nulls_count: 0, distinct_count: 3, min_value: [0, '0'], max_value: [2, '2'], mean_value: 7 / 6,
      top_values: [{ value: '1', count: 3 }, { value: '2', count: 2 }, { value: '0', count: 1 }],
    });
    // the "injection" column name was an identifier, nothing more: the source is intact
    const [{ n }] = await source.admin<{ n: number }>(`select count(*)::int as n from "Sales ""EU"""."order lines.2024"`);
    expect(n).toBe(6);
    // row_count; 9 collectors per number (3), 11 per text (2), 8 for the timestamp, 6 for the boolean and the json
    expect(v).toHaveLength(1 + 9 * 3 + 11 * 2 + 8 + 6 + 6);
  });

  it('per data group: GROUP BY the grouping columns, tags in the group name, most common values per group', async () => {
    const stats = await collectTableStatistics(registry.get('src', source.spec()), {
      schema: SCHEMA,
      table: TABLE,
      grouping: [{ column: 'Region.Code' }, { tag: 'eu' }],
      selectColumns: (columns) => columns.filter((c) => ['Ünit Price', 'Flag', 'Region.Code'].includes(c.name)),
    });
    const groups = [...new Set(stats.values.map((v) => v.dataGroup))];
    expect(groups).toEqual(['EU-E / eu', 'EU-W / eu', '(null) / eu']);
    expect(byCollector(stats.values, null, 'EU-W / eu')).toEqual({ row_count: 3 });
    expect(byCollector(stats.values, 'Ünit Price', 'EU-W / eu')).toMatchObject({
      nulls_count: 0, distinct_count: 3, mean_value: 34.75 / 3,
      top_values: [{ value: '10.50', count: 1 }, { value: '20.00', count: 1 }, { value: '4.25', count: 1 }],
    });
    expect(byCollector(stats.values, 'Ünit Price', '(null) / eu')).toMatchObject({ nulls_count: 1, distinct_count: 0, mean_value: null, top_values: [] });
    expect(byCollector(stats.values, 'Flag', 'EU-W / eu')).toMatchObject({ top_values: [{ value: 'true', count: 2 }, { value: 'false', count: 1 }] });
    expect(byCollector(stats.values, 'Flag', 'EU-E / eu')).toMatchObject({ nulls_count: 1, top_values: [{ value: 'true', count: 1 }] });
    // the grouping column itself: one value per group
    expect(byCollector(stats.values, 'Region.Code', 'EU-E / eu')).toMatchObject({ distinct_count: 1, top_values: [{ value: 'EU-E', count: 2 }] });
    expect(byCollector(stats.values, 'Region.Code', '(null) / eu')).toMatchObject({ nulls_count: 1, top_values: [] });
  });

  it('most common values of a column of many distinct values (a query of its own) next to few (grouping sets) and unique ones', async () => {
    const stats = await collectTableStatistics(registry.get('src', source.spec()), { schema: 'public', table: 'wide', collectors: { names: new Set(['distinct_count', 'top_values']) } });
    // half = g / 2: 0 and 15000 once, every other value twice; ties by text
    expect(byCollector(stats.values, 'half')).toEqual({
      distinct_count: 15001,
      top_values: ['1', '10', '100', '1000', '10000'].map((value) => ({ value, count: 2 })),
    });
    // g % 7 over 1..30000: 1 to 5 occur 4286 times, 0 and 6 4285 times
    expect(byCollector(stats.values, 'seven')).toEqual({ distinct_count: 7, top_values: ['1', '2', '3', '4', '5'].map((value) => ({ value, count: 4286 })) });
    expect(byCollector(stats.values, 'g')).toEqual({ distinct_count: 30000, top_values: ['1', '10', '100', '1000', '10000'].map((value) => ({ value, count: 1 })) });
  });

  it('collector selection by category and name; the number of top values', async () => {
    const ds = registry.get('src', source.spec());
    const nullsOnly = await collectTableStatistics(ds, { schema: SCHEMA, table: TABLE, collectors: { categories: new Set(['nulls']) } });
    expect(new Set(nullsOnly.values.map((v) => v.collector))).toEqual(new Set(['nulls_count', 'nulls_percent']));
    expect(nullsOnly.tableCollectors).toEqual([]);
    const top2 = await collectTableStatistics(ds, { schema: SCHEMA, table: TABLE, collectors: { names: new Set(['top_values']) }, topValues: 2 });
    expect(byCollector(top2.values, 'Product Name')).toEqual({ top_values: [{ value: 'apple', count: 2 }, { value: 'kiwi fruit', count: 1 }] });
  });

  it('an empty table and a column of nulls: counts are 0, the rest has no value', async () => {
    const ds = registry.get('src', source.spec());
    const empty = await collectTableStatistics(ds, { schema: 'public', table: 'empty' });
    expect(byCollector(empty.values, null)).toEqual({ row_count: 0 });
    expect(byCollector(empty.values, 'n')).toEqual({
      nulls_count: 0, nulls_percent: null, distinct_count: 0, distinct_percent: null, duplicate_count: 0,
      min_value: null, max_value: null, mean_value: null, top_values: [],
    });
    const nulls = await collectTableStatistics(ds, { schema: 'public', table: 'all_null' });
    expect(byCollector(nulls.values, 't')).toEqual({
      nulls_count: 2, nulls_percent: 100, distinct_count: 0, distinct_percent: null, duplicate_count: 0,
      min_value: null, max_value: null, text_min_length: null, text_max_length: null, text_mean_length: null, top_values: [],
    });
  });

  it('a table that does not exist fails with reason table_missing', async () => {
    const error = await collectTableStatistics(registry.get('src', source.spec()), { schema: 'public', table: 'gone' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'DATASOURCE_QUERY_FAILED', details: { reason: 'table_missing' } });
    expect(error.message).toContain('public.gone');
  });

  it('more data groups than allowed fail the table instead of writing thousands of rows', async () => {
    const error = await collectTableStatistics(registry.get('src', source.spec()), { schema: SCHEMA, table: TABLE, grouping: [{ column: 'Line ID' }], maxDataGroups: 5 }).catch((e) => e);
    expect(error.message).toContain('more than 5 data groups');
  });
});
