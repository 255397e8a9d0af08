import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources, describeTable, describeTables, listSchemas, listTables, schemaTableKey } from '../../src/datasource/index.js';
import { createSourceFixture, SEED_SQL, type SourceFixture } from './sourceFixture.js';

const EXTRA = `
create schema other;
create table other.orders (id bigint, code char(3), amount numeric(12, 4), tags text[], primary key (code, id));
create view other.orders_view as select id, code from other.orders;
create table other.events (id int, at date) partition by range (at);
create table other.events_2024 partition of other.events for values from ('2024-01-01') to ('2025-01-01');
create domain other.positive as numeric(8, 3) not null check (value > 0);
create table other.measures (m other.positive, v varchar);
`;

describe('introspection of a PostgreSQL source', () => {
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

  it('lists the user schemas, not the system ones', async () => {
    const schemas = await listSchemas(registry.get('src', source.spec()));
    expect(schemas).toEqual(['Sales "EU"', 'other', 'public']);
  });

  it('lists tables, views and partitioned tables (not their partitions), filtered by schema wildcard and name text', async () => {
    const ds = registry.get('src', source.spec());
    expect(await listTables(ds)).toEqual([
      { schema: 'Sales "EU"', table: 'order lines.2024', kind: 'table' },
      { schema: 'other', table: 'events', kind: 'partitioned_table' },
      { schema: 'other', table: 'measures', kind: 'table' },
      { schema: 'other', table: 'orders', kind: 'table' },
      { schema: 'other', table: 'orders_view', kind: 'view' },
    ]);
    expect((await listTables(ds, { schema: 'Sales*' })).map((t) => t.table)).toEqual(['order lines.2024']);
    expect((await listTables(ds, { schema: 'oth*', tableContains: 'orders' })).map((t) => t.table)).toEqual(['orders', 'orders_view']);
    // LIKE metacharacters in a filter are literal: `_` is not "any character"
    expect(await listTables(ds, { schema: 'oth_r' })).toEqual([]);
    expect(await listTables(ds, { tableContains: "'; drop table x; --" })).toEqual([]);
  });

  it('describes columns with type names, nullability, length, precision, scale and primary key positions', async () => {
    const ds = registry.get('src', source.spec());
    const columns = await describeTable(ds, 'Sales "EU"', 'order lines.2024');
    expect(columns.map((c) => [c.name, c.columnType, c.nullable, c.length, c.precision, c.scale, c.primaryKeyPosition])).toEqual([
      ['Line ID', 'int4', false, null, null, null, 1],
      ['Ünit Price', 'numeric', true, null, 10, 2, null],
      ['Product Name', 'varchar', true, 40, null, null, null],
      ['created_at', 'timestamptz', true, null, null, null, null],
      ['Flag', 'bool', true, null, null, null, null],
      ['doc', 'jsonb', true, null, null, null, null],
      ['Region.Code', 'text', true, null, null, null, null],
      ['qty"; drop table x; --', 'int4', false, null, null, null, null],
    ]);
    const orders = await describeTable(ds, 'other', 'orders');
    expect(orders.map((c) => [c.name, c.columnType, c.length, c.precision, c.scale, c.primaryKeyPosition])).toEqual([
      ['id', 'int8', null, null, null, 2],
      ['code', 'bpchar', 3, null, null, 1],
      ['amount', 'numeric', null, 12, 4, null],
      ['tags', '_text', null, null, null, null],
    ]);
    const [m] = await describeTable(ds, 'other', 'measures');
    expect(m).toMatchObject({ columnType: 'positive', baseType: 'numeric', typeCategory: 'N', nullable: false, precision: 8, scale: 3 });
    expect(await describeTable(ds, 'other', 'no such table')).toEqual([]);
  });

  it('describes every selected table in one query', async () => {
    const all = await describeTables(registry.get('src', source.spec()), { schema: 'other' });
    expect([...all.keys()].sort()).toEqual([schemaTableKey('other', 'events'), schemaTableKey('other', 'measures'), schemaTableKey('other', 'orders'), schemaTableKey('other', 'orders_view')].sort());
    expect(all.get(schemaTableKey('other', 'orders_view'))!.map((c) => c.name)).toEqual(['id', 'code']);
  });
});
