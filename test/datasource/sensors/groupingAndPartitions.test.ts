import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTableQuery, planSensorQueries, splitScan, type SensorReadout, type SensorRequest, type TableQueryRequest } from '../../../src/datasource/sensors/index.js';
import { openSensorDatabase, rounded, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * Data groupings (GROUP BY the grouping columns, group names joined with ', ') and partitioned checks
 * (GROUP BY the day or month of the partition column over the incremental time window) on eleven events whose
 * days, groups and values are known. NOW is Saturday 2024-06-15 12:00 UTC; the session time zone is UTC.
 */
const SCHEMA = 'Évents';
const TABLE = 'Daily "events"';
const REGION = 'Region "R"';
const DAY = 'Event.Day';
const NOW = new Date('2024-06-15T12:00:00Z');

const SEED = `
create schema "Évents";
create table "Évents"."Daily ""events""" ("Region ""R""" text, kind text, "Event.Day" timestamptz, value int, ingested timestamptz);
insert into "Évents"."Daily ""events""" values
  ('north', 'a', '2024-06-14 10:00Z', 1,    '2024-06-14 12:00Z'),
  ('north', 'a', '2024-06-14 23:00Z', null, '2024-06-15 01:00Z'),
  ('south', 'b', '2024-06-14 05:00Z', 3,    '2024-06-14 07:00Z'),
  ('north', 'b', '2024-06-13 00:00Z', 4,    '2024-06-13 02:00Z'),
  (null,    'a', '2024-06-13 12:00Z', 5,    '2024-06-13 14:00Z'),
  ('south', 'a', '2024-06-15 01:00Z', 6,    '2024-06-15 07:00Z'),
  ('south', 'b', '2024-06-07 12:00Z', 7,    '2024-06-07 14:00Z'),
  ('north', 'a', '2024-06-08 00:00Z', 8,    '2024-06-08 02:00Z'),
  ('north', 'a', '2024-05-20 00:00Z', 9,    '2024-05-20 02:00Z'),
  ('south', 'b', '2024-04-30 23:59Z', 10,   '2024-05-01 01:59Z'),
  ('south', 'b', '2024-03-31 00:00Z', 11,   '2024-03-31 02:00Z');
`;

const SENSORS: SensorRequest[] = [
  { id: 'rows', sensorName: 'table/volume/row_count' },
  { id: 'sum', sensorName: 'column/numeric/sum', column: 'value' },
  { id: 'nulls', sensorName: 'column/nulls/null_count', column: 'value' },
];

/** `group|period` → value, for compact expectations. */
function table(readouts: SensorReadout[] | undefined): Record<string, number | null> {
  return Object.fromEntries((readouts ?? []).map((r) => [r.timePeriod === undefined ? r.dataGroup : `${r.dataGroup}|${r.timePeriod}`, rounded(r.actualValue)]));
}

describe('data groupings and partitions', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(SEED);
  });
  afterAll(async () => {
    await db?.close();
  });

  const base = (extra: Partial<TableQueryRequest>): TableQueryRequest => ({ schema: SCHEMA, table: TABLE, now: NOW, sensors: SENSORS, ...extra });

  it('groups by two columns: one readout per combination, named by the values joined with ", " (NULL is "null")', async () => {
    const { readouts, queries } = await db.measure(base({ grouping: { columns: [REGION, 'kind'] } }));
    expect(queries).toHaveLength(1);
    expect(table(readouts.get('rows'))).toEqual({ 'north, a': 4, 'north, b': 1, 'null, a': 1, 'south, a': 1, 'south, b': 4 });
    expect(table(readouts.get('sum'))).toEqual({ 'north, a': 18, 'north, b': 4, 'null, a': 5, 'south, a': 6, 'south, b': 31 });
    expect(table(readouts.get('nulls'))).toEqual({ 'north, a': 1, 'north, b': 0, 'null, a': 0, 'south, a': 0, 'south, b': 0 });
  });

  it('groups by levels mixing static tags and columns (a tag only names the group)', async () => {
    const { readouts } = await db.measure(base({ grouping: { levels: [{ tag: 'eu' }, { column: REGION }, { tag: 'v1' }] } }));
    expect(table(readouts.get('rows'))).toEqual({ 'eu, north, v1': 5, 'eu, null, v1': 1, 'eu, south, v1': 5 });
  });

  it('a failing merged scan is split into one query per sensor, which pins the error on its sensor', async () => {
    const request = base({ sensors: [...SENSORS, { id: 'min of text', sensorName: 'column/range/min_value', column: 'kind' }] });
    const [merged] = planSensorQueries(request).queries;
    await expect(db.run(merged!)).rejects.toThrow(/double precision/);
    const outcomes: Record<string, unknown> = {};
    for (const query of splitScan(request, merged!)) {
      outcomes[query.sensorIds.join()] = await db.run(query).then(
        (readouts) => readouts.get(query.sensorIds[0]!)![0]!.actualValue,
        (error: Error) => error.message,
      );
    }
    expect(outcomes).toEqual({ rows: 11, sum: 64, nulls: 1, 'min of text': expect.stringMatching(/double precision/) });
  });

  it('daily partitions over the 7 days before today (today excluded by default)', async () => {
    const { readouts } = await db.measure(base({ partitioning: { column: DAY, timeScale: 'daily', window: { recentDays: 7 } } }));
    expect(table(readouts.get('rows'))).toEqual({ 'all data|2024-06-08': 1, 'all data|2024-06-13': 2, 'all data|2024-06-14': 3 });
    expect(table(readouts.get('sum'))).toEqual({ 'all data|2024-06-08': 8, 'all data|2024-06-13': 9, 'all data|2024-06-14': 4 });
  });

  it('daily partitions including today, and a shorter window', async () => {
    const withToday = await db.measure(base({ partitioning: { column: DAY, timeScale: 'daily', window: { recentDays: 7, includeToday: true } } }));
    expect(table(withToday.readouts.get('rows'))).toEqual({ 'all data|2024-06-08': 1, 'all data|2024-06-13': 2, 'all data|2024-06-14': 3, 'all data|2024-06-15': 1 });
    const twoDays = await db.measure(base({ partitioning: { column: DAY, timeScale: 'daily', window: { recentDays: 2 } } }));
    expect(table(twoDays.readouts.get('rows'))).toEqual({ 'all data|2024-06-13': 2, 'all data|2024-06-14': 3 });
  });

  it('monthly partitions over the 2 months before this one, and with the current month', async () => {
    const previous = await db.measure(base({ partitioning: { column: DAY, timeScale: 'monthly', window: { recentMonths: 2 } } }));
    expect(table(previous.readouts.get('rows'))).toEqual({ 'all data|2024-04-01': 1, 'all data|2024-05-01': 1 });
    const current = await db.measure(base({ partitioning: { column: DAY, timeScale: 'monthly', window: { recentMonths: 2, includeToday: true } } }));
    expect(table(current.readouts.get('rows'))).toEqual({ 'all data|2024-04-01': 1, 'all data|2024-05-01': 1, 'all data|2024-06-01': 8 });
    expect(table(current.readouts.get('sum'))).toEqual({ 'all data|2024-04-01': 10, 'all data|2024-05-01': 9, 'all data|2024-06-01': 34 });
  });

  it('groups and partitions together, and binds the window (no dates or counts in the SQL text)', async () => {
    const request = base({ grouping: { columns: [REGION] }, partitioning: { column: DAY, timeScale: 'daily', window: { recentDays: 7 } } });
    const query = buildTableQuery(request);
    expect(query.text).not.toMatch(/2024|interval '7/);
    expect(query.values).toContain(7);
    expect(query.values).toContain(NOW.toISOString());
    const readouts = await db.run(query);
    expect(table(readouts.get('rows'))).toEqual({
      'north|2024-06-08': 1,
      'north|2024-06-13': 1,
      'north|2024-06-14': 2,
      'null|2024-06-13': 1,
      'south|2024-06-14': 1,
    });
  });

  it('timeliness in days against the bound run time, and per partition', async () => {
    const request = base({
      timestampColumns: { eventTimestampColumn: DAY, ingestionTimestampColumn: 'ingested' },
      sensors: [
        { id: 'freshness', sensorName: 'table/timeliness/data_freshness' },
        { id: 'staleness', sensorName: 'table/timeliness/data_staleness' },
        { id: 'delay', sensorName: 'table/timeliness/data_ingestion_delay' },
        { id: 'lag', sensorName: 'table/timeliness/partition_reload_lag' },
      ],
    });
    const { readouts } = await db.measure(request);
    expect(table(readouts.get('freshness'))).toEqual({ 'all data': rounded(11 / 24) }); // 12:00 - 01:00
    expect(table(readouts.get('staleness'))).toEqual({ 'all data': rounded(5 / 24) }); // 12:00 - 07:00
    expect(table(readouts.get('delay'))).toEqual({ 'all data': rounded(6 / 24) }); // 07:00 - 01:00
    expect(table(readouts.get('lag'))).toEqual({ 'all data': rounded(6 / 24) }); // the longest row delay
    const partitioned = await db.measure({
      ...request,
      sensors: request.sensors.filter((s) => s.id === 'lag' || s.id === 'delay'),
      partitioning: { column: DAY, timeScale: 'daily', window: { recentDays: 2 } },
    });
    expect(table(partitioned.readouts.get('lag'))).toEqual({ 'all data|2024-06-13': rounded(2 / 24), 'all data|2024-06-14': rounded(2 / 24) });
    // 06-14: newest ingestion 06-15 01:00, newest event 06-14 23:00
    expect(table(partitioned.readouts.get('delay'))).toEqual({ 'all data|2024-06-13': rounded(2 / 24), 'all data|2024-06-14': rounded(2 / 24) });
  });

  it('rejects timeliness sensors when the table has no timestamp columns, and keeps the others', () => {
    const plan = planSensorQueries(base({ sensors: [...SENSORS, { id: 'freshness', sensorName: 'table/timeliness/data_freshness' }] }));
    expect(plan.rejected).toEqual([{ id: 'freshness', sensorName: 'table/timeliness/data_freshness', reason: expect.stringMatching(/event_timestamp_column/) }]);
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.sensorIds).toEqual(['rows', 'sum', 'nulls']);
  });

  it('top values in a query of its own, per data group and partition', async () => {
    const plan = planSensorQueries(
      base({
        grouping: { columns: [REGION] },
        sensors: [...SENSORS, { id: 'top', sensorName: 'column/accepted_values/expected_texts_in_top_values_count', column: 'kind', parameters: { expected_values: ['a'], top: 1 } }],
      }),
    );
    expect(plan.queries.map((q) => q.kind)).toEqual(['scan', 'subquery']);
    const readouts = await db.run(plan.queries[1]!);
    // north: a 5, b 1 → top 1 is a; south: a 1, b 4 → b; null: a
    expect(table(readouts.get('top'))).toEqual({ north: 1, null: 1, south: 0 });
    const partitioned = await db.measure(
      base({
        partitioning: { column: DAY, timeScale: 'monthly', window: { recentMonths: 2 } },
        sensors: [{ id: 'top', sensorName: 'column/accepted_values/expected_texts_in_top_values_count', column: 'kind', parameters: { expected_values: ['b'], top: 1 } }],
      }),
    );
    expect(table(partitioned.readouts.get('top'))).toEqual({ 'all data|2024-04-01': 1, 'all data|2024-05-01': 0 });
  });

  it('sensors that cannot be grouped run ungrouped in a second scan; sensors that cannot be partitioned are rejected', async () => {
    const sensors: SensorRequest[] = [
      ...SENSORS,
      { id: 'invalid', sensorName: 'table/custom_sql/sql_invalid_record_count', parameters: { sql_query: 'select * from {table} where value > 5' } },
      { id: 'accuracy', sensorName: 'table/accuracy/total_row_count_match_percent', parameters: { referenced_table: TABLE } },
      { id: 'columns', sensorName: 'table/schema/column_count' },
    ];
    const grouped = planSensorQueries(base({ grouping: { columns: [REGION] }, sensors }));
    expect(grouped.rejected).toEqual([]);
    expect(grouped.queries.map((q) => [q.kind, q.sensorIds])).toEqual([
      ['scan', ['rows', 'sum', 'nulls']],
      ['scan', ['accuracy']],
      ['custom', ['invalid']],
      ['metadata', ['columns']],
    ]);
    const accuracy = await db.run(grouped.queries[1]!);
    expect(accuracy.get('accuracy')).toEqual([{ dataGroup: 'all data', actualValue: 11, expectedValue: 11 }]);
    const partitioned = planSensorQueries(base({ partitioning: { column: DAY, timeScale: 'daily' }, sensors }));
    expect(partitioned.rejected.map((r) => r.id).sort()).toEqual(['accuracy', 'columns', 'invalid']);
  });
});
