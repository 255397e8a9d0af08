import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { autoImportTables, importTables } from '../../src/jobs/importTables.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { effectiveTableAndColumnChecks, tableRefOf } from '../../src/policy/index.js';
import { createSourceFixture, SEED_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const EXTRA = `
create table public.customers (id int primary key, name text);
create table public.orders_archive (id int);
create schema "with.dot";
create table "with.dot".t (x int);
`;
const NAME = 'src/Sales "EU".order lines.2024';

describe('import tables into the live store', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let objects: LiveObjects;
  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL + EXTRA);
    fx = await STORE_ENGINES[1].setup();
    dataSources = new DataSources({ env: source.env });
  });
  afterAll(async () => {
    await dataSources.close();
    await fx.dispose();
    await source.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
  });

  it('creates API-managed tables with each column type_snapshot; skips a schema whose name has a dot', async () => {
    const result = await importTables({ objects, dataSources }, { connection: 'src', caller: 'test' });
    expect(result.created).toEqual([NAME, 'src/public.customers', 'src/public.orders_archive']);
    expect(result.skipped).toEqual([{ table: 'with.dot.t', reason: expect.stringContaining('dot') }]);
    const table = await objects.require('table', NAME);
    expect(table.managedBy).toBe('api');
    expect(table.spec.columns).toEqual({
      'Line ID': { type_snapshot: { column_type: 'int4', nullable: false } },
      'Ünit Price': { type_snapshot: { column_type: 'numeric', nullable: true, precision: 10, scale: 2 } },
      'Product Name': { type_snapshot: { column_type: 'varchar', nullable: true, length: 40 } },
      created_at: { type_snapshot: { column_type: 'timestamptz', nullable: true } },
      Flag: { type_snapshot: { column_type: 'bool', nullable: true } },
      doc: { type_snapshot: { column_type: 'jsonb', nullable: true } },
      'Region.Code': { type_snapshot: { column_type: 'text', nullable: true } },
      'qty"; drop table x; --': { type_snapshot: { column_type: 'int4', nullable: false } },
    });
    // secrets stay references in the store
    expect(JSON.stringify(await fx.store.listObjects())).not.toContain(source.env.DQ_TEST_SOURCE_PASSWORD);
  });

  it('filters by schema (wildcards) and table name text', async () => {
    const result = await importTables({ objects, dataSources }, { connection: 'src', schema: 'pub*', tableContains: 'orders', caller: 'test' });
    expect(result.created).toEqual(['src/public.orders_archive']);
  });

  it('a table that exists keeps its checks and settings; only snapshots change, new columns are added, gone ones kept', async () => {
    await importTables({ objects, dataSources }, { connection: 'src', schema: 'public', caller: 'test' });
    await objects.update('table', 'src/public.customers', { caller: 'test' }, (current) => ({
      spec: {
        ...current.spec,
        labels: ['crm'],
        monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } },
        columns: {
          ...(current.spec.columns as object),
          name: { type_snapshot: { column_type: 'text', nullable: true }, monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } },
          legacy: { type_snapshot: { column_type: 'text', nullable: true } },
        },
      },
    }));
    await source.admin('alter table public.customers alter column name type varchar(80), add column email text not null default \'\'');
    const again = await importTables({ objects, dataSources }, { connection: 'src', schema: 'public', caller: 'test' });
    expect(again.updated).toEqual(['src/public.customers']);
    expect(again.unchanged).toEqual(['src/public.orders_archive']);
    const customers = await objects.require('table', 'src/public.customers');
    expect(customers.spec).toMatchObject({
      labels: ['crm'],
      monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } },
      columns: {
        id: { type_snapshot: { column_type: 'int4', nullable: false } },
        name: { type_snapshot: { column_type: 'varchar', nullable: true, length: 80 }, monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } },
        email: { type_snapshot: { column_type: 'text', nullable: false } },
        legacy: { type_snapshot: { column_type: 'text', nullable: true } },
      },
    });
    const third = await importTables({ objects, dataSources }, { connection: 'src', schema: 'public', caller: 'test' });
    expect(third.unchanged).toEqual(['src/public.customers', 'src/public.orders_archive']);
  });

  it('the imported type_snapshot is what data_type_category policy targets match', async () => {
    await importTables({ objects, dataSources }, { connection: 'src', schema: 'Sales*', caller: 'test' });
    const table = await objects.require('table', NAME);
    const policy = {
      kind: 'default_column_checks' as const,
      name: 'decimals',
      spec: { target: { data_type_category: 'numeric_decimal' }, monitoring_checks: { daily: { nulls: { daily_nulls_count: {} } } } },
    };
    const effective = effectiveTableAndColumnChecks(tableRefOf(table.name, table.spec)!, source.spec(), [policy]);
    const withCheck = Object.entries(effective.columns)
      .filter(([, checks]) => Object.keys(checks.monitoring.daily).length > 0)
      .map(([name]) => name);
    expect(withCheck).toEqual(['Ünit Price']);
  });

  it('auto import (auto_import_tables of the connection) only creates tables that are not in the store yet', async () => {
    expect(await autoImportTables({ objects, dataSources }, 'src', { caller: 'reconcile' })).toBeNull();
    await objects.update('source', 'src', { caller: 'test' }, (c) => ({ spec: { ...c.spec, auto_import_tables: { schema_filter: 'public', table_name_contains: 'o' } } }));
    await importTables({ objects, dataSources }, { connection: 'src', schema: 'public', tableContains: 'customers', caller: 'test' });
    const before = await objects.require('table', 'src/public.customers');
    await source.admin('alter table public.customers add column phone text');
    const auto = await autoImportTables({ objects, dataSources }, 'src', { caller: 'reconcile' });
    expect(auto!.created).toEqual(['src/public.orders_archive']);
    expect(auto!.unchanged).toEqual([]);
    expect((await objects.require('table', 'src/public.customers')).revision).toBe(before.revision);
  });

  it('an unknown connection is NOT_FOUND; an unreachable source is a coded error', async () => {
    await expect(importTables({ objects, dataSources }, { connection: 'nope', caller: 'test' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const spec = source.spec();
    (spec.postgresql as Record<string, unknown>).port = 1;
    await objects.create('source', 'down', spec, { caller: 'test' });
    await expect(importTables({ objects, dataSources }, { connection: 'down', caller: 'test' })).rejects.toMatchObject({ code: 'DATASOURCE_UNREACHABLE' });
  });
});
