/**
 * `import tables`, statistics and error samples on DuckDB files and on MariaDB, through the dialect layer: the
 * catalog (schemas, tables, columns), the statistics of one table (whole and per data group) and the error
 * samples of two checks, on the same five rows in both engines:
 *
 *   id  name   amount  region
 *   1   'Ann'  10.5    'eu'
 *   2   'Bob'  -3      'eu'
 *   3   NULL   7       'us'
 *   4   'Ann'  NULL    'us'
 *   5   'Cy'   7       'us'
 *
 * Expected values, counted by hand: 5 rows. name: 1 NULL (20 %), 3 distinct of 4 values, 1 duplicate, min 'Ann',
 * max 'Cy', lengths 2 to 3, mean (3 + 3 + 3 + 2) / 4 = 2.75, most common Ann (2), then Bob and Cy (1 each, ties by
 * text). amount: 1 NULL, 3 distinct, min -3, max 10.5, mean (10.5 - 3 + 7 + 7) / 4 = 5.375, most common 7 (2).
 * id: unique, so its "most common" values are the first five by text. Per region: eu has Ann and Bob once each;
 * us has Ann and Cy once each and 7 twice. Error samples: the NULL name is row 3; the negative amount is row 2.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectTableStatistics,
  DataSources,
  describeTable,
  describeTablesOrFailures,
  listSchemas,
  listTables,
  schemaTableKey,
  type DataSource,
  type StatisticsValue,
} from '../../src/datasource/index.js';
import { tablesOfListedFiles } from '../../src/datasource/duckdb/duckdbCatalog.js';
import { buildErrorSamplesQuery, type TableQueryRequest } from '../../src/datasource/sensors/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { collectErrorSamples } from '../../src/jobs/executors/collectErrorSamples.js';
import { importTables } from '../../src/jobs/importTables.js';
import { testConnection } from '../../src/app/probeDataSource.js';
import { DqError, type JsonObject } from '../../src/model/index.js';
import { freePort, MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../helpers/mariadbServer.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const ROWS: Array<[number, string | null, number | null, string]> = [
  [1, 'Ann', 10.5, 'eu'],
  [2, 'Bob', -3, 'eu'],
  [3, null, 7, 'us'],
  [4, 'Ann', null, 'us'],
  [5, 'Cy', 7, 'us'],
];

let folder: string;
let server: MariadbServer;
let store: StoreFixture;
const sources = new DataSources({ env: { MARIADB_PASSWORD_FOR_TEST: MARIADB_PASSWORD } });

function duckdbSpec(directories: Record<string, string>): JsonObject {
  return { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'csv', directories, csv: { header: true } } };
}
function mariadbSpec(port: number): JsonObject {
  return { provider_type: 'mariadb', mariadb: { host: '127.0.0.1', port: String(port), database: 'shop', user: MARIADB_USER, password: '${MARIADB_PASSWORD_FOR_TEST}' } };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dqctl-catalog-'));
  await mkdir(join(folder, 'shop', 'orders'), { recursive: true });
  await mkdir(join(folder, 'shop', 'empty'), { recursive: true });
  const csv = ['id,name,amount,region', ...ROWS.map(([id, name, amount, region]) => `${id},${name ?? ''},${amount ?? ''},${region}`)].join('\n');
  await writeFile(join(folder, 'shop', 'orders', 'part-1.csv'), `${csv}\n`);
  await writeFile(join(folder, 'shop', 'customers.csv'), 'id,name\n1,Ann\n');
  server = await startMariadb();
  await server.admin([
    'create database shop character set utf8mb4 collate utf8mb4_nopad_bin',
    'create table shop.orders (id int primary key, name varchar(20), amount double, region varchar(5) not null)',
    `insert into shop.orders values ${ROWS.map(([id, name, amount, region]) => `(${id}, ${name === null ? 'null' : `'${name}'`}, ${amount ?? 'null'}, '${region}')`).join(', ')}`,
    'create view shop.v_orders as select id from shop.orders',
  ]);
  store = await STORE_ENGINES[0]!.setup();
}, 120_000);

afterAll(async () => {
  await sources.close();
  await server?.stop();
  await store?.dispose();
  await rm(folder, { recursive: true, force: true });
});

interface Engine {
  name: 'duckdb' | 'mariadb';
  source: () => DataSource;
  /** The text of the amounts 7 and -3 (DuckDB reads the CSV column as DOUBLE and writes 7.0). */
  seven: string;
  minusThree: string;
}

const ENGINES: Engine[] = [
  { name: 'duckdb', source: () => sources.get('files', duckdbSpec({ shop: join(folder, 'shop') })), seven: '7.0', minusThree: '-3.0' },
  { name: 'mariadb', source: () => sources.get('maria', mariadbSpec(server.port)), seven: '7', minusThree: '-3' },
];

const valueOf = (values: StatisticsValue[], column: string | null, collector: string, dataGroup = 'all data') =>
  values.find((v) => v.columnName === column && v.collector === collector && v.dataGroup === dataGroup);

describe('the catalog of DuckDB files and MariaDB', () => {
  it('DuckDB: the schemas are the folders, the tables their sub-folders and files, the columns what the reader detects', async () => {
    const source = ENGINES[0]!.source();
    expect(await listSchemas(source)).toEqual(['shop']);
    expect(await listTables(source, { schema: 'sh*' })).toEqual([
      { schema: 'shop', table: 'customers.csv', kind: 'table' },
      { schema: 'shop', table: 'empty', kind: 'table' },
      { schema: 'shop', table: 'orders', kind: 'table' },
    ]);
    const described = await describeTablesOrFailures(source, { schema: 'shop' });
    expect(described.get(schemaTableKey('shop', 'orders'))).toEqual([
      expect.objectContaining({ name: 'id', ordinal: 1, columnType: 'BIGINT', baseType: 'bigint', typeCategory: 'N', nullable: true }),
      expect.objectContaining({ name: 'name', ordinal: 2, columnType: 'VARCHAR', typeCategory: 'S' }),
      expect.objectContaining({ name: 'amount', ordinal: 3, columnType: 'DOUBLE', typeCategory: 'N' }),
      expect.objectContaining({ name: 'region', ordinal: 4, columnType: 'VARCHAR' }),
    ]);
    // a folder without files of the format cannot be described: the reason, not a crash
    expect(described.get(schemaTableKey('shop', 'empty'))).toEqual({ error: expect.stringMatching(/No files found/) });
  });

  it('MariaDB: the databases, their tables and views, each column with its data_type, length and primary key', async () => {
    const source = ENGINES[1]!.source();
    expect(await listSchemas(source)).toContain('shop');
    expect(await listSchemas(source)).not.toContain('mysql');
    expect(await listTables(source, { schema: 'shop' })).toEqual([
      { schema: 'shop', table: 'orders', kind: 'table' },
      { schema: 'shop', table: 'v_orders', kind: 'view' },
    ]);
    expect(await listTables(source, { schema: 'shop', tableContains: 'v_' })).toEqual([{ schema: 'shop', table: 'v_orders', kind: 'view' }]);
    expect(await describeTable(source, 'shop', 'orders')).toEqual([
      { name: 'id', ordinal: 1, columnType: 'int', baseType: 'int', typeCategory: 'N', nullable: false, length: null, precision: null, scale: null, primaryKeyPosition: 1 },
      { name: 'name', ordinal: 2, columnType: 'varchar', baseType: 'varchar', typeCategory: 'S', nullable: true, length: 20, precision: null, scale: null, primaryKeyPosition: null },
      { name: 'amount', ordinal: 3, columnType: 'double', baseType: 'double', typeCategory: 'N', nullable: true, length: null, precision: null, scale: null, primaryKeyPosition: null },
      { name: 'region', ordinal: 4, columnType: 'varchar', baseType: 'varchar', typeCategory: 'S', nullable: false, length: 5, precision: null, scale: null, primaryKeyPosition: null },
    ]);
    expect(await describeTable(source, 'shop', 'no_such_table')).toEqual([]);
  });
});

describe.each(ENGINES)('statistics and error samples on $name', (engine) => {
  it('collects the statistics of the whole table, counted by hand', async () => {
    const { values } = await collectTableStatistics(engine.source(), { schema: 'shop', table: 'orders' });
    expect(valueOf(values, null, 'row_count')?.double).toBe(5);
    expect(valueOf(values, 'name', 'nulls_count')?.double).toBe(1);
    expect(valueOf(values, 'name', 'nulls_percent')?.double).toBe(20);
    expect(valueOf(values, 'name', 'distinct_count')?.double).toBe(3);
    expect(valueOf(values, 'name', 'duplicate_count')?.double).toBe(1);
    expect(valueOf(values, 'name', 'min_value')?.text).toBe('Ann');
    expect(valueOf(values, 'name', 'max_value')?.text).toBe('Cy');
    expect(valueOf(values, 'name', 'text_min_length')?.double).toBe(2);
    expect(valueOf(values, 'name', 'text_max_length')?.double).toBe(3);
    expect(valueOf(values, 'name', 'text_mean_length')?.double).toBe(2.75);
    expect(valueOf(values, 'name', 'top_values')?.json).toEqual([{ value: 'Ann', count: 2 }, { value: 'Bob', count: 1 }, { value: 'Cy', count: 1 }]);
    expect(valueOf(values, 'amount', 'min_value')?.double).toBe(-3);
    expect(valueOf(values, 'amount', 'max_value')?.double).toBe(10.5);
    expect(valueOf(values, 'amount', 'mean_value')?.double).toBe(5.375);
    expect(valueOf(values, 'amount', 'distinct_count')?.double).toBe(3);
    expect((valueOf(values, 'amount', 'top_values')?.json as Array<{ value: string; count: number }>)[0]).toEqual({ value: engine.seven, count: 2 });
    expect(valueOf(values, 'id', 'top_values')?.json).toEqual(['1', '2', '3', '4', '5'].map((value) => ({ value, count: 1 })));
  });

  it('collects per data group (the most common values ranked within each group)', async () => {
    const { values } = await collectTableStatistics(engine.source(), { schema: 'shop', table: 'orders', grouping: [{ column: 'region' }], collectors: { names: new Set(['row_count', 'top_values']) } });
    expect(valueOf(values, null, 'row_count', 'eu')?.double).toBe(2);
    expect(valueOf(values, null, 'row_count', 'us')?.double).toBe(3);
    expect(valueOf(values, 'name', 'top_values', 'eu')?.json).toEqual([{ value: 'Ann', count: 1 }, { value: 'Bob', count: 1 }]);
    expect(valueOf(values, 'name', 'top_values', 'us')?.json).toEqual([{ value: 'Ann', count: 1 }, { value: 'Cy', count: 1 }]);
    expect(valueOf(values, 'amount', 'top_values', 'us')?.json).toEqual([{ value: engine.seven, count: 2 }]);
  });

  it('samples the failing rows of a check in the table\'s dialect, with the row ids', async () => {
    const source = engine.source();
    const target = await source.sqlTarget('shop', 'orders');
    const request: TableQueryRequest = {
      schema: 'shop',
      table: 'orders',
      ...target,
      sensors: [
        { id: 'nulls', sensorName: 'column/nulls/null_count', column: 'name' },
        { id: 'negative', sensorName: 'column/numeric/negative_count', column: 'amount' },
      ],
    };
    const sample = async (id: string) => {
      const query = buildErrorSamplesQuery(request, id, { limit: 10, idColumns: ['id'] });
      return query.parse(await source.query(query.text, query.values));
    };
    expect(await sample('nulls')).toEqual([{ dataGroup: 'all data', value: null, rowIds: ['3'] }]);
    expect(await sample('negative')).toEqual([{ dataGroup: 'all data', value: engine.minusThree, rowIds: ['2'] }]);
  });

  it('imports the tables into the live store with their type snapshots', async () => {
    await store.reset();
    const objects = new LiveObjects(store.store, { revisionCheckMs: 0 });
    const spec = engine.name === 'duckdb' ? duckdbSpec({ shop: join(folder, 'shop') }) : mariadbSpec(server.port);
    await objects.create('source', engine.name, spec, { caller: 'test' });
    const result = await importTables({ objects, dataSources: sources }, { connection: engine.name, schema: 'shop', caller: 'test' });
    if (engine.name === 'duckdb') {
      expect(result.created).toEqual(['duckdb/shop.customers.csv', 'duckdb/shop.orders']);
      expect(result.skipped).toEqual([{ table: 'shop.empty', reason: expect.stringMatching(/No files found/) }]);
      expect((await objects.require('table', 'duckdb/shop.orders')).spec.columns).toMatchObject({ amount: { type_snapshot: { column_type: 'DOUBLE', nullable: true } } });
    } else {
      expect(result.created).toEqual(['mariadb/shop.orders', 'mariadb/shop.v_orders']);
      expect((await objects.require('table', 'mariadb/shop.orders')).spec.columns).toMatchObject({
        id: { type_snapshot: { column_type: 'int', nullable: false } },
        name: { type_snapshot: { column_type: 'varchar', nullable: true, length: 20 } },
      });
    }
  });
});

describe('import tables of remote DuckDB folders', () => {
  it('names the tables of a bucket from the files its glob lists, as a local folder\'s', () => {
    const listed = [
      's3://bucket/lake/customers.csv',
      's3://bucket/lake/notes.txt',
      's3://bucket/lake/orders/part-1.csv',
      's3://bucket/lake/orders/part-2.csv',
      's3://bucket/lake/events/year=2024/month=1/part-1.csv',
      's3://bucket/lakehouse/other.csv',
    ];
    expect(tablesOfListedFiles('s3://bucket/lake/', listed, '.csv')).toEqual(['customers.csv', 'events', 'orders']);
  });

  it('without the DuckDB extension that reads the bucket, the import fails naming it (httpfs, azure), never a crash', async () => {
    await store.reset();
    const objects = new LiveObjects(store.store, { revisionCheckMs: 0 });
    for (const [name, folder] of [['s3lake', 's3://dqctl-test-bucket/lake'], ['azlake', 'az://dqctl-test-container/lake']]) {
      await objects.create('source', name, duckdbSpec({ lake: folder }), { caller: 'test' });
    }
    await expect(importTables({ objects, dataSources: sources }, { connection: 's3lake', schema: 'lake', caller: 'test' })).rejects.toThrow(/remote files need DuckDB's httpfs extension/);
    await expect(importTables({ objects, dataSources: sources }, { connection: 'azlake', schema: 'lake', caller: 'test' })).rejects.toThrow(/remote files need DuckDB's azure extension/);
    expect(await objects.list('table')).toEqual([]);
  });
});

describe('error samples of MySQL date and time columns', () => {
  it('a TIMESTAMP is an instant, reported in UTC with its offset; a DATETIME stays a local date and time', async () => {
    // written in +02:00: MariaDB stores the TIMESTAMP (at most 2038) as 10:00 UTC; the DATETIME keeps the digits it was given
    await server.admin([
      'create table shop.events (id int primary key, happened timestamp null, noted datetime null)',
      "set time_zone = '+02:00'",
      "insert into shop.events values (1, '2037-06-01 12:00:00', '2037-06-01 12:00:00'), (2, '2000-01-01 12:00:00', '2000-01-01 12:00:00')",
    ]);
    await store.reset();
    const objects = new LiveObjects(store.store, { revisionCheckMs: 0 });
    await objects.create('source', 'maria', mariadbSpec(server.port), { caller: 'test' });
    const inFuture = { monitoring_checks: { daily: { datetime: { daily_date_values_in_future_percent: { error: { max_percent: 0 } } } } } };
    await objects.create('table', 'maria/shop.events', { columns: { id: {}, happened: inFuture, noted: inFuture } }, { caller: 'test' });
    const run = await collectErrorSamples({ store: store.store, objects, dataSources: sources }, { check_search_filters: { connection: 'maria' } });
    expect(run.result.total_error_samples_collected).toBe(2);
    const samples = await store.store.errorSamples({ connectionName: 'maria', schemaName: 'shop', tableName: 'events' });
    const byColumn = Object.fromEntries(samples.map((s) => [s.columnName, [s.result, s.resultDataType, s.rowId1]]));
    expect(byColumn).toEqual({ happened: ['2037-06-01 10:00:00+00', 'instant', '1'], noted: ['2037-06-01 12:00:00', 'datetime', '1'] });
  });
});

describe('the connection test of the API', () => {
  it('reaches DuckDB folders and MariaDB; a missing folder and a closed port fail with the reason', async () => {
    const objects = new LiveObjects(store.store, { revisionCheckMs: 0 });
    const deps = { objects, dataSources: sources };
    expect(await testConnection(deps, 'files', duckdbSpec({ shop: join(folder, 'shop') }))).toEqual({ connectionTestResult: 'SUCCESS' });
    expect(await testConnection(deps, 'maria', mariadbSpec(server.port))).toEqual({ connectionTestResult: 'SUCCESS' });
    expect(await testConnection(deps, 'files', duckdbSpec({ shop: join(folder, 'gone') }))).toEqual({
      connectionTestResult: 'FAILURE',
      errorMessage: expect.stringMatching(/the folder of schema "shop" cannot be read \(ENOENT\)/),
    });
    const closed = await testConnection(deps, 'maria', mariadbSpec(await freePort()));
    expect(closed).toEqual({ connectionTestResult: 'FAILURE', errorMessage: expect.stringMatching(/refused the connection/) });
    expect(closed.errorMessage).not.toContain(MARIADB_PASSWORD);
    expect(await testConnection(deps, 'other', { provider_type: 'snowflake' })).toEqual({ connectionTestResult: 'FAILURE', errorMessage: 'dqctl reaches postgresql, duckdb, mysql, mariadb data sources, not snowflake' });
  });
});

describe('bad input is a clear error, never a crash', () => {
  it('a DuckDB schema folder that does not exist', async () => {
    const source = sources.get('missing', duckdbSpec({ shop: join(folder, 'no-such-folder') }));
    const error = await listTables(source).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DqError);
    expect((error as DqError).message).toMatch(/the folder of schema "shop" cannot be read \(ENOENT\)/);
    await expect(collectTableStatistics(source, { schema: 'shop', table: 'orders' })).rejects.toThrow(/No files found/);
  });

  it('a DuckDB table whose files are not of the format', async () => {
    await mkdir(join(folder, 'bad', 'orders'), { recursive: true });
    await writeFile(join(folder, 'bad', 'orders', 'x.csv'), Buffer.from([0x50, 0x41, 0x52, 0x31, 0, 0, 0xff, 0xfe, 0, 0x0a, 0x22]));
    const source = sources.get('bad', { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'parquet', directories: { bad: join(folder, 'bad') } } });
    // the folder holds no .parquet file; the table reads none
    const described = await describeTablesOrFailures(source, { schema: 'bad' });
    expect(described.get(schemaTableKey('bad', 'orders'))).toEqual({ error: expect.stringMatching(/No files found/) });
  });

  it('a MariaDB that is down: the connection named, the reason, no secret', async () => {
    const port = await freePort();
    const source = sources.get('down', mariadbSpec(port));
    const error = await collectTableStatistics(source, { schema: 'shop', table: 'orders' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DqError);
    expect((error as DqError).code).toBe('DATASOURCE_UNREACHABLE');
    expect((error as DqError).message).toContain('down');
    expect((error as DqError).message).not.toContain(MARIADB_PASSWORD);
    await expect(listTables(source)).rejects.toMatchObject({ code: 'DATASOURCE_UNREACHABLE' });
  });
});
