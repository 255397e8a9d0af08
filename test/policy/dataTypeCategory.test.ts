import { describe, expect, it } from 'vitest';
import { DATA_TYPE_CATEGORIES as SCHEMA_CATEGORIES } from '../../src/schema/build/policySchemas.js';
import { DATA_TYPE_CATEGORIES, dataTypeCategoryOf } from '../../src/policy/index.js';

describe('dataTypeCategoryOf (PostgreSQL types)', () => {
  const cases: Record<string, string[]> = {
    numeric_integer: ['int2', 'int4', 'int8', 'smallint', 'integer', 'bigint', 'serial', 'bigserial', 'INTEGER', 'int'],
    numeric_decimal: ['numeric', 'decimal', 'money', 'numeric(10,2)', 'NUMERIC(10, 2)', 'decimal(5)'],
    numeric_float: ['real', 'float4', 'float8', 'double precision', 'Double Precision', 'float(24)'],
    datetime_timestamp: [
      'timestamp', 'timestamptz', 'timestamp with time zone', 'timestamp without time zone', 'timestamp(3)',
      'timestamp(6) with time zone', 'TIMESTAMP(6) WITHOUT TIME ZONE', 'timestamptz(3)',
    ],
    datetime_date: ['date', 'DATE'],
    datetime_time: ['time', 'timetz', 'time with time zone', 'time(3) without time zone'],
    text: ['text', 'varchar', 'varchar(255)', 'character varying', 'character varying(40)', 'char', 'char(2)', 'character(3)', 'bpchar', 'name', 'uuid', 'citext', 'VARCHAR(255)', 'public.citext'],
    json: ['json', 'jsonb', 'JSONB'],
    bool: ['bool', 'boolean', 'BOOLEAN'],
    binary: ['bytea'],
    array: ['integer[]', 'text[]', 'varchar(20)[]', 'int4[][]', '_int4', '_text', 'integer[3]'],
    other: ['interval', 'xml', 'point', 'tsvector', 'inet', 'my_enum', 'bit varying(3)'],
  };
  for (const [category, types] of Object.entries(cases)) {
    it(`${category}: ${types.join(', ')}`, () => {
      for (const type of types) expect([type, dataTypeCategoryOf(type)]).toEqual([type, category]);
    });
  }

  it('has no category without a type', () => {
    expect(dataTypeCategoryOf(undefined)).toBeUndefined();
    expect(dataTypeCategoryOf(null)).toBeUndefined();
    expect(dataTypeCategoryOf('  ')).toBeUndefined();
  });

  it('tolerates surrounding spaces', () => {
    expect(dataTypeCategoryOf('  int4 ')).toBe('numeric_integer');
  });

  it('produces only categories the policy schema allows', () => {
    expect([...DATA_TYPE_CATEGORIES]).toEqual([...SCHEMA_CATEGORIES]);
    for (const types of Object.values(cases)) {
      for (const type of types) expect(DATA_TYPE_CATEGORIES).toContain(dataTypeCategoryOf(type));
    }
  });
});
