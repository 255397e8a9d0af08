import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SensorRequest, TableQueryRequest } from '../../../src/datasource/sensors/index.js';
import { openSensorDatabase, rounded, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * What is counted, and time, as DQOps's PostgreSQL sensors count it (issue 12): duplicate records, foreign keys
 * over a join that may match several rows, custom SQL conditions with NULLs and tokens, imported custom results,
 * availability of an empty table, and the unit of the timeliness sensors for each type snapshot. Every expected
 * value is worked out by hand in the comment beside it. The session time zone is UTC and NOW is fixed.
 */
const SCHEMA = 'Cnt "ünï"';
const NOW = new Date('2024-06-15T12:00:00Z');

const SEED = `
create schema "Cnt ""ünï""";
create table "Cnt ""ünï""".records ("Näme" text, n int, d date);
insert into "Cnt ""ünï""".records values
  ('x', 1, '2024-01-01'), ('x', 1, '2024-01-02'), ('x', 1, null),
  ('y', null, null), ('y', null, null),
  (null, null, null), (null, null, null),
  ('Z', 2, null), ('z', 2, null), (' z', 2, null);
create table "Cnt ""ünï""".no_rows ("Näme" text, n int, d date);
create table "Cnt ""ünï""".keys (k text);
insert into "Cnt ""ünï""".keys values ('x'), ('x'), ('y'), (null), ('Z');
create table "Cnt ""ünï""".times (e timestamptz, i timestamptz, d date, d2 date, l timestamp, t text);
insert into "Cnt ""ünï""".times values
  ('2024-06-10 10:00+00', '2024-06-12 09:00+00', '2024-06-10', '2024-06-13', '2024-06-10 06:00', '2024-06-10 10:00:00'),
  ('2024-06-11 12:00+00', '2024-06-11 18:00+00', '2024-06-11', '2024-06-11', '2024-06-11 18:00', '2024-06-09 10:00:00'),
  (null, null, null, null, null, null);
create schema plain;
create table plain.facts (v text);
insert into plain.facts values ('a'), (null), ('b');
`;

function sensor(sensorName: string, parameters?: SensorRequest['parameters'], column?: string): SensorRequest {
  return { id: 'v', sensorName, ...(column ? { column } : {}), ...(parameters ? { parameters } : {}) };
}

describe('counting and time as DQOps counts them', () => {
  let db: SensorDatabase;
  const measure = async (table: string, request: SensorRequest, extra: Partial<TableQueryRequest> = {}) => {
    const { readouts } = await db.measure({ schema: SCHEMA, table, now: NOW, sensors: [request], ...extra });
    return single(readouts, 'v');
  };
  beforeAll(async () => {
    db = await openSensorDatabase(SEED);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('duplicate records: records in more than one row, rows with all key columns NULL left out', async () => {
    // by Näme, the 8 rows with a name: x three times, y twice, Z, z, ' z' once each -> 2 repeated records
    expect((await measure('records', sensor('table/uniqueness/duplicate_record_count', { columns: ['Näme'] }))).actualValue).toBe(2);
    // 5 distinct names over those 8 rows: (1 - 5/8) x 100 = 37.5
    expect((await measure('records', sensor('table/uniqueness/duplicate_record_percent', { columns: ['Näme'] }))).actualValue).toBe(37.5);
    // by (n, d): rows with both NULL are left out (y, y, the two NULL rows); left (1,01-01), (1,01-02), (1,null), (2,null) x3
    // -> only (2, null) repeats: 1; 4 distinct over 6 rows: (1 - 4/6) x 100
    expect((await measure('records', sensor('table/uniqueness/duplicate_record_count', { columns: ['n', 'd'] }))).actualValue).toBe(1);
    expect(rounded((await measure('records', sensor('table/uniqueness/duplicate_record_percent', { columns: ['n', 'd'] }))).actualValue)).toBe(rounded(100 * (1 - 4 / 6)));
    // no columns listed: every column of the table's type snapshots, here all three; records with some value:
    // (x,1,01-01), (x,1,01-02), (x,1,null), (y,null,null) x2, (Z,2,null), (z,2,null), (' z',2,null) -> only y repeats
    const all = await measure('records', sensor('table/uniqueness/duplicate_record_count', { columns: [] }), { columnTypes: { Näme: 'text', n: 'integer', d: 'date' } });
    expect(all.actualValue).toBe(1);
    // grouped by n, by Näme within each group: n=1 x x x -> 1; n=NULL y y (the all-NULL rows left out) -> 1;
    // n=2 Z, z, ' z' -> none repeats, and the group still reads 0 (the ungrouped query keeps only repeated records)
    const grouped = await db.measure({ schema: SCHEMA, table: 'records', now: NOW, sensors: [sensor('table/uniqueness/duplicate_record_count', { columns: ['Näme'] })], grouping: { levels: [{ column: 'n' }] } });
    const byGroup = Object.fromEntries((grouped.readouts.get('v') ?? []).map((r) => [r.dataGroup, r.actualValue]));
    expect(Object.values(byGroup).sort()).toEqual([0, 1, 1]);
    expect(byGroup['2']).toBe(0);
    // no rows: 0 for both
    expect((await measure('no_rows', sensor('table/uniqueness/duplicate_record_count', { columns: ['Näme'] }))).actualValue).toBe(0);
    expect((await measure('no_rows', sensor('table/uniqueness/duplicate_record_percent', { columns: ['Näme'] }))).actualValue).toBe(0);
  });

  it('foreign keys: a value matching two foreign rows counts twice, a NULL value passes, no rows give NULL', async () => {
    const fk = { foreign_table: 'keys', foreign_column: 'k' };
    // joined rows: x,x,x each match 2 keys (6), y,y match 1 (2), 2 NULL names (2), Z matches 1, z and ' z' none (2)
    // = 13 joined rows; failing: z and ' z' -> (13 - 2) / 13
    expect(rounded((await measure('records', sensor('column/integrity/foreign_key_match_percent', fk, 'Näme'))).actualValue)).toBe(rounded((100 * 11) / 13));
    expect((await measure('records', sensor('column/integrity/foreign_key_not_match_count', fk, 'Näme'))).actualValue).toBe(2);
    expect((await measure('no_rows', sensor('column/integrity/foreign_key_match_percent', fk, 'Näme'))).actualValue).toBeNull();
    expect((await measure('no_rows', sensor('column/integrity/foreign_key_not_match_count', fk, 'Näme'))).actualValue).toBeNull();
  });

  it('custom conditions: FALSE fails, NULL neither passes nor fails; counts NULL and percents 100 on nothing', async () => {
    const table = { sql_condition: '{alias}.n > 1' };
    // n: 1,1,1 false; null x4 neither; 2,2,2 true
    expect((await measure('records', sensor('table/custom_sql/sql_condition_failed_count', table))).actualValue).toBe(3);
    expect((await measure('records', sensor('table/custom_sql/sql_condition_passed_count', table))).actualValue).toBe(3);
    expect((await measure('records', sensor('table/custom_sql/sql_condition_failed_percent', table))).actualValue).toBe(30);
    expect((await measure('records', sensor('table/custom_sql/sql_condition_passed_percent', table))).actualValue).toBe(30);
    const column = { sql_condition: '{column} = upper({column})' };
    // the 8 names: 'Z' passes; x,x,x,y,y,z,' z' fail (lower case) -> failed 7, passed 1 of 8
    expect((await measure('records', sensor('column/custom_sql/sql_condition_failed_count', column, 'Näme'))).actualValue).toBe(7);
    expect((await measure('records', sensor('column/custom_sql/sql_condition_passed_percent', column, 'Näme'))).actualValue).toBe(12.5);
    expect((await measure('records', sensor('column/custom_sql/sql_condition_failed_percent', column, 'Näme'))).actualValue).toBe(87.5);
    expect((await measure('no_rows', sensor('table/custom_sql/sql_condition_failed_count', table))).actualValue).toBeNull();
    expect((await measure('no_rows', sensor('table/custom_sql/sql_condition_failed_percent', table))).actualValue).toBe(100);
    expect((await measure('no_rows', sensor('column/custom_sql/sql_condition_passed_percent', column, 'Näme'))).actualValue).toBe(100);
  });

  it('import_custom_result replaces {schema_name}, {table_name} and {column_name} by the bare names', async () => {
    const { readouts } = await db.measure({
      schema: 'plain',
      table: 'facts',
      sensors: [
        sensor('table/custom_sql/import_custom_result', { sql_query: 'select count(*) as actual_value, 4 as expected_value from {schema_name}.{table_name}' }),
        { ...sensor('column/custom_sql/import_custom_result', { sql_query: 'select count({column_name}) as actual_value from "{schema_name}"."{table_name}"' }, 'v'), id: 'c' },
      ],
    });
    // 3 rows, 2 non-NULL values
    expect(single(readouts, 'v')).toMatchObject({ actualValue: 3, expectedValue: 4 });
    expect(single(readouts, 'c').actualValue).toBe(2);
  });

  it('table availability: a table that answers with no row counts as a failure, as in DQOps', async () => {
    expect((await measure('records', sensor('table/availability/table_availability'))).actualValue).toBe(0);
    expect((await measure('no_rows', sensor('table/availability/table_availability'))).actualValue).toBe(1);
    // the table's filter leaves no row
    expect((await measure('records', sensor('table/availability/table_availability'), { filter: 'n > 100' })).actualValue).toBe(1);
  });

  describe('timeliness: the unit follows the type snapshot as DQOps reads it', () => {
    const timely = (event: string, ingestion: string, columnTypes: Record<string, string>) => ({
      timestampColumns: { eventTimestampColumn: event, ingestionTimestampColumn: ingestion },
      columnTypes,
    });

    it('timestamptz: fractional days to the run start', async () => {
      const extra = timely('e', 'i', { e: 'timestamptz', i: 'timestamptz' });
      // newest event 2024-06-11 12:00Z, now 2024-06-15 12:00Z: 4 days
      expect(rounded((await measure('times', sensor('table/timeliness/data_freshness'), extra)).actualValue)).toBe(4);
      // newest ingestion 2024-06-12 09:00Z: 3 days 3 hours = 3.125
      expect(rounded((await measure('times', sensor('table/timeliness/data_staleness'), extra)).actualValue)).toBe(3.125);
      // newest ingestion - newest event = 21 hours
      expect(rounded((await measure('times', sensor('table/timeliness/data_ingestion_delay'), extra)).actualValue)).toBe(rounded(21 / 24));
      // longest per-row delay: 1 day 23 hours (first row) vs 6 hours
      expect(rounded((await measure('times', sensor('table/timeliness/partition_reload_lag'), extra)).actualValue)).toBe(rounded(47 / 24));
    });

    it('a date column as PostgreSQL names it (`date`) is read as a timestamp at midnight: fractional days', async () => {
      const extra = timely('d', 'd2', { d: 'date', d2: 'date' });
      // newest event 2024-06-11 00:00 -> 4.5 days to 2024-06-15 12:00
      expect(rounded((await measure('times', sensor('table/timeliness/data_freshness'), extra)).actualValue)).toBe(4.5);
      // newest ingestion 2024-06-13 -> 2.5
      expect(rounded((await measure('times', sensor('table/timeliness/data_staleness'), extra)).actualValue)).toBe(2.5);
    });

    it('a DATE snapshot (upper case, as DQOps compares) gives whole days', async () => {
      const extra = timely('d', 'd2', { d: 'DATE', d2: 'DATE' });
      // today (UTC) 2024-06-15 - 2024-06-11 = 4; - 2024-06-13 = 2; 2024-06-13 - 2024-06-11 = 2; longest row delay 3 days
      expect((await measure('times', sensor('table/timeliness/data_freshness'), extra)).actualValue).toBe(4);
      expect((await measure('times', sensor('table/timeliness/data_staleness'), extra)).actualValue).toBe(2);
      expect((await measure('times', sensor('table/timeliness/data_ingestion_delay'), extra)).actualValue).toBe(2);
      expect((await measure('times', sensor('table/timeliness/partition_reload_lag'), extra)).actualValue).toBe(3);
    });

    it('timestamps kept as text are cast per value before the newest is taken', async () => {
      // '2024-06-10 10:00:00' is the newest as a timestamp (and also as text here); 5 days 2 hours to now
      const extra = timely('t', 'l', { t: 'text', l: 'timestamp' });
      expect(rounded((await measure('times', sensor('table/timeliness/data_freshness'), extra)).actualValue)).toBe(rounded(5 + 2 / 24));
      // newest l 2024-06-11 18:00 -> 3.75 days
      expect(rounded((await measure('times', sensor('table/timeliness/data_staleness'), extra)).actualValue)).toBe(3.75);
    });

    it('no rows: NULL', async () => {
      const extra = timely('e', 'i', { e: 'timestamptz', i: 'timestamptz' });
      expect((await measure('no_rows', sensor('table/timeliness/data_freshness'), { ...extra, timestampColumns: { eventTimestampColumn: 'd', ingestionTimestampColumn: 'd' } })).actualValue).toBeNull();
    });
  });
});
