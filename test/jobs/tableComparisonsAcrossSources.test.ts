/**
 * Table comparisons whose reference is another provider: a PostgreSQL table compared with a Parquet file read
 * by DuckDB and with a MariaDB table, grouped by country, each side in its own source's SQL. All orders are of
 * yesterday. Per country, compared (PostgreSQL) / Parquet / MariaDB:
 *   PL: 2 rows, amount 30 / 2 rows, total 30 / 2 rows, total 30
 *   DE: 1 row,  amount 5  / 2 rows, total 10 / 1 row,  total 5
 *   FR: 1 row,  amount 7  / none             / 1 row,  total 7
 *   US: none              / 1 row,  total 1  / none
 * So against the Parquet file PL matches, DE differs, FR and US are each on one side only; against MariaDB every
 * group matches, also per daily partition (each side on its own partition column).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { runChecksExecutor, type RunChecksResult } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { runningJob } from '../helpers/jobs.js';
import { freePort, MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../helpers/mariadbServer.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

const byCountry = (connection: string, schema: string, table: string): JsonObject => ({
  reference_table_connection_name: connection,
  reference_table_schema_name: schema,
  reference_table_name: table,
  grouping_columns: [{ compared_table_column_name: 'country', reference_table_column_name: 'country' }],
});

describe('table comparisons across providers', () => {
  let fx: StoreFixture;
  let oltp: TestDatabase;
  let server: MariadbServer;
  let folder: string;
  let objects: LiveObjects;
  let dataSources: DataSources;
  const ctx = { caller: 'test' };

  beforeAll(async () => {
    fx = await STORE_ENGINES[0]!.setup();
    oltp = await createTestDatabase();
    const client = new pg.Client({ connectionString: oltp.url });
    await client.connect();
    await client.query(`create table public.orders (id int primary key, country text, amount numeric, ordered_at date);
      insert into public.orders values (1, 'PL', 10, current_date - 1), (2, 'PL', 20, current_date - 1), (3, 'DE', 5, current_date - 1), (4, 'FR', 7, current_date - 1);`);
    await client.end();

    folder = await mkdtemp(join(tmpdir(), 'dqctl-compare-'));
    await mkdir(join(folder, 'lake', 'orders'), { recursive: true });
    const duck = await DuckDBInstance.create(':memory:');
    const writer = await duck.connect();
    await writer.run(`copy (select * from (values (1, 'PL', 10.0, current_date - 1), (2, 'PL', 20.0, current_date - 1), (3, 'DE', 5.0, current_date - 1), (5, 'DE', 5.0, current_date - 1), (6, 'US', 1.0, current_date - 1))
      as t(id, country, total, order_date)) to '${join(folder, 'lake', 'orders', 'part-0.parquet')}' (format parquet)`);
    writer.closeSync();
    duck.closeSync();

    server = await startMariadb();
    await server.admin([
      'create database shop character set utf8mb4 collate utf8mb4_nopad_bin',
      'create table shop.orders (order_id int primary key, country varchar(2), total decimal(10,2), order_date date)',
      "insert into shop.orders values (1, 'PL', 10, current_date - interval 1 day), (2, 'PL', 20, current_date - interval 1 day), (3, 'DE', 5, current_date - interval 1 day), (4, 'FR', 7, current_date - interval 1 day)",
    ]);

    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const url = new URL(oltp.url);
    await objects.create('source', 'oltp', { provider_type: 'postgresql', postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${UNUSED_PASSWORD}' } }, ctx);
    await objects.create('source', 'lake', { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'parquet', directories: { lake: join(folder, 'lake') } } }, ctx);
    const maria = (port: number): JsonObject => ({ provider_type: 'mariadb', mariadb: { host: '127.0.0.1', port: String(port), database: 'shop', user: MARIADB_USER, password: '${MARIADB_PASSWORD_FOR_TEST}' } });
    await objects.create('source', 'maria', maria(server.port), ctx);
    await objects.create('source', 'maria_down', maria(await freePort()), ctx);
    await objects.create('table', 'maria/shop.orders', { timestamp_columns: { partition_by_column: 'order_date' } }, ctx);
    const rowCount = { daily_row_count_match: { error: { max_diff_percent: 0 } } };
    await objects.create(
      'table',
      'oltp/public.orders',
      {
        timestamp_columns: { partition_by_column: 'ordered_at' },
        table_comparisons: {
          to_lake: byCountry('lake', 'lake', 'orders'),
          to_maria: byCountry('maria', 'shop', 'orders'),
          to_missing_file: byCountry('lake', 'lake', 'no_such_table'),
          to_maria_down: byCountry('maria_down', 'shop', 'orders'),
        },
        monitoring_checks: { daily: { comparisons: { to_lake: rowCount, to_maria: rowCount, to_missing_file: rowCount, to_maria_down: rowCount } } },
        partitioned_checks: { daily: { comparisons: { to_maria: { daily_partition_row_count_match: { error: { max_diff_percent: 0 } } } } } },
        columns: {
          amount: {
            monitoring_checks: {
              daily: {
                comparisons: {
                  to_lake: { reference_column: 'total', daily_sum_match: { error: { max_diff_percent: 0 } } },
                  to_maria: { reference_column: 'total', daily_sum_match: { error: { max_diff_percent: 0 } } },
                },
              },
            },
          },
        },
      },
      ctx,
    );
    dataSources = new DataSources({ env: { UNUSED_PASSWORD: '', MARIADB_PASSWORD_FOR_TEST: MARIADB_PASSWORD } });
  }, 120_000);

  afterAll(async () => {
    await dataSources?.close();
    await server?.stop();
    await oltp?.drop();
    await fx?.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  const run = (filters: JsonObject) =>
    runChecksExecutor({ store: fx.store, objects, dataSources })(runningJob('run_checks', { check_search_filters: { connection: 'oltp', ...filters } }), new AbortController().signal) as Promise<RunChecksResult>;

  const latest = async (comparison: string, checkName: string, columnName: string | null = null) => {
    const rows = await fx.store.checkResults({ connectionName: 'oltp', schemaName: 'public', tableName: 'orders', columnName, checkName, tableComparison: comparison, newest: { of: 'runs', count: 1 } });
    return Object.fromEntries(rows.map((r) => [`${r.timePeriod.slice(0, 10)} ${r.dataGroup}`, r.errorMessage ? r.errorMessage : [r.actualValue, r.expectedValue, r.severity]]));
  };
  const today = () => new Date().toISOString().slice(0, 10);

  it('compares a PostgreSQL table with a Parquet file group by group', async () => {
    const result = await run({ tableComparisonName: 'to_lake', checkType: 'monitoring' });
    expect(result).toMatchObject({ executed_checks: 2, execution_errors: 0 });
    expect(await latest('to_lake', 'daily_row_count_match')).toEqual({
      [`${today()} PL`]: [2, 2, 0],
      [`${today()} DE`]: [1, 2, 2],
      [`${today()} FR`]: [1, 0, 2],
      [`${today()} US`]: [0, 1, 2],
    });
    expect(await latest('to_lake', 'daily_sum_match', 'amount')).toEqual({
      [`${today()} PL`]: [30, 30, 0],
      [`${today()} DE`]: [5, 10, 2],
      [`${today()} FR`]: [7, null, 2],
      [`${today()} US`]: [null, 1, 2],
    });
  });

  it('compares a PostgreSQL table with a MariaDB table, whole and per daily partition', async () => {
    expect(await run({ tableComparisonName: 'to_maria', checkType: 'monitoring' })).toMatchObject({ executed_checks: 2, execution_errors: 0 });
    expect(await latest('to_maria', 'daily_row_count_match')).toEqual({ [`${today()} PL`]: [2, 2, 0], [`${today()} DE`]: [1, 1, 0], [`${today()} FR`]: [1, 1, 0] });
    expect(await latest('to_maria', 'daily_sum_match', 'amount')).toEqual({ [`${today()} PL`]: [30, 30, 0], [`${today()} DE`]: [5, 5, 0], [`${today()} FR`]: [7, 7, 0] });
    expect(await run({ tableComparisonName: 'to_maria', checkType: 'partitioned' })).toMatchObject({ executed_checks: 1, execution_errors: 0 });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await latest('to_maria', 'daily_partition_row_count_match')).toEqual({ [`${yesterday} PL`]: [2, 2, 0], [`${yesterday} DE`]: [1, 1, 0], [`${yesterday} FR`]: [1, 1, 0] });
  });

  it('a reference file that is missing and a MariaDB that is down are execution errors naming the reference side', async () => {
    // a side that cannot be read fails the table: the job ends failed, naming it, and the results say why
    await expect(run({ tableComparisonName: 'to_missing_file' })).rejects.toThrow(/No files found/);
    expect(Object.values(await latest('to_missing_file', 'daily_row_count_match'))).toEqual([expect.stringMatching(/^reference table lake\/lake\.no_such_table: .*No files found/)]);
    await expect(run({ tableComparisonName: 'to_maria_down' })).rejects.toThrow(/maria_down/);
    const [message] = Object.values(await latest('to_maria_down', 'daily_row_count_match')) as string[];
    expect(message).toMatch(/^reference table maria_down\/shop\.orders: .*maria_down/);
    expect(message).not.toContain(MARIADB_PASSWORD);
  });
});
