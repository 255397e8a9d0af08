import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SENSOR_DEFINITIONS } from '../../../src/datasource/sensors/definitions/index.js';
import {
  buildErrorSamplesQuery,
  errorSamplingSupported,
  type ErrorSample,
  type ErrorSamplesOptions,
  type SensorRequest,
  type TableQueryRequest,
} from '../../../src/datasource/sensors/index.js';
import { getCheckCatalog } from '../../../src/catalog/index.js';
import type { JsonValue } from '../../../src/model/index.js';
import { sensorSupportsErrorSampling } from '../../../src/policy/sensorCapabilities.js';
import { openSensorDatabase, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * Error samples on a real PostgreSQL table with hostile names and known offending rows. The table's primary key
 * is ("Region", "Line Nº"), so every sample carries two row ids and samples come in key order.
 */
const SCHEMA = 'Sales "EU" ünï';
const TABLE = 'Order Lines.v2';
const SEED = `
  create schema "Sales ""EU"" ünï";
  create table "Sales ""EU"" ünï"."Order Lines.v2" (
    "Region" text, "Line Nº" int, "Ünit Price" numeric, qty int, status text, code text, "e-mail" text, note text,
    country text, primary key ("Region", "Line Nº"));
  insert into "Sales ""EU"" ünï"."Order Lines.v2" values
    ('EU', 1, 10,   1,  'open',   'ABC-1', 'a@example.com',  'fine',                      'PL'),
    ('EU', 2, null, 2,  'closed', 'ABC-2', 'b@example.com',  'say "hi"',                  'PL'),
    ('EU', 3, 30,   -1, 'OPEN',   'abc-3', 'bad@',           'a,b',                       'DE'),
    ('US', 1, 40,   -5, 'lost',   'ABC-4', null,             E'line\\nbreak',             'US'),
    ('US', 5, null, 5,  'open',   'ABCD',  'x@y.z',          '=HYPERLINK("http://x")',    'US'),
    ('US', 7, 70,   -7, null,     'ABC-7', 'c@ex-ample.org', '-2+3',                      'US');
  create table "Sales ""EU"" ünï"."Regions" (code text primary key);
  insert into "Sales ""EU"" ünï"."Regions" values ('PL'), ('DE');
  create table "Sales ""EU"" ünï"."Texts" (id int primary key, t text, n numeric, d date);
  insert into "Sales ""EU"" ünï"."Texts" values
    (1, '', -200, '2024-01-05'), (2, '   ', 95, '2023-12-31'), (3, 'null', 1, '2024-06-01'), (4, ' padded ', 0, '2025-01-01'),
    (5, '2024-01-05', 2.5, '2024-02-02'), (6, 'ab@cd.ef', -1, '2024-03-03'), (7, 'PL', 100, null), (8, '10.0.0.1', 181, '2024-04-04'),
    (9, '::1', -91, '2030-01-01'), (10, '(212) 555-1234', 3, '2024-05-05'), (11, '12345', 42, '2024-07-07'),
    (12, '123e4567-e89b-12d3-a456-426614174000', 7, '2024-08-08'), (13, null, null, '2024-09-09'), (14, 'Anna-Maria', 5, '2024-10-10');
`;
const KEY = ['Region', 'Line Nº'];

describe('error samples (buildErrorSamplesQuery)', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(SEED);
  });
  afterAll(async () => {
    await db.close();
  });

  const request = (sensor: Omit<SensorRequest, 'id'>, extra: Partial<TableQueryRequest> = {}): TableQueryRequest => ({
    schema: SCHEMA,
    table: TABLE,
    sensors: [{ id: 's', ...sensor }],
    ...extra,
  });

  async function samples(req: TableQueryRequest, options: Partial<ErrorSamplesOptions> = {}): Promise<ErrorSample[]> {
    const query = buildErrorSamplesQuery(req, 's', { limit: 100, idColumns: KEY, ...options });
    await db.client.query('begin read only');
    try {
      const result = await db.client.query(query);
      return query.parse(result.rows as Record<string, unknown>[]);
    } finally {
      await db.client.query('rollback');
    }
  }
  const values = (list: ErrorSample[]) => list.map((s) => s.value);
  const ids = (list: ErrorSample[]) => list.map((s) => s.rowIds);

  it('nulls: the rows where the column is NULL, with both primary key values as row ids', async () => {
    const found = await samples(request({ sensorName: 'column/nulls/null_count', column: 'Ünit Price' }));
    expect(found).toEqual([
      { dataGroup: 'all data', value: null, rowIds: ['EU', '2'] },
      { dataGroup: 'all data', value: null, rowIds: ['US', '5'] },
    ]);
    expect(ids(await samples(request({ sensorName: 'column/nulls/null_percent', column: 'Ünit Price' })))).toEqual([['EU', '2'], ['US', '5']]);
  });

  it('negative values, in key order, and the limit keeps the first rows', async () => {
    const found = await samples(request({ sensorName: 'column/numeric/negative_count', column: 'qty' }));
    expect(values(found)).toEqual(['-1', '-5', '-7']);
    expect(ids(found)).toEqual([['EU', '3'], ['US', '1'], ['US', '7']]);
    const limited = await samples(request({ sensorName: 'column/numeric/negative_percent', column: 'qty' }), { limit: 2 });
    expect(ids(limited)).toEqual([['EU', '3'], ['US', '1']]);
  });

  it('values not in the set: the non-NULL values outside it; an expected value holding SQL is a bound value', async () => {
    const found = await samples(
      request({ sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'status', parameters: { expected_values: ['open', "closed'; drop table x; --", 'closed'] } }),
    );
    expect(found.map((s) => [s.value, ...s.rowIds])).toEqual([
      ['OPEN', 'EU', '3'],
      ['lost', 'US', '1'],
    ]);
  });

  it('regex mismatches and invalid e-mail addresses', async () => {
    const regex = await samples(request({ sensorName: 'column/patterns/text_not_matching_regex_count', column: 'code', parameters: { regex: '^[A-Z]{3}-[0-9]+$' } }));
    expect(values(regex)).toEqual(['abc-3', 'ABCD']);
    const email = await samples(request({ sensorName: 'column/patterns/invalid_email_format_count', column: 'e-mail' }));
    expect(email.map((s) => [s.value, ...s.rowIds])).toEqual([
      ['bad@', 'EU', '3'],
      ['x@y.z', 'US', '5'],
    ]);
    expect(values(await samples(request({ sensorName: 'column/patterns/invalid_email_format_percent', column: 'e-mail' })))).toEqual(['bad@', 'x@y.z']);
  });

  it('values with quotes, commas and line breaks come back exactly', async () => {
    const found = await samples(request({ sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'note', parameters: { expected_values: ['fine'] } }));
    expect(values(found)).toEqual(['say "hi"', 'a,b', 'line\nbreak', '=HYPERLINK("http://x")', '-2+3']);
  });

  it("honours the table's filter and the check's filter, and names samples by data group", async () => {
    const filtered = await samples(
      request({ sensorName: 'column/numeric/negative_count', column: 'qty', parameters: { filter: `{alias}."Region" = 'US'` } }, { filter: 'qty > -7' }),
    );
    expect(ids(filtered)).toEqual([['US', '1']]);
    const grouped = await samples(request({ sensorName: 'column/numeric/negative_count', column: 'qty' }, { grouping: { levels: [{ tag: 'shop' }, { column: 'country' }] } }));
    expect(grouped.map((s) => [s.dataGroup, s.value])).toEqual([
      ['shop, DE', '-1'],
      ['shop, US', '-5'],
      ['shop, US', '-7'],
    ]);
  });

  it('duplicates: every copy of a repeated value or record, per data group', async () => {
    const values = await samples(request({ sensorName: 'column/uniqueness/duplicate_count', column: 'country' }));
    expect(values.map((s) => [s.value, ...s.rowIds])).toEqual([
      ['PL', 'EU', '1'],
      ['PL', 'EU', '2'],
      ['US', 'US', '1'],
      ['US', 'US', '5'],
      ['US', 'US', '7'],
    ]);
    const perRegion = await samples(request({ sensorName: 'column/uniqueness/duplicate_percent', column: 'country' }, { grouping: { columns: ['Region'] } }));
    expect(perRegion.map((s) => [s.dataGroup, s.value])).toEqual([
      ['EU', 'PL'],
      ['EU', 'PL'],
      ['US', 'US'],
      ['US', 'US'],
      ['US', 'US'],
    ]);
    const records = await samples(request({ sensorName: 'table/uniqueness/duplicate_record_count', parameters: { columns: ['country', 'Region'] } }));
    expect(records.map((s) => [s.value, ...s.rowIds])).toEqual([
      ['(PL,EU)', 'EU', '1'],
      ['(PL,EU)', 'EU', '2'],
      ['(US,US)', 'US', '1'],
      ['(US,US)', 'US', '5'],
      ['(US,US)', 'US', '7'],
    ]);
  });

  it('foreign keys not found, custom SQL conditions, and no row ids when the table has none', async () => {
    const missing = await samples(request({ sensorName: 'column/integrity/foreign_key_not_match_count', column: 'country', parameters: { foreign_table: 'Regions', foreign_column: 'code' } }), { idColumns: [] });
    expect(missing).toEqual([
      { dataGroup: 'all data', value: 'US', rowIds: [] },
      { dataGroup: 'all data', value: 'US', rowIds: [] },
      { dataGroup: 'all data', value: 'US', rowIds: [] },
    ]);
    const passed = await samples(request({ sensorName: 'table/custom_sql/sql_condition_passed_percent', parameters: { sql_condition: `{alias}.qty > 0 and {alias}.status <> 'lost'` } }));
    expect(passed.map((s) => [s.value, ...s.rowIds])).toEqual([
      [null, 'EU', '3'],
      [null, 'US', '1'],
      [null, 'US', '7'],
    ]);
    const failedOnColumn = await samples(request({ sensorName: 'column/custom_sql/sql_condition_failed_count', column: 'code', parameters: { sql_condition: `{column} like 'ABC%'` } }));
    expect(values(failedOnColumn)).toEqual(['abc-3']);
  });

  it('samples exactly the rows each count sensor counts, and the failing side of each share', async () => {
    const parameters: Record<string, Record<string, JsonValue>> = {
      'column/numeric/number_below_min_value_count': { min_value: 20 },
      'column/numeric/number_below_min_value_percent': { min_value: 20 },
      'column/numeric/number_above_max_value_count': { max_value: 2 },
      'column/numeric/number_above_max_value_percent': { max_value: 2 },
      'column/numeric/number_in_range_percent': { min_value: 0, max_value: 100 },
      'column/numeric/integer_in_range_percent': { min_value: 0, max_value: 100 },
      'column/text/text_length_below_min_length_count': { min_length: 5 },
      'column/text/text_length_below_min_length_percent': { min_length: 5 },
      'column/text/text_length_above_max_length_count': { max_length: 4 },
      'column/text/text_length_above_max_length_percent': { max_length: 4 },
      'column/text/text_length_in_range_percent': { min_length: 2, max_length: 10 },
      'column/patterns/text_not_matching_regex_count': { regex: '^[a-z]' },
      'column/patterns/texts_not_matching_regex_percent': { regex: '^[a-z]' },
      'column/patterns/text_not_matching_date_pattern_count': { date_format: 'YYYY-MM-DD' },
      'column/patterns/text_not_matching_date_patterns_percent': { date_format: 'YYYY-MM-DD' },
      'column/datetime/text_match_date_format_percent': { date_format: 'YYYY-MM-DD' },
      'column/datetime/date_in_range_percent': { min_date: '2024-01-01', max_date: '2024-12-31' },
      'column/accepted_values/text_found_in_set_percent': { expected_values: ['null', '12345'] },
      'column/accepted_values/number_found_in_set_percent': { expected_values: [1, 95] },
      'column/integrity/foreign_key_not_match_count': { foreign_table: 'Regions', foreign_column: 'code' },
      'column/integrity/foreign_key_match_percent': { foreign_table: 'Regions', foreign_column: 'code' },
      'column/custom_sql/sql_condition_failed_count': { sql_condition: `{column} like '%a%'` },
      'column/custom_sql/sql_condition_failed_percent': { sql_condition: `{column} like '%a%'` },
      'column/custom_sql/sql_condition_passed_count': { sql_condition: `{column} like '%a%'` },
      'column/custom_sql/sql_condition_passed_percent': { sql_condition: `{column} like '%a%'` },
      'table/custom_sql/sql_condition_failed_count': { sql_condition: 'n > 0' },
      'table/custom_sql/sql_condition_failed_percent': { sql_condition: 'n > 0' },
      'table/custom_sql/sql_condition_passed_count': { sql_condition: 'n > 0' },
      'table/custom_sql/sql_condition_passed_percent': { sql_condition: 'n > 0' },
    };
    // the rule of the sensor's checks says which side fails: max_* the rows counted, min_percent the others
    const failingSide = new Map<string, 'counted' | 'others'>();
    for (const check of getCheckCatalog().checks.values()) {
      if (check.rule === 'comparison/min_percent') failingSide.set(check.sensor, 'others');
      else if (check.rule === 'comparison/max_percent' || check.rule === 'comparison/max_count') failingSide.set(check.sensor, 'counted');
    }
    const sampled = [...SENSOR_DEFINITIONS.keys()].filter((name) => errorSamplingSupported(name) && !name.includes('/uniqueness/'));
    expect(sampled.length).toBeGreaterThan(60);
    const rows = 14;
    const nonNull = { t: 13, n: 13, d: 13 } as const;
    let withFailures = 0;
    for (const sensorName of sampled) {
      const column = sensorName.startsWith('table/')
        ? undefined
        : sensorName.startsWith('column/numeric/') || sensorName.includes('number_found')
          ? 'n'
          : sensorName.startsWith('column/datetime/date_')
            ? 'd'
            : 't';
      const req: TableQueryRequest = { schema: SCHEMA, table: 'Texts', sensors: [{ id: 's', sensorName, ...(column ? { column } : {}), parameters: parameters[sensorName] ?? {} }] };
      const { readouts } = await db.measure(req);
      const value = single(readouts, 's').actualValue!;
      const found = (await samples(req, { idColumns: ['id'] })).length;
      if (found > 0) withFailures++;
      if (sensorName.endsWith('_count')) {
        // a passed count counts the rows that pass; its samples are the other measured rows (a column sensor's: non-NULL)
        const measured = column === undefined ? rows : nonNull[column as keyof typeof nonNull];
        expect(found, sensorName).toBe(sensorName.endsWith('passed_count') ? measured - value : value);
        continue;
      }
      const side = failingSide.get(sensorName) ?? (sensorName.endsWith('passed_percent') ? 'others' : 'counted');
      // foreign_key_match_percent divides by the rows, as DQOps (a NULL value passes)
      const totals = column === undefined || sensorName.startsWith('column/nulls/') || sensorName.includes('foreign_key_match') ? [rows] : [nonNull[column as keyof typeof nonNull]];
      const shares = totals.map((n) => (100 * (side === 'counted' ? found : n - found)) / n);
      expect(shares.some((share) => Math.abs(share - value) < 1e-9), `${sensorName}: ${found} samples, value ${value}, side ${side}`).toBe(true);
    }
    expect(withFailures).toBeGreaterThan(50);
  });

  it('the API reports error sampling exactly for the sensors that have failing rows here', () => {
    const differ = [...SENSOR_DEFINITIONS.keys()].filter((name) => sensorSupportsErrorSampling(name) !== errorSamplingSupported(name)).sort();
    expect(differ).toEqual([]);
    expect(() => buildErrorSamplesQuery(request({ sensorName: 'column/bool/true_percent', column: 'qty' }), 's', { limit: 10, idColumns: [] })).toThrow(/no failing rows/);
    expect(() => buildErrorSamplesQuery(request({ sensorName: 'column/nulls/null_count', column: 'qty' }), 's', { limit: 0, idColumns: [] })).toThrow(/limit/);
  });
});
