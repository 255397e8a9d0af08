import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTableQuery, planSensorQueries, type SensorRequest } from '../../../src/datasource/sensors/index.js';
import { openSensorDatabase, rounded, single, type SensorDatabase } from './support/sensorDatabase.js';

/**
 * Sensors that read more than the analyzed rows: foreign keys and accuracy (a second table, here in another
 * schema with a hostile name), custom queries, schema sensors from pg_catalog, and the availability probe.
 * Also: the merged query of many sensors is ONE statement that scans the table once.
 */
const SEED = `
create schema "Ord ""S""";
create schema "other schema";
create table "other schema"."Cüstomers" (id int);
insert into "other schema"."Cüstomers" values (1), (2), (3), (null);
create table "Ord ""S"""."Customers" (id int);
insert into "Ord ""S"""."Customers" values (1), (4);
create table "Ord ""S"""."Örders.2024" ("Customer ID" int, amount numeric not null, "Näme" varchar(20), created date);
insert into "Ord ""S"""."Örders.2024" values (1, 1, 'a', '2024-01-01'), (2, 2, 'b', null), (2, 4, null, null), (4, 0, 'c', null), (5, 0, 'd', null), (null, 0, 'e', null);
create table "Ord ""S""".reference (amount numeric);
insert into "Ord ""S""".reference values (1), (2), (3);
create table "Ord ""S""".reordered (created date, "Näme" varchar(20), "Customer ID" int, amount numeric not null);
`;
const SCHEMA = 'Ord "S"';
const ORDERS = 'Örders.2024';
const CUSTOMER = 'Customer ID';

/** The hash the schema sensors document: the first 52 bits of SHA-256 of the JSON array of the parts. */
function expectedHash(parts: string[]): number {
  return Number(createHash('sha256').update(JSON.stringify(parts)).digest().readBigUInt64BE(0) >> 12n);
}

describe('reference, schema, availability and custom query sensors', () => {
  let db: SensorDatabase;
  beforeAll(async () => {
    db = await openSensorDatabase(SEED);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('foreign keys: values missing from the foreign table, which may be in another schema (schema.table)', async () => {
    const { readouts, queries } = await db.measure({
      schema: SCHEMA,
      table: ORDERS,
      sensors: [
        { id: 'missing', sensorName: 'column/integrity/foreign_key_not_match_count', column: CUSTOMER, parameters: { foreign_table: 'other schema.Cüstomers', foreign_column: 'id' } },
        { id: 'found%', sensorName: 'column/integrity/foreign_key_match_percent', column: CUSTOMER, parameters: { foreign_table: 'other schema.Cüstomers', foreign_column: 'id' } },
        { id: 'same schema', sensorName: 'column/integrity/foreign_key_not_match_count', column: CUSTOMER, parameters: { foreign_table: 'Customers', foreign_column: 'id' } },
        { id: 'rows', sensorName: 'table/volume/row_count' },
      ],
    });
    expect(queries).toHaveLength(1);
    expect(queries[0]!.text.match(/left join/g)).toHaveLength(2); // one join per distinct foreign key, shared by two sensors
    expect(single(readouts, 'missing').actualValue).toBe(2); // 4 and 5 (NULL is not a missing key)
    // DQOps counts every joined row and lets NULL pass: 1, 2, 2 and NULL of the 6 rows pass, 4 and 5 do not
    expect(rounded(single(readouts, 'found%').actualValue)).toBe(rounded((100 * 4) / 6));
    expect(single(readouts, 'same schema').actualValue).toBe(3); // 2, 2, 5
    expect(single(readouts, 'rows').actualValue).toBe(6); // the join does not multiply rows
  });

  it('accuracy: the actual value from this table, the expected value from the reference table', async () => {
    const { readouts } = await db.measure({
      schema: SCHEMA,
      table: ORDERS,
      sensors: [
        { id: 'sum', sensorName: 'column/accuracy/total_sum_match_percent', column: 'amount', parameters: { referenced_table: 'reference', referenced_column: 'amount' } },
        { id: 'min', sensorName: 'column/accuracy/total_min_match_percent', column: 'amount', parameters: { referenced_table: 'reference', referenced_column: 'amount' } },
        { id: 'max', sensorName: 'column/accuracy/total_max_match_percent', column: 'amount', parameters: { referenced_table: 'reference', referenced_column: 'amount' } },
        { id: 'avg', sensorName: 'column/accuracy/total_average_match_percent', column: 'amount', parameters: { referenced_table: 'reference', referenced_column: 'amount' } },
        { id: 'count', sensorName: 'column/accuracy/total_not_null_count_match_percent', column: 'amount', parameters: { referenced_table: 'reference', referenced_column: 'amount' } },
        { id: 'rows', sensorName: 'table/accuracy/total_row_count_match_percent', parameters: { referenced_table: 'reference' } },
      ],
    });
    expect(single(readouts, 'sum')).toEqual({ dataGroup: 'all data', actualValue: 7, expectedValue: 6 });
    expect(single(readouts, 'min')).toEqual({ dataGroup: 'all data', actualValue: 0, expectedValue: 1 });
    expect(single(readouts, 'max')).toEqual({ dataGroup: 'all data', actualValue: 4, expectedValue: 3 });
    expect(single(readouts, 'avg').actualValue).toBeCloseTo(7 / 6, 12);
    expect(single(readouts, 'avg').expectedValue).toBe(2);
    expect(single(readouts, 'count')).toEqual({ dataGroup: 'all data', actualValue: 6, expectedValue: 3 });
    expect(single(readouts, 'rows')).toEqual({ dataGroup: 'all data', actualValue: 6, expectedValue: 3 });
  });

  it('custom queries: invalid records and values counted, custom results imported', async () => {
    const { readouts, queries } = await db.measure({
      schema: SCHEMA,
      table: ORDERS,
      sensors: [
        { id: 'records', sensorName: 'table/custom_sql/sql_invalid_record_count', parameters: { sql_query: 'select * from {table} as {alias} where {alias}.amount = 0;' } },
        { id: 'values', sensorName: 'column/custom_sql/sql_invalid_value_count', column: CUSTOMER, parameters: { sql_query: 'select {column} from {table} where {column} > 1' } },
        { id: 'imported', sensorName: 'table/custom_sql/import_custom_result', parameters: { sql_query: "select 12.5 as actual_value, 10 as expected_value, 2 as severity union all select 1, null, 0" } },
        { id: 'imported column', sensorName: 'column/custom_sql/import_custom_result', column: 'amount', parameters: { sql_query: "select max({column}) as actual_value, 'g 1' as data_group from {table}" } },
      ],
    });
    expect(queries.map((q) => q.kind)).toEqual(['custom', 'custom', 'custom', 'custom']);
    expect(readouts.get('imported column')).toEqual([{ dataGroup: 'g 1', actualValue: 4 }]);
    expect(single(readouts, 'records').actualValue).toBe(3);
    expect(single(readouts, 'values').actualValue).toBe(4); // 2, 2, 4, 5
    expect(readouts.get('imported')).toEqual([
      { dataGroup: 'all data', actualValue: 12.5, expectedValue: 10, severity: 2 },
      { dataGroup: 'all data', actualValue: 1, expectedValue: null, severity: 0 },
    ]);
  });

  it('an aggregate expression with a check filter runs alone with the filter in WHERE', async () => {
    const plan = planSensorQueries({
      schema: SCHEMA,
      table: ORDERS,
      sensors: [
        { id: 'rows', sensorName: 'table/volume/row_count' },
        { id: 'spread', sensorName: 'column/custom_sql/sql_aggregated_expression', column: 'amount', parameters: { sql_expression: 'max({column}) - min({column})', filter: '{alias}."Customer ID" = 2' } },
      ],
    });
    expect(plan.queries.map((q) => q.sensorIds)).toEqual([['rows'], ['spread']]);
    expect(single(await db.run(plan.queries[1]!), 'spread').actualValue).toBe(2); // amounts 2 and 4
    expect(() =>
      buildTableQuery({
        schema: SCHEMA,
        table: ORDERS,
        sensors: [
          { id: 'rows', sensorName: 'table/volume/row_count' },
          { id: 'spread', sensorName: 'column/custom_sql/sql_aggregated_expression', column: 'amount', parameters: { sql_expression: 'max({column})', filter: 'true' } },
        ],
      }),
    ).toThrow(/query of its own/);
  });

  it('schema sensors come from one pg_catalog query: counts, existence and hashes', async () => {
    const sensors: SensorRequest[] = [
      { id: 'count', sensorName: 'table/schema/column_count' },
      { id: 'ordered', sensorName: 'table/schema/column_list_ordered_hash' },
      { id: 'unordered', sensorName: 'table/schema/column_list_unordered_hash' },
      { id: 'types', sensorName: 'table/schema/column_types_hash' },
      { id: 'exists', sensorName: 'column/schema/column_exists', column: 'Näme' },
      { id: 'missing', sensorName: 'column/schema/column_exists', column: 'nope' },
      { id: 'type', sensorName: 'column/schema/column_type_hash', column: 'Näme' },
      { id: 'type of missing', sensorName: 'column/schema/column_type_hash', column: 'nope' },
    ];
    const orders = await db.measure({ schema: SCHEMA, table: ORDERS, sensors });
    expect(orders.queries.map((q) => q.kind)).toEqual(['metadata']);
    const value = (readouts: typeof orders.readouts, id: string): number | null => single(readouts, id).actualValue;
    expect(value(orders.readouts, 'count')).toBe(4);
    expect(value(orders.readouts, 'exists')).toBe(1);
    expect(value(orders.readouts, 'missing')).toBe(0);
    expect(value(orders.readouts, 'type')).toBe(expectedHash(['character varying(20)']));
    expect(value(orders.readouts, 'type of missing')).toBeNull();
    expect(value(orders.readouts, 'ordered')).toBe(expectedHash([CUSTOMER, 'amount', 'Näme', 'created']));
    expect(value(orders.readouts, 'unordered')).toBe(expectedHash([CUSTOMER, 'Näme', 'amount', 'created'].sort()));
    expect(value(orders.readouts, 'types')).toBe(
      expectedHash([`${CUSTOMER} integer`, 'amount numeric not null', 'Näme character varying(20)', 'created date'].sort()),
    );

    // The same columns in another order: the unordered hashes agree, the ordered one does not.
    const reordered = await db.measure({ schema: SCHEMA, table: 'reordered', sensors });
    expect(value(reordered.readouts, 'unordered')).toBe(value(orders.readouts, 'unordered'));
    expect(value(reordered.readouts, 'types')).toBe(value(orders.readouts, 'types'));
    expect(value(reordered.readouts, 'ordered')).not.toBe(value(orders.readouts, 'ordered'));

    // A type change changes the type hashes; a new column the count.
    await db.client.query(`alter table "Ord ""S""".reordered alter column "Näme" type varchar(30), add column extra int`);
    const changed = await db.measure({ schema: SCHEMA, table: 'reordered', sensors });
    expect(value(changed.readouts, 'count')).toBe(5);
    expect(value(changed.readouts, 'type')).toBe(expectedHash(['character varying(30)']));
    expect(value(changed.readouts, 'types')).not.toBe(value(reordered.readouts, 'types'));
  });

  it('a missing table: schema sensors fail with NOT_FOUND, availability reads 1 (a failure), not an execution error', async () => {
    const plan = planSensorQueries({
      schema: SCHEMA,
      table: 'gone',
      sensors: [
        { id: 'count', sensorName: 'table/schema/column_count' },
        { id: 'available', sensorName: 'table/availability/table_availability' },
      ],
    });
    expect(plan.queries.map((q) => q.kind)).toEqual(['metadata', 'availability']);
    await expect(db.run(plan.queries[0]!)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(single(await db.run(plan.queries[1]!), 'available').actualValue).toBe(1);
    const present = await db.measure({ schema: SCHEMA, table: ORDERS, sensors: [{ id: 'available', sensorName: 'table/availability/table_availability' }] });
    expect(single(present.readouts, 'available').actualValue).toBe(0);
  });

  it('the merged query of N sensors is exactly one statement that scans the table once', async () => {
    const sensors: SensorRequest[] = [
      { id: 'rows', sensorName: 'table/volume/row_count' },
      ...['null_count', 'null_percent', 'not_null_count', 'not_null_percent'].map((name) => ({ id: name, sensorName: `column/nulls/${name}`, column: 'Näme' })),
      ...['distinct_count', 'distinct_percent', 'duplicate_count', 'duplicate_percent'].map((name) => ({ id: name, sensorName: `column/uniqueness/${name}`, column: CUSTOMER })),
      { id: 'min', sensorName: 'column/range/min_value', column: 'amount' },
      { id: 'max', sensorName: 'column/range/max_value', column: 'amount' },
      { id: 'median', sensorName: 'column/numeric/percentile', column: 'amount' },
      { id: 'regex', sensorName: 'column/patterns/text_not_matching_regex_count', column: 'Näme', parameters: { regex: '^[a-z]$' } },
      { id: 'set', sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'Näme', parameters: { expected_values: ['a', 'b'] } },
    ];
    const plan = planSensorQueries({ schema: SCHEMA, table: ORDERS, sensors });
    expect(plan.queries).toHaveLength(1);
    const [query] = plan.queries;
    expect(query!.sensorIds).toHaveLength(sensors.length);
    expect(query!.text).not.toContain(';');
    expect(query!.text.match(/^select/gim)).toHaveLength(1);
    // The server agrees: one statement (the extended protocol refuses more), one plan, one scan of the table.
    const explain = { text: `explain (format json) ${query!.text}`, values: query!.values, queryMode: 'extended' };
    const explained = await db.client.query(explain);
    const scans: string[] = [];
    const walk = (node: Record<string, unknown>): void => {
      if (typeof node['Relation Name'] === 'string') scans.push(node['Relation Name']);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    const plans = (explained.rows as Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>)[0]!['QUERY PLAN'];
    expect(plans).toHaveLength(1);
    walk(plans[0]!.Plan);
    expect(scans).toEqual([ORDERS]);
  });

  it('rejects what cannot be built, with the reason, and builds the rest', () => {
    const plan = planSensorQueries({
      schema: SCHEMA,
      table: ORDERS,
      sensors: [
        { id: 'ok', sensorName: 'table/volume/row_count' },
        { id: 'unknown', sensorName: 'column/nulls/nul_count', column: 'x' },
        { id: 'no column', sensorName: 'column/nulls/null_count' },
        { id: 'no regex', sensorName: 'column/patterns/text_not_matching_regex_count', column: 'x' },
        { id: 'wrong type', sensorName: 'column/numeric/number_below_min_value_count', column: 'x', parameters: { min_value: '0; drop' } },
        { id: 'bad list', sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'x', parameters: { expected_values: [1, 2] } },
        { id: 'bad percentile', sensorName: 'column/numeric/percentile', column: 'x', parameters: { percentile_value: 2 } },
        { id: 'samples', sensorName: 'column/sampling/column_samples', column: 'x' },
        { id: 'ok', sensorName: 'table/volume/row_count' },
      ],
    });
    expect(plan.queries.map((q) => q.sensorIds)).toEqual([['ok']]);
    expect(Object.fromEntries(plan.rejected.map((r) => [r.id, r.reason]))).toEqual({
      unknown: 'unknown sensor "column/nulls/nul_count"',
      'no column': 'the column sensor column/nulls/null_count needs a column',
      'no regex': 'the sensor parameter "regex" is required',
      'wrong type': 'the sensor parameter "min_value" must be a number, not "0; drop"',
      'bad list': 'the sensor parameter "expected_values" must be a list of strings, not [1,2]',
      'bad percentile': 'sensor "bad percentile": the sensor parameter "percentile_value" must be between 0 and 1',
      samples: expect.stringMatching(/^the sensor column\/sampling\/column_samples is not implemented/),
      ok: 'duplicate sensor id "ok"',
    });
  });
});
