/**
 * The check runner end to end on a MariaDB connection (the store is PGlite): `shop.orders` holds 6 rows, counted
 * by hand: (id, kind) = (1, a), (2, a), (3, b), (4, b), (5, b), (6, c) → 6 rows, 2 records (kind) that occur more
 * than once (a, b). The row count is the merged scan; the duplicate-record count is a query of its own, which on
 * MariaDB (one core per statement) runs beside the scan on a second session of the connection when one is free.
 * MariaDB's general log (a table) tells which connection ran which statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { runChecksExecutor } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../helpers/mariadbServer.js';
import { runningJob } from '../helpers/jobs.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

describe('run checks on MariaDB', () => {
  let fx: StoreFixture;
  let server: MariadbServer;
  let objects: LiveObjects;
  const dataSources = new DataSources({ env: { MARIADB_PASSWORD_FOR_TEST: MARIADB_PASSWORD } });
  const connection = (parallel: number): JsonObject => ({
    provider_type: 'mariadb',
    mariadb: { host: '127.0.0.1', port: String(server.port), database: 'shop', user: MARIADB_USER, password: '${MARIADB_PASSWORD_FOR_TEST}' },
    parallel_jobs_limit: parallel,
  });
  const checks = {
    monitoring_checks: {
      daily: {
        volume: { daily_row_count: { error: { min_count: 1 } } },
        uniqueness: { daily_duplicate_record_count: { parameters: { columns: ['kind'] }, error: { max_count: 0 } } },
      },
    },
  };

  beforeAll(async () => {
    server = await startMariadb();
    await server.admin([
      'create database shop character set utf8mb4 collate utf8mb4_bin',
      'create table shop.orders (id int primary key, kind varchar(10))',
      "insert into shop.orders values (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b'), (5, 'b'), (6, 'c')",
      "set global log_output = 'TABLE'",
      'set global general_log = 1',
    ]);
    fx = await STORE_ENGINES[0].setup();
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const ctx = { caller: 'test' };
    await objects.create('source', 'two', connection(2), ctx);
    await objects.create('source', 'one', connection(1), ctx);
    await objects.create('table', 'two/shop.orders', checks, ctx);
    await objects.create('table', 'one/shop.orders', checks, ctx);
    await objects.create('table', 'two/shop.missing', { monitoring_checks: { daily: { uniqueness: checks.monitoring_checks.daily.uniqueness, volume: checks.monitoring_checks.daily.volume } } }, ctx);
  }, 120_000);
  afterAll(async () => {
    await dataSources.close();
    await fx?.dispose();
    await server?.stop();
  });

  /** The connections (MariaDB's thread ids) that ran the run's scan and its duplicate-record query. */
  async function threadsOf(table: string): Promise<{ scan: number[]; duplicates: number[] }> {
    const rows = await dataSources.get('two', connection(2)).query<{ thread_id: number; argument: string }>(
      "select thread_id, convert(argument using utf8mb4) as argument from mysql.general_log where command_type = 'Query'",
    );
    const of = (pattern: RegExp) => [...new Set(rows.filter((r) => r.argument.includes(`"shop"."${table}"`) && pattern.test(r.argument)).map((r) => Number(r.thread_id)))];
    return { scan: of(/as "s1_row_count"/), duplicates: of(/having count\(\*\) > 1/) };
  }

  it('gives the readouts counted by hand, the duplicate-record query beside the scan on a free session', async () => {
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    await run(runningJob('run_checks', { check_search_filters: { connection: 'two', fullTableName: 'shop.orders' } }), new AbortController().signal).catch(() => undefined);
    const rows = await fx.store.checkResults({ connectionName: 'two', schemaName: 'shop', tableName: 'orders' });
    expect(Object.fromEntries(rows.map((r) => [r.checkName, [r.actualValue, r.severity, r.errorMessage]]))).toEqual({
      daily_row_count: [6, 0, null],
      daily_duplicate_record_count: [2, 2, null],
    });
    const threads = await threadsOf('orders');
    expect(threads.scan).toHaveLength(1);
    expect(threads.duplicates).toHaveLength(1);
    expect(threads.duplicates[0]).not.toBe(threads.scan[0]);
  });

  it('with parallel_jobs_limit 1 the same readouts come from one session, one query after the other', async () => {
    await server.admin(['truncate table mysql.general_log']);
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    await run(runningJob('run_checks', { check_search_filters: { connection: 'one' } }), new AbortController().signal).catch(() => undefined);
    const rows = await fx.store.checkResults({ connectionName: 'one', schemaName: 'shop', tableName: 'orders' });
    expect(Object.fromEntries(rows.map((r) => [r.checkName, r.actualValue]))).toEqual({ daily_row_count: 6, daily_duplicate_record_count: 2 });
    const threads = await threadsOf('orders');
    expect(threads.scan).toHaveLength(1);
    expect(threads.duplicates).toEqual(threads.scan);
  });

  it('a query beside the scan that fails is an execution error of its own checks and of the table, nothing else lost', async () => {
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    await run(runningJob('run_checks', { check_search_filters: { connection: 'two', fullTableName: 'shop.missing' } }), new AbortController().signal).catch(() => undefined);
    const rows = await fx.store.checkResults({ connectionName: 'two', schemaName: 'shop', tableName: 'missing' });
    expect(rows).toHaveLength(2);
    for (const row of rows) expect([row.checkName, row.severity, row.errorMessage]).toEqual([row.checkName, null, expect.stringMatching(/missing/)]);
    // the orders table's results of the first run are still there
    expect(await fx.store.checkResults({ connectionName: 'two', schemaName: 'shop', tableName: 'orders' })).toHaveLength(2);
  });
});
