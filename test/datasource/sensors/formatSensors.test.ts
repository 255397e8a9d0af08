import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SensorRequest } from '../../../src/datasource/sensors/index.js';
import { PATTERNS } from '../../../src/datasource/sensors/textPatterns.js';
import { openSensorDatabase, rounded, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * Format sensors (patterns, PII, conversions, detected data type, dates, country and currency codes): each case
 * is a list of values written into a table of its own (column `Välue "v"`, schema `Fmt.Schema`), with the answer
 * counted by hand. NOW is fixed, so the future-date sensor is exact.
 */
const SCHEMA = 'Fmt.Schema';
const COLUMN = 'Välue "v"';
const NOW = new Date('2024-06-15T12:00:00Z');

interface FormatCase {
  name: string;
  sensor: string;
  values: Array<string | null>;
  type?: string;
  parameters?: SensorRequest['parameters'];
  expected: number | null;
  /** The readout's expected value, when the sensor gives one other than the list length. */
  expectedValue?: number | null;
  /** The run's start, when the case needs another than NOW. */
  now?: Date;
}

const CASES: FormatCase[] = [
  {
    name: 'e-mails',
    sensor: 'column/patterns/invalid_email_format_count',
    values: ['a@b.com', 'john.doe+x@sub.example.co.uk', 'bad', 'a@b', '@b.com', 'a b@c.com', 'A@B.CO', null],
    expected: 4,
  },
  {
    // the local part's limit: 64 characters pass, 65 do not; its last character may not be a dot; one @ only
    name: 'e-mails at the limits',
    sensor: 'column/patterns/invalid_email_format_count',
    values: [`${'x'.repeat(64)}@example.com`, `${'x'.repeat(65)}@example.com`, `${'.'.repeat(63)}x@a.bc`, 'x.@a.bc', 'a@b@c.com', 'ä@b.com', `${'x'.repeat(64)}@@a.bc`],
    expected: 5,
  },
  { name: 'e-mails %', sensor: 'column/patterns/invalid_email_format_percent', values: ['a@b.com', 'bad', 'a@b', 'A@B.CO', null], expected: 50 },
  { name: 'e-mail inside text', sensor: 'column/pii/contains_email_percent', values: ['mail me at a@b.com now', 'no email here', 'x@y', 'a@b.com'], expected: 50 },
  {
    name: 'uuids',
    sensor: 'column/patterns/invalid_uuid_format_count',
    // separators are optional (a dash or a whitespace), so only 'not-a-uuid' is invalid
    values: ['123e4567-e89b-12d3-a456-426614174000', '123E4567-E89B-12D3-A456-426614174000', 'not-a-uuid', '123e4567e89b12d3a456426614174000'],
    expected: 1,
  },
  { name: 'uuids %', sensor: 'column/patterns/invalid_uuid_format_percent', values: ['123e4567-e89b-12d3-a456-426614174000', 'x', 'y', 'z'], expected: 75 },
  // '10.0.0.01' is valid (a two-digit octet may start with 0); '256.1.1.1' and '1.2.3' are not
  { name: 'ip4', sensor: 'column/patterns/invalid_ip4_address_format_count', values: ['192.168.0.1', '255.255.255.255', '256.1.1.1', '1.2.3', '10.0.0.01'], expected: 2 },
  // found between separators: '10.1.2.3' before ':', and '1.2.3.4' before '.' in '1.2.3.4.5'
  { name: 'ip4 inside text', sensor: 'column/pii/contains_ip4_percent', values: ['from 10.1.2.3:80', 'version 1.2.3', '1.2.3.4.5', 'none'], expected: 50 },
  {
    name: 'ip6',
    sensor: 'column/patterns/invalid_ip6_address_format_count',
    values: ['2001:db8::1', '::1', 'fe80::', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', '::', '12345::', 'gggg::1', '1:2:3:4:5:6:7:8:9'],
    expected: 3,
  },
  // only '2001:db8::1' has two groups before '::'; 'fe80::1' has one, 'std' is no group
  { name: 'ip6 inside text', sensor: 'column/pii/contains_ip6_percent', values: ['addr 2001:db8::1 here', 'std::vector', 'fe80::1', 'none'], expected: 25 },
  {
    name: 'US phones',
    sensor: 'column/patterns/invalid_usa_phone_count',
    // any 3+3+4 digits pass (also '123-456-7890'); '555-1234' and 'call me' do not
    values: ['(555) 123-4567', '555-123-4567', '+1 555.123.4567', '5551234567', '123-456-7890', '555-1234', 'call me'],
    expected: 2,
  },
  { name: 'US phones %', sensor: 'column/patterns/invalid_usa_phone_percent', values: ['(555) 123-4567', '555-1234', 'x', '001 212 555 0000'], expected: 50 },
  { name: 'US phone inside text', sensor: 'column/pii/contains_usa_phone_percent', values: ['call 555-123-4567 now', 'id 123456789012', 'nothing', '(212) 555-0000'], expected: 50 },
  { name: 'zip codes', sensor: 'column/patterns/invalid_usa_zipcode_count', values: ['12345', '12345-6789', '1234', '123456', 'ABCDE', '12345-67'], expected: 4 },
  { name: 'zip codes %', sensor: 'column/patterns/invalid_usa_zipcode_percent', values: ['12345', '1234', '12345-6789', 'x'], expected: 50 },
  { name: 'zip code inside text', sensor: 'column/pii/contains_usa_zipcode_percent', values: ['NY 10001', 'zip: 12345-6789.', 'phone 5551234567', 'no'], expected: 50 },
  {
    name: 'ISO dates',
    sensor: 'column/patterns/text_not_matching_date_pattern_count',
    values: ['2024-01-31', '2024-13-01', '31/01/2024', '2024-1-5', '2024-02-30'],
    parameters: { date_format: 'YYYY-MM-DD' },
    expected: 3,
  },
  {
    name: 'Month D, YYYY',
    sensor: 'column/patterns/text_not_matching_date_patterns_percent',
    values: ['January 5, 2024', 'Feb 5, 2024', 'December 31, 1999', 'may 1, 2020'],
    parameters: { date_format: 'Month D, YYYY' },
    expected: 50,
  },
  {
    name: 'DD.MM.YYYY',
    sensor: 'column/datetime/text_match_date_format_percent',
    values: ['31.01.2024', '2024-01-31', '01.13.2024', '05.06.2020'],
    parameters: { date_format: 'DD.MM.YYYY' },
    expected: 50,
  },
  {
    name: 'names',
    sensor: 'column/patterns/text_not_matching_name_pattern_percent',
    // only letters, spaces, dots, apostrophes, hyphens: 'R2D2' is the one of 7 values that is not a name
    values: ['John Smith', "O'Brien", 'Anne-Marie', 'Zoë Ünal', 'R2D2', 'john  smith', 'Dr.', null],
    expected: 100 / 7,
  },
  // conversions over 11 values, untrimmed and unsigned: only '1' is an integer; '1', '3.14' numbers ('1e5' is not);
  // '1', 'true', 'No' booleans; '2024-01-31' and '31/12/2024' dates
  ...(
    [
      ['column/conversions/text_parsable_to_integer_percent', 1],
      ['column/conversions/text_parsable_to_float_percent', 2],
      ['column/conversions/text_parsable_to_boolean_percent', 3],
      ['column/conversions/text_parsable_to_date_percent', 2],
    ] as const
  ).map(([sensor, parsable]) => ({
    name: sensor.slice(sensor.lastIndexOf('/') + 1),
    sensor,
    values: ['1', ' 42 ', '-7', '3.14', '1e5', 'abc', 'true', 'No', '', '2024-01-31', '31/12/2024'],
    expected: (100 * parsable) / 11,
  })),
  ...(
    [
      ['integers', ['1', '2', '-3'], 1],
      ['floats (a comma counts)', ['1', '2,5', '-.5'], 2],
      ['floats with an exponent are mixed', ['1', '-0.5e3'], 8],
      ['dates', ['2024-01-01', '31.12.2024'], 3],
      ['datetimes (seconds required, am/pm allowed)', ['2024-01-01 10:00:00', '31/12/2024 23:59:59 pm'], 4],
      ['timestamps', ['2024-01-01 10:00:00+02', '2024-01-01T10:00:00Z'], 5],
      ['booleans (one case per word)', ['true', 'NO', 'f'], 6],
      ['mixed-case boolean words are texts', ['No', 'True'], 7],
      ['texts', ['abc', 'x y'], 7],
      ['a blank text makes texts mixed', ['abc', '  '], 8],
      ['mixed', ['1', 'abc'], 8],
      ['empty table', [], null],
      ['no values', [null, null], null],
    ] as const
  ).map(([name, values, code]) => ({ name: `detected type: ${name}`, sensor: 'column/datatype/string_datatype_detect', values: [...values], expected: code })),
  // compared upper-cased, untrimmed: 'us' counts, 'XX' and ' GB' do not (4 of 6 values); XK (Kosovo) is in the list
  { name: 'country codes', sensor: 'column/accepted_values/text_valid_country_code_percent', values: ['US', 'PL', 'XX', 'us', ' GB', 'XK', null], expected: (100 * 4) / 6 },
  // 'eur' counts upper-cased, '€' and 'zł' (ZŁ) are signs on the list, 'ABC' is not: 4 of 5
  { name: 'currency codes', sensor: 'column/accepted_values/text_valid_currency_code_percent', values: ['USD', '€', 'ABC', 'eur', 'zł'], expected: 80 },
  {
    name: 'dates in the default range',
    sensor: 'column/datetime/date_in_range_percent',
    type: 'date',
    values: ['2024-01-01', '1800-01-01', '2100-01-01', '2050-06-30', null],
    expected: 50,
  },
  {
    name: 'dates in a given range',
    sensor: 'column/datetime/date_in_range_percent',
    type: 'date',
    values: ['2024-01-01', '1800-01-01', '2100-01-01', '2050-06-30'],
    parameters: { min_date: '2024-01-01', max_date: '2024-12-31' },
    expected: 25,
  },
  {
    name: 'future timestamps',
    sensor: 'column/datetime/date_values_in_future_percent',
    type: 'timestamptz',
    values: ['2024-06-15 11:00Z', '2024-06-15 13:00Z', '2024-06-20 00:00Z', '2023-01-01 00:00Z'],
    expected: 50,
  },
  {
    name: 'timestamps more than a day ahead',
    sensor: 'column/datetime/date_values_in_future_percent',
    type: 'timestamptz',
    values: ['2024-06-15 11:00Z', '2024-06-15 13:00Z', '2024-06-20 00:00Z', '2023-01-01 00:00Z'],
    parameters: { max_future_days: 1 },
    expected: 25,
  },
  // A `DATE` snapshot compares with today plus max_future_days rounded half away from zero (DQOps's `::int`):
  // at 06:00 with 1.5 days, the limit is 2024-06-15 + 2 = 06-17, so only 06-18 is in the future (now + 1.5 days
  // would be 06-16 18:00 and take 06-17 too)
  {
    name: 'future dates on a DATE snapshot: whole days',
    sensor: 'column/datetime/date_values_in_future_percent',
    type: 'DATE',
    values: ['2024-06-15', '2024-06-16', '2024-06-17', '2024-06-18', '2023-01-01'],
    parameters: { max_future_days: 1.5 },
    now: new Date('2024-06-15T06:00:00Z'),
    expected: 20,
  },
  // an empty list measures nothing: 0 over values (NULL only for no rows, see emptyInputs), as DQOps's MAX(0.0)
  { name: 'nothing expected in the set', sensor: 'column/accepted_values/text_found_in_set_percent', values: ['a', 'b', null], parameters: { expected_values: [] }, expected: 0 },
  // DQOps's list holds the text \'\' (its SQL '\''\''' keeps the backslashes), not '', and is not trimmed
  { name: 'null placeholders', sensor: 'column/whitespace/null_placeholder_text_count', values: ["\\'\\'", "''", "''", 'N/A', ' null', '', null], expected: 3 },
  // an inet column reads as PostgreSQL displays it (10.1.2.3, not 10.1.2.3/32) when the type is known
  { name: 'IPv4 on an inet column', sensor: 'column/patterns/invalid_ip4_address_format_count', type: 'inet', values: ['10.1.2.3', '192.168.0.1', '10.0.0.0/8', null], expected: 1 },
  { name: 'top values (own query)', sensor: 'column/accepted_values/expected_texts_in_top_values_count', values: ['a', 'a', 'a', 'b', 'b', 'c', 'd'], parameters: { expected_values: ['a', 'c', 'zz'], top: 2 }, expected: 1 },
  // counts a=2, b=c=d=1: rank() gives a 1 and b, c, d 2 (ties share a rank), so both b and c are in the top 2
  { name: 'top values, ties share a rank', sensor: 'column/accepted_values/expected_texts_in_top_values_count', values: ['a', 'a', 'c', 'b', 'd'], parameters: { expected_values: ['b', 'c'], top: 2 }, expected: 2 },
  // no non-NULL value: no value is ranked, actual 0 and expected NULL (DQOps's MAX over no ranked row)
  { name: 'top values of NULLs', sensor: 'column/accepted_values/expected_texts_in_top_values_count', values: [null, null], parameters: { expected_values: ['a'], top: 2 }, expected: 0, expectedValue: null },
  { name: 'top values, nothing expected', sensor: 'column/accepted_values/expected_texts_in_top_values_count', values: ['a'], parameters: { expected_values: [], top: 2 }, expected: null, expectedValue: 0 },
];

describe('format sensors', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(`create schema "Fmt.Schema";`);
    for (const [index, c] of CASES.entries()) {
      await db.client.query(`create table "Fmt.Schema"."case ${index}" ("Välue ""v""" ${c.type ?? 'text'})`);
      await db.client.query(`insert into "Fmt.Schema"."case ${index}" select * from unnest($1::${c.type ?? 'text'}[])`, [c.values]);
    }
  });
  afterAll(async () => {
    await db?.close();
  });

  it('the e-mail sensor answers as PATTERNS.email on every text (the pattern without its count, and the position of the @)', async () => {
    // texts of 58 to 67 characters before an @ (none, one or two), from the characters that decide
    const alphabet = ['a', 'Z', '9', '.', '-', '@', ' ', '+', 'é'];
    const texts: string[] = [];
    let seed = 7;
    const next = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (let i = 0; i < 3000; i++) {
      const local = Array.from({ length: 58 + next(10) }, () => (next(60) === 0 ? alphabet[next(alphabet.length)] : 'x')).join('');
      const domain = ['b.com', 'b', 'b.c', 'b.comm.', 'b@c.de', 'x-y.example.co.uk', 'b.abcde'][next(7)];
      texts.push(next(6) === 0 ? local : `${local}@${domain}`);
    }
    await db.client.query(`create table "Fmt.Schema"."emails" ("Välue ""v""" text)`);
    await db.client.query(`insert into "Fmt.Schema"."emails" select * from unnest($1::text[])`, [texts]);
    // the answer of the pattern as DQOps writes it, {0,63} count included
    const { rows } = await db.client.query<{ invalid: string }>(`select count(*) filter (where not ("Välue ""v""" ~ $1)) as invalid from "Fmt.Schema"."emails"`, [PATTERNS.email]);
    const invalid = Number(rows[0]!.invalid);
    expect(invalid).toBeGreaterThan(300);
    expect(invalid).toBeLessThan(2700);
    const { readouts } = await db.measure({ schema: SCHEMA, table: 'emails', now: NOW, sensors: [{ id: 'v', sensorName: 'column/patterns/invalid_email_format_count', column: COLUMN }] });
    expect(single(readouts, 'v').actualValue).toBe(invalid);
  });

  it.each(CASES.map((c, index) => [index, c.name, c] as const))('case %i: %s', async (index, _name, c) => {
    const { readouts } = await db.measure({
      schema: SCHEMA,
      table: `case ${index}`,
      now: c.now ?? NOW,
      sensors: [{ id: 'v', sensorName: c.sensor, column: COLUMN, ...(c.parameters ? { parameters: c.parameters } : {}) }],
      ...(c.type ? { columnTypes: { [COLUMN]: c.type } } : {}),
    });
    expect(rounded(single(readouts, 'v').actualValue)).toBe(rounded(c.expected));
    if (c.expectedValue !== undefined) expect(single(readouts, 'v').expectedValue).toBe(c.expectedValue);
    else if (c.sensor.endsWith('top_values_count')) expect(single(readouts, 'v').expectedValue).toBe((c.parameters!.expected_values as unknown[]).length);
  });
});
