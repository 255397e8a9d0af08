import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTableQuery, planSensorQueries, type SensorRequest, type TableQueryRequest } from '../../../src/datasource/sensors/index.js';
import { openSensorDatabase, rounded, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * Every value sensor on a table whose schema, table and column names are hostile (quotes, spaces, dots, upper
 * case, unicode, a semicolon), seeded with ten rows whose answers are worked out by hand below. All sensors run
 * merged in ONE query, and each again on its own: both must give the hand-computed value.
 */
const SCHEMA = 'Sch "ema".ünï';
const TABLE = `Ta ble.'s "Orders"; --`;
const AMOUNT = 'Amount €';
const EMAIL = 'E-Mail "addr"';
const COUNTRY = 'Country.Code';
const NOTE = 'NOTE';
const SCORE = 'score';

const SEED = `
create schema "Sch ""ema"".ünï";
create table "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --" (
  id int, "Amount €" numeric(10,2), "E-Mail ""addr""" text, "Country.Code" text, "NOTE" text, flag boolean, score int
);
insert into "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --" values
  (1,   10.00, 'a@b.com',              'US', 'hello world',    true,  5),
  (2,   -5.00, 'bad',                  'US', '',               false, 5),
  (3,    0.00, 'x.y@mail.example.org', 'PL', '   ',            true,  7),
  (4,   20.50, '',                     'PL', ' padded',        null,  1),
  (5,    null, null,                   'US', 'N/A',            true,  null),
  (6,  100.00, 'A@B.CO',               'DE', 'one two  three', false, 3),
  (7,    3.00, 'a@b.com',              'DE', null,             true,  3),
  (8,    null, 'no at sign',           'PL', 'null',           null,  3),
  (9,   -1.00, 'c@d.io',               'US', 'x',              true,  9),
  (10,   7.50, 'a@b.com',              'US', E'tab\\tend ',     false, 2);
`;

// Hand-computed facts of the seed.
const AMOUNTS = [10, -5, 0, 20.5, 100, 3, -1, 7.5]; // 8 non-null, 2 null; sum 135
const SCORES = [5, 5, 7, 1, 3, 3, 3, 9, 2]; // 9 non-null; distinct {1,2,3,5,7,9}

function variance(values: number[], sample: boolean): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - (sample ? 1 : 0));
}

interface Case {
  sensor: string;
  column?: string;
  parameters?: SensorRequest['parameters'];
  expected: number | null;
  expectedReference?: number;
}

const CASES: Case[] = [
  { sensor: 'table/volume/row_count', expected: 10 },
  { sensor: 'table/uniqueness/duplicate_record_count', parameters: { columns: [COUNTRY, SCORE] }, expected: 2 }, // (US,5) and (DE,3) repeat
  { sensor: 'table/uniqueness/duplicate_record_percent', parameters: { columns: [COUNTRY, SCORE] }, expected: 20 },

  { sensor: 'column/nulls/null_count', column: AMOUNT, expected: 2 },
  { sensor: 'column/nulls/null_percent', column: AMOUNT, expected: 20 },
  { sensor: 'column/nulls/not_null_count', column: AMOUNT, expected: 8 },
  { sensor: 'column/nulls/not_null_percent', column: AMOUNT, expected: 80 },
  { sensor: 'column/nulls/null_count', column: AMOUNT, parameters: { filter: `{alias}."Country.Code" = 'US'` }, expected: 1 }, // rows 1,2,5,9,10

  { sensor: 'column/uniqueness/distinct_count', column: SCORE, expected: 6 },
  { sensor: 'column/uniqueness/distinct_percent', column: SCORE, expected: (100 * 6) / 9 },
  { sensor: 'column/uniqueness/duplicate_count', column: SCORE, expected: 3 },
  { sensor: 'column/uniqueness/duplicate_percent', column: SCORE, expected: (100 * 3) / 9 },
  { sensor: 'column/uniqueness/distinct_count', column: EMAIL, expected: 7 },

  { sensor: 'column/range/min_value', column: AMOUNT, expected: -5 },
  { sensor: 'column/range/max_value', column: AMOUNT, expected: 100 },
  { sensor: 'column/numeric/sum', column: AMOUNT, expected: 135 },
  { sensor: 'column/numeric/mean', column: AMOUNT, expected: 16.875 },
  { sensor: 'column/numeric/percentile', column: AMOUNT, expected: 5.25 }, // default 0.5: (3 + 7.5) / 2
  { sensor: 'column/numeric/percentile', column: AMOUNT, parameters: { percentile_value: 0.25 }, expected: -0.25 }, // -1 + 0.75 * (0 - -1)
  { sensor: 'column/numeric/sample_variance', column: AMOUNT, expected: variance(AMOUNTS, true) },
  { sensor: 'column/numeric/population_variance', column: AMOUNT, expected: variance(AMOUNTS, false) },
  { sensor: 'column/numeric/sample_stddev', column: AMOUNT, expected: Math.sqrt(variance(AMOUNTS, true)) },
  { sensor: 'column/numeric/population_stddev', column: AMOUNT, expected: Math.sqrt(variance(AMOUNTS, false)) },
  { sensor: 'column/numeric/negative_count', column: AMOUNT, expected: 2 },
  { sensor: 'column/numeric/negative_percent', column: AMOUNT, expected: 25 },
  { sensor: 'column/numeric/non_negative_count', column: AMOUNT, expected: 6 },
  { sensor: 'column/numeric/non_negative_percent', column: AMOUNT, expected: 75 },
  { sensor: 'column/numeric/number_below_min_value_count', column: AMOUNT, parameters: { min_value: 3 }, expected: 3 }, // -5, 0, -1
  { sensor: 'column/numeric/number_below_min_value_percent', column: AMOUNT, parameters: { min_value: 3 }, expected: 37.5 },
  { sensor: 'column/numeric/number_below_min_value_count', column: AMOUNT, expected: 2 }, // default min_value 0
  { sensor: 'column/numeric/number_above_max_value_count', column: AMOUNT, parameters: { max_value: 10 }, expected: 2 }, // 20.5, 100
  { sensor: 'column/numeric/number_above_max_value_percent', column: AMOUNT, parameters: { max_value: 10 }, expected: 25 },
  { sensor: 'column/numeric/number_in_range_percent', column: AMOUNT, parameters: { min_value: 0, max_value: 10 }, expected: 50 }, // 10, 0, 3, 7.5
  { sensor: 'column/numeric/number_in_range_percent', column: AMOUNT, parameters: { min_value: 0 }, expected: 75 }, // open upper bound
  { sensor: 'column/numeric/integer_in_range_percent', column: SCORE, parameters: { min_value: 3, max_value: 5 }, expected: (100 * 5) / 9 },
  { sensor: 'column/numeric/invalid_latitude_count', column: AMOUNT, expected: 1 }, // 100
  { sensor: 'column/numeric/valid_latitude_percent', column: AMOUNT, expected: 87.5 },
  { sensor: 'column/numeric/invalid_longitude_count', column: AMOUNT, expected: 0 },
  { sensor: 'column/numeric/valid_longitude_percent', column: AMOUNT, expected: 100 },

  { sensor: 'column/bool/true_percent', column: 'flag', expected: 62.5 }, // 5 of 8
  { sensor: 'column/bool/false_percent', column: 'flag', expected: 37.5 },

  { sensor: 'column/accepted_values/number_found_in_set_percent', column: SCORE, parameters: { expected_values: [3, 5] }, expected: (100 * 5) / 9 },
  { sensor: 'column/accepted_values/expected_numbers_in_use_count', column: SCORE, parameters: { expected_values: [1, 2, 4] }, expected: 2, expectedReference: 3 },
  { sensor: 'column/accepted_values/text_found_in_set_percent', column: EMAIL, parameters: { expected_values: ['a@b.com', 'bad'] }, expected: (100 * 4) / 9 },
  { sensor: 'column/accepted_values/expected_text_values_in_use_count', column: EMAIL, parameters: { expected_values: ['a@b.com', 'zzz', 'bad'] }, expected: 2, expectedReference: 3 },
  { sensor: 'column/accepted_values/text_valid_country_code_percent', column: COUNTRY, expected: 100 },

  { sensor: 'column/patterns/invalid_email_format_count', column: EMAIL, expected: 3 }, // bad, '', no at sign
  { sensor: 'column/patterns/invalid_email_format_percent', column: EMAIL, expected: (100 * 3) / 9 },
  { sensor: 'column/patterns/text_not_matching_regex_count', column: EMAIL, parameters: { regex: '^[a-z.]+@[a-z.]+$' }, expected: 4 },
  { sensor: 'column/patterns/texts_not_matching_regex_percent', column: EMAIL, parameters: { regex: '^[a-z.]+@[a-z.]+$' }, expected: (100 * 4) / 9 },

  // lengths of the e-mails: 7 3 20 0 6 7 10 6 7 (sum 66)
  { sensor: 'column/text/text_min_length', column: EMAIL, expected: 0 },
  { sensor: 'column/text/text_max_length', column: EMAIL, expected: 20 },
  { sensor: 'column/text/text_mean_length', column: EMAIL, expected: 66 / 9 },
  { sensor: 'column/text/text_length_below_min_length_count', column: EMAIL, expected: 2 }, // default 5: bad, ''
  { sensor: 'column/text/text_length_below_min_length_percent', column: EMAIL, expected: (100 * 2) / 9 },
  { sensor: 'column/text/text_length_above_max_length_count', column: EMAIL, parameters: { max_length: 7 }, expected: 2 },
  { sensor: 'column/text/text_length_above_max_length_percent', column: EMAIL, parameters: { max_length: 7 }, expected: (100 * 2) / 9 },
  { sensor: 'column/text/text_length_in_range_percent', column: EMAIL, parameters: { min_length: 5, max_length: 7 }, expected: (100 * 5) / 9 },
  { sensor: 'column/text/min_word_count', column: NOTE, expected: 0 }, // '' and '   '
  { sensor: 'column/text/max_word_count', column: NOTE, expected: 4 }, // 'one two  three': 3 spaces + 1 (a double space makes an empty word, as DQOps)

  // NOTE: 9 non-null values
  { sensor: 'column/whitespace/empty_text_count', column: NOTE, expected: 1 },
  { sensor: 'column/whitespace/empty_text_percent', column: NOTE, expected: 100 / 9 },
  { sensor: 'column/whitespace/whitespace_text_count', column: NOTE, expected: 1 },
  { sensor: 'column/whitespace/whitespace_text_percent', column: NOTE, expected: 100 / 9 },
  { sensor: 'column/whitespace/null_placeholder_text_count', column: NOTE, expected: 3 }, // '', N/A, null (DQOps counts the empty text; '   ' is not one)
  { sensor: 'column/whitespace/null_placeholder_text_percent', column: NOTE, expected: (100 * 3) / 9 },
  { sensor: 'column/whitespace/text_surrounded_by_whitespace_count', column: NOTE, expected: 2 }, // ' padded', 'tab\tend '
  { sensor: 'column/whitespace/text_surrounded_by_whitespace_percent', column: NOTE, expected: (100 * 2) / 9 },

  // a condition fails where it is FALSE (scores 1 and 2); on the NULL score it is NULL: neither passes nor fails (DQOps)
  { sensor: 'table/custom_sql/sql_condition_failed_count', parameters: { sql_condition: '{alias}."score" >= 3' }, expected: 2 },
  { sensor: 'table/custom_sql/sql_condition_failed_percent', parameters: { sql_condition: '{alias}."score" >= 3' }, expected: 20 },
  { sensor: 'table/custom_sql/sql_condition_passed_count', parameters: { sql_condition: '{alias}."score" >= 3' }, expected: 7 },
  { sensor: 'table/custom_sql/sql_condition_passed_percent', parameters: { sql_condition: '{alias}."score" >= 3' }, expected: 70 },
  { sensor: 'table/custom_sql/sql_aggregated_expression', parameters: { sql_expression: 'count(distinct {alias}."Country.Code")' }, expected: 3 },
  // column conditions look at the 8 non-NULL amounts only: -5, 0, -1 fail, 5 pass
  { sensor: 'column/custom_sql/sql_condition_failed_count', column: AMOUNT, parameters: { sql_condition: '{column} > 0' }, expected: 3 },
  { sensor: 'column/custom_sql/sql_condition_failed_percent', column: AMOUNT, parameters: { sql_condition: '{column} > 0' }, expected: (100 * 3) / 8 },
  { sensor: 'column/custom_sql/sql_condition_passed_count', column: AMOUNT, parameters: { sql_condition: '{column} > 0' }, expected: 5 },
  { sensor: 'column/custom_sql/sql_condition_passed_percent', column: AMOUNT, parameters: { sql_condition: '{column} > 0;' }, expected: (100 * 5) / 8 },
  { sensor: 'column/custom_sql/sql_aggregated_expression', column: AMOUNT, parameters: { sql_expression: 'max({column}) - min({column})' }, expected: 105 },
];

describe('column and table sensors on hostile names', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(SEED);
  });
  afterAll(async () => {
    await db?.close();
  });

  const request = (sensors: SensorRequest[]): TableQueryRequest => ({ schema: SCHEMA, table: TABLE, sensors });
  const sensorsOf = (cases: Case[]): SensorRequest[] =>
    cases.map((c, index) => ({ id: `case ${index}`, sensorName: c.sensor, ...(c.column ? { column: c.column } : {}), ...(c.parameters ? { parameters: c.parameters } : {}) }));

  // the duplicate record sensors count records per group, a query of their own (as DQOps); the rest share one scan
  const SCANNED = CASES.filter((c) => !c.sensor.startsWith('table/uniqueness/duplicate_record'));
  it(`measures all ${SCANNED.length} scanned cases in one merged query`, async () => {
    const query = buildTableQuery(request(sensorsOf(SCANNED)));
    expect(query.kind).toBe('scan');
    const readouts = await db.run(query);
    const mismatches = SCANNED.flatMap((c, index) => {
      const readout = single(readouts, `case ${index}`);
      const actual = rounded(readout.actualValue);
      const name = `${c.sensor} ${c.column ?? ''} ${JSON.stringify(c.parameters ?? {})}`;
      const wrong = actual === rounded(c.expected) ? [] : [`${name}: ${actual} != ${c.expected}`];
      // the sensors that also read a reference (the number of expected values) give it as the expected value
      if (c.expectedReference !== undefined && readout.expectedValue !== c.expectedReference) wrong.push(`${name}: expected value ${readout.expectedValue} != ${c.expectedReference}`);
      return wrong;
    });
    expect(mismatches).toEqual([]);
  });

  it.each(CASES.map((c, index) => [index, `${c.sensor} ${c.column ?? ''}`, c] as const))('case %i: %s on its own', async (_index, _name, c) => {
    const { readouts, queries } = await db.measure(request(sensorsOf([c])));
    expect(queries).toHaveLength(1);
    expect(rounded(single(readouts, `case 0`).actualValue)).toBe(rounded(c.expected));
  });

  it('returns nothing but numbers: counts are not strings, and an empty table gives the documented empty values', async () => {
    await db.client.query(`create table "Sch ""ema"".ünï"."empty one" (v numeric, t text, b boolean)`);
    const { readouts } = await db.measure({
      schema: SCHEMA,
      table: 'empty one',
      sensors: [
        { id: 'rows', sensorName: 'table/volume/row_count' },
        { id: 'nulls%', sensorName: 'column/nulls/null_percent', column: 'v' },
        { id: 'inSet%', sensorName: 'column/accepted_values/text_found_in_set_percent', column: 't', parameters: { expected_values: ['a'] } },
        { id: 'mean', sensorName: 'column/numeric/mean', column: 'v' },
        { id: 'true%', sensorName: 'column/bool/true_percent', column: 'b' },
      ],
    });
    // DQOps's answers on no rows: null_percent and true_percent 100 (their CASE on a zero count), mean NULL
    expect(single(readouts, 'rows').actualValue).toBe(0);
    expect(single(readouts, 'nulls%').actualValue).toBe(100);
    expect(single(readouts, 'inSet%').actualValue).toBe(100);
    expect(single(readouts, 'mean').actualValue).toBeNull();
    expect(single(readouts, 'true%').actualValue).toBe(100);
  });

  it('binds a hostile regex and hostile expected values as data: no injection, and the exact text is matched', async () => {
    const hostile = `x'); drop table "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --"; --`;
    await db.client.query(`create table "Sch ""ema"".ünï".hostile (v text)`);
    await db.client.query(`insert into "Sch ""ema"".ünï".hostile values ($1), ('plain'), ('a;b')`, [hostile]);
    const { readouts, queries } = await db.measure({
      schema: SCHEMA,
      table: 'hostile',
      sensors: [
        { id: 'regex', sensorName: 'column/patterns/text_not_matching_regex_count', column: 'v', parameters: { regex: `'; drop table hostile; --` } },
        { id: 'set', sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'v', parameters: { expected_values: [hostile, `'; select 1; --`, 'a;b'] } },
        { id: 'inUse', sensorName: 'column/accepted_values/expected_text_values_in_use_count', column: 'v', parameters: { expected_values: [hostile, 'nope'] } },
      ],
    });
    expect(queries).toHaveLength(1);
    expect(queries[0]!.text).not.toContain('drop');
    expect(queries[0]!.values).toContain(`'; drop table hostile; --`);
    expect(single(readouts, 'regex').actualValue).toBe(3); // no value contains that text
    expect(rounded(single(readouts, 'set').actualValue)).toBe(rounded((100 * 2) / 3)); // the hostile value and 'a;b'
    expect(single(readouts, 'inUse').actualValue).toBe(1);
    const stillThere = await db.client.query(`select count(*)::int as n from "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --"`);
    expect(stillThere.rows[0].n).toBe(10);
  });

  it('runs exactly one statement: a sensor query is sent with the extended protocol, so SQL smuggled into repository SQL fails instead of running', async () => {
    const plan = planSensorQueries(
      request([{ id: 'smuggled', sensorName: 'table/custom_sql/sql_condition_failed_count', parameters: { sql_condition: `true) from "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --"; drop table "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --"; select (1` } }]),
    );
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]!.queryMode).toBe('extended');
    await expect(db.run(plan.queries[0]!)).rejects.toThrow(/multiple commands|syntax/);
    const stillThere = await db.client.query(`select count(*)::int as n from "Sch ""ema"".ünï"."Ta ble.'s ""Orders""; --"`);
    expect(stillThere.rows[0].n).toBe(10);
  });
});
