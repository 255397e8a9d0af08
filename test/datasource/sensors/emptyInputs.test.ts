import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SensorRequest } from '../../../src/datasource/sensors/index.js';
import { openSensorDatabase, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * What each sensor answers on a table without rows and on a column holding only NULLs, as DQOps's PostgreSQL
 * sensors answer (issue 12). The answers follow from how DQOps writes each sensor, worked out by hand:
 * - a count written as SUM(CASE …) is NULL over no rows and 0 over NULLs (no value meets the condition);
 * - a count written as `CASE WHEN COUNT(column) = 0 THEN 0` is 0 in both;
 * - a percent is `CASE WHEN COUNT(column) = 0 THEN <empty>`: <empty> is 100 for true/false_percent, the invalid
 *   UUID, name, regex and date-pattern shares and the parsable-text shares, 0 for date_in_range and e-mails;
 *   null_percent divides by the rows, so it is 100 on no rows and 100 over two NULL rows;
 * - min/max-style aggregates are NULL; the "in use" counts are NULL (actual and expected) on no rows, and over
 *   NULLs find none of the 2 expected values.
 */
const SCHEMA = 'Empty "ünï"';

interface EmptyCase {
  sensor: string;
  column: 't' | 'n' | 'b' | 'd';
  parameters?: SensorRequest['parameters'];
  noRows: number | null;
  onlyNulls: number | null;
  expected?: { noRows: number | null; onlyNulls: number | null };
}

const CASES: EmptyCase[] = [
  { sensor: 'column/nulls/null_count', column: 't', noRows: null, onlyNulls: 2 },
  { sensor: 'column/nulls/null_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/bool/true_percent', column: 'b', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/bool/false_percent', column: 'b', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/datetime/date_in_range_percent', column: 'd', noRows: 0, onlyNulls: 0 },
  { sensor: 'column/patterns/invalid_uuid_format_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/patterns/invalid_uuid_format_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/patterns/text_not_matching_date_patterns_percent', column: 't', parameters: { date_format: 'YYYY-MM-DD' }, noRows: 100, onlyNulls: 100 },
  { sensor: 'column/patterns/text_not_matching_date_pattern_count', column: 't', parameters: { date_format: 'YYYY-MM-DD' }, noRows: 0, onlyNulls: 0 },
  { sensor: 'column/patterns/text_not_matching_name_pattern_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/patterns/texts_not_matching_regex_percent', column: 't', parameters: { regex: '^a' }, noRows: 100, onlyNulls: 100 },
  { sensor: 'column/patterns/text_not_matching_regex_count', column: 't', parameters: { regex: '^a' }, noRows: 0, onlyNulls: 0 },
  { sensor: 'column/patterns/invalid_email_format_percent', column: 't', noRows: 0, onlyNulls: 0 },
  { sensor: 'column/patterns/invalid_email_format_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/patterns/invalid_ip4_address_format_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/numeric/negative_count', column: 'n', noRows: null, onlyNulls: 0 },
  { sensor: 'column/numeric/number_above_max_value_count', column: 'n', parameters: { max_value: 1 }, noRows: null, onlyNulls: 0 },
  { sensor: 'column/numeric/invalid_latitude_count', column: 'n', noRows: null, onlyNulls: 0 },
  { sensor: 'column/text/text_length_below_min_length_count', column: 't', parameters: { min_length: 3 }, noRows: null, onlyNulls: 0 },
  { sensor: 'column/text/min_word_count', column: 't', noRows: null, onlyNulls: null },
  { sensor: 'column/whitespace/empty_text_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/whitespace/whitespace_text_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/whitespace/null_placeholder_text_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/whitespace/text_surrounded_by_whitespace_count', column: 't', noRows: null, onlyNulls: 0 },
  { sensor: 'column/conversions/text_parsable_to_integer_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/conversions/text_parsable_to_date_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/datatype/string_datatype_detect', column: 't', noRows: null, onlyNulls: null },
  { sensor: 'column/accepted_values/text_valid_country_code_percent', column: 't', noRows: 100, onlyNulls: 100 },
  { sensor: 'column/accepted_values/text_found_in_set_percent', column: 't', parameters: { expected_values: ['a'] }, noRows: 100, onlyNulls: 100 },
  // an empty list is DQOps's MAX(0.0) over the rows: NULL without rows, 0 over NULLs
  { sensor: 'column/accepted_values/text_found_in_set_percent', column: 't', parameters: { expected_values: [] }, noRows: null, onlyNulls: 0 },
  { sensor: 'column/accepted_values/number_found_in_set_percent', column: 'n', parameters: { expected_values: [] }, noRows: null, onlyNulls: 0 },
  {
    sensor: 'column/accepted_values/expected_text_values_in_use_count',
    column: 't',
    parameters: { expected_values: ['a', 'b'] },
    noRows: null,
    onlyNulls: 0,
    expected: { noRows: null, onlyNulls: 2 },
  },
  {
    sensor: 'column/accepted_values/expected_numbers_in_use_count',
    column: 'n',
    parameters: { expected_values: [1, 2] },
    noRows: null,
    onlyNulls: 0,
    expected: { noRows: null, onlyNulls: 2 },
  },
];

describe('sensors on no rows and on only NULLs answer what DQOps answers', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(`
      create schema "Empty ""ünï""";
      create table "Empty ""ünï""".no_rows (t text, n numeric, b boolean, d date);
      create table "Empty ""ünï""".only_nulls (t text, n numeric, b boolean, d date);
      insert into "Empty ""ünï""".only_nulls values (null, null, null, null), (null, null, null, null);
    `);
  });
  afterAll(async () => {
    await db?.close();
  });

  it.each(CASES.map((c) => [c.sensor, c] as const))('%s', async (_name, c) => {
    for (const [table, actual, expected] of [
      ['no_rows', c.noRows, c.expected?.noRows],
      ['only_nulls', c.onlyNulls, c.expected?.onlyNulls],
    ] as const) {
      const { readouts } = await db.measure({
        schema: SCHEMA,
        table,
        sensors: [{ id: 'v', sensorName: c.sensor, column: c.column, ...(c.parameters ? { parameters: c.parameters } : {}) }],
      });
      const readout = single(readouts, 'v');
      expect(readout.actualValue, `${table}`).toBe(actual);
      if (expected !== undefined) expect(readout.expectedValue, `${table} expected`).toBe(expected);
    }
  });

  it('gives the same answers when all sensors share one scan', async () => {
    for (const table of ['no_rows', 'only_nulls'] as const) {
      const { readouts, queries } = await db.measure({
        schema: SCHEMA,
        table,
        sensors: CASES.map((c, index) => ({ id: `s${index}`, sensorName: c.sensor, column: c.column, ...(c.parameters ? { parameters: c.parameters } : {}) })),
      });
      expect(queries).toHaveLength(1);
      CASES.forEach((c, index) => expect(single(readouts, `s${index}`).actualValue, `${c.sensor} on ${table}`).toBe(table === 'no_rows' ? c.noRows : c.onlyNulls));
    }
  });
});
