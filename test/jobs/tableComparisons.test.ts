import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { runChecks, runChecksExecutor, type RunChecksResult } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { call, serverOn } from '../helpers/server.js';
import { runningJob } from '../helpers/jobs.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * Table comparisons end to end on two real PostgreSQL databases whose answers the test knows:
 * the compared table `Sales "EU"."order lines"` (on connection oltp) and the reference `mart."fact orders"` (on
 * connection dwh), grouped by country. Per country, compared / reference:
 *   PL: 4 rows, amount 100 / 4 rows, total 100    (match)
 *   DE: 3 rows, amount 60  / 2 rows, total 40     (one order missing in the warehouse)
 *   FR: 3 rows, amount 30  / none                 (a group only in the compared table)
 *   US: none               / 1 row,  total 5      (a group only in the reference)
 * Yesterday's orders are the PL and DE ones (7 / 6), the day before FR's (3 / 0), and the reference's US row.
 */
const job = (parameters: Record<string, unknown>) => runningJob('run_checks', parameters);

const TABLE = 'oltp/Sales "EU".order lines';

function connectionSpec(database: TestDatabase): JsonObject {
  const url = new URL(database.url);
  return {
    provider_type: 'postgresql',
    postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${DQCTL_TEST_UNUSED_PASSWORD}' },
  };
}

async function seed(database: TestDatabase, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(sql);
  await client.end();
}

const byCountry = {
  reference_table_connection_name: 'dwh',
  reference_table_schema_name: 'mart',
  reference_table_name: 'fact orders',
  grouping_columns: [{ compared_table_column_name: 'Country Code', reference_table_column_name: 'country' }],
};

describe('table comparisons on real data sources', () => {
  let fx: StoreFixture;
  let oltp: TestDatabase;
  let dwh: TestDatabase;
  let objects: LiveObjects;
  let dataSources: DataSources;
  const ctx = { caller: 'test' };

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    [oltp, dwh] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    await seed(
      oltp,
      `create schema "Sales ""EU""";
       create table "Sales ""EU"""."order lines" (id int primary key, "Country Code" text, amount numeric, note text, ordered_at date);
       insert into "Sales ""EU"""."order lines" values
         (1, 'PL', 10, 'a', current_date - 1), (2, 'PL', 20, null, current_date - 1), (3, 'PL', 30, 'c', current_date - 1), (4, 'PL', 40, 'd', current_date - 1),
         (5, 'DE', 20, null, current_date - 1), (6, 'DE', 20, null, current_date - 1), (7, 'DE', 20, 'g', current_date - 1),
         (8, 'FR', 10, 'h', current_date - 2), (9, 'FR', 10, 'i', current_date - 2), (10, 'FR', 10, 'j', current_date - 2);`,
    );
    await seed(
      dwh,
      `create schema mart;
       create table mart."fact orders" (order_id int primary key, country text, total numeric, note text, order_date date);
       insert into mart."fact orders" values
         (1, 'PL', 10, 'a', current_date - 1), (2, 'PL', 20, null, current_date - 1), (3, 'PL', 30, 'c', current_date - 1), (4, 'PL', 40, 'd', current_date - 1),
         (5, 'DE', 20, null, current_date - 1), (7, 'DE', 20, 'g', current_date - 1),
         (11, 'US', 5, 'k', current_date - 1);`,
    );
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'oltp', connectionSpec(oltp), ctx);
    await objects.create('source', 'dwh', connectionSpec(dwh), ctx);
    // the reference table is known to the store: its partition column is taken from here
    await objects.create('table', 'dwh/mart.fact orders', { timestamp_columns: { partition_by_column: 'order_date' } }, ctx);
    await objects.create(
      'table',
      TABLE,
      {
        timestamp_columns: { partition_by_column: 'ordered_at' },
        table_comparisons: {
          by_country: byCountry,
          without_fr_and_us: {
            reference_table_connection_name: 'dwh',
            reference_table_schema_name: 'mart',
            reference_table_name: 'fact orders',
            compared_table_filter: `"Country Code" <> 'FR'`,
            reference_table_filter: `country <> 'US'`,
          },
          gone: { reference_table_connection_name: 'dwh', reference_table_schema_name: 'mart', reference_table_name: 'dropped table' },
          nowhere: { reference_table_connection_name: 'no_such_connection', reference_table_schema_name: 'mart', reference_table_name: 'fact orders' },
        },
        monitoring_checks: {
          daily: {
            comparisons: {
              by_country: { daily_row_count_match: { error: { max_diff_percent: 0 } }, daily_column_count_match: { warning: { max_diff_percent: 0 } } },
              without_fr_and_us: { daily_row_count_match: { warning: { max_diff_percent: 20 }, error: { max_diff_percent: 10 } } },
              gone: { daily_row_count_match: { error: { max_diff_percent: 0 } } },
              nowhere: { daily_row_count_match: { error: { max_diff_percent: 0 } } },
            },
          },
        },
        partitioned_checks: { daily: { comparisons: { by_country: { daily_partition_row_count_match: { error: { max_diff_percent: 0 } } } } } },
        columns: {
          amount: { monitoring_checks: { daily: { comparisons: { by_country: { reference_column: 'total', daily_sum_match: { error: { max_diff_percent: 1 } } } } } } },
          // no reference_column: the reference table's column of the same name
          note: { monitoring_checks: { daily: { comparisons: { by_country: { daily_null_count_match: { fatal: { max_diff_percent: 0 } } } } } } },
        },
      },
      ctx,
    );
    dataSources = new DataSources({ env: { DQCTL_TEST_UNUSED_PASSWORD: '' } });
  });
  afterAll(async () => {
    await dataSources.close();
    await Promise.all([oltp?.drop(), dwh?.drop()]);
    await fx.dispose();
  });

  const run = (filters: JsonObject) => runChecksExecutor({ store: fx.store, objects, dataSources })(job({ check_search_filters: { connection: 'oltp', ...filters } }), new AbortController().signal) as Promise<RunChecksResult>;

  const latest = async (comparison: string, checkName: string, columnName: string | null = null) => {
    const rows = await fx.store.checkResults({ connectionName: 'oltp', schemaName: 'Sales "EU"', tableName: 'order lines', columnName, checkName, tableComparison: comparison, newest: { of: 'runs', count: 1 } });
    return Object.fromEntries(rows.map((r) => [`${r.timePeriod.slice(0, 10)} ${r.dataGroup}`, [r.actualValue, r.expectedValue, r.severity]]));
  };

  it('compares row counts, column counts, sums and null counts group by group, with the reference column mapping', async () => {
    const result = await run({ tableComparisonName: 'by_country', checkType: 'monitoring' });
    expect(result.executed_checks).toBe(4);
    expect(result.execution_errors).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(await latest('by_country', 'daily_row_count_match')).toEqual({
      [`${today} PL`]: [4, 4, 0],
      [`${today} DE`]: [3, 2, 2],
      [`${today} FR`]: [3, 0, 2], // only in the compared table: the reference has 0 rows of it
      [`${today} US`]: [0, 1, 2],
    });
    expect(await latest('by_country', 'daily_sum_match', 'amount')).toEqual({
      [`${today} PL`]: [100, 100, 0],
      [`${today} DE`]: [60, 40, 2],
      [`${today} FR`]: [30, null, 2], // a sum of a missing group is no number: not matching, at the configured severity
      [`${today} US`]: [null, 5, 2],
    });
    expect(await latest('by_country', 'daily_null_count_match', 'note')).toEqual({
      [`${today} PL`]: [1, 1, 0],
      [`${today} DE`]: [2, 1, 3],
      [`${today} FR`]: [0, 0, 0],
      [`${today} US`]: [0, 0, 0],
    });
    // both tables have 5 columns; the schema sensor reads the whole table
    const columnCount = Object.values(await latest('by_country', 'daily_column_count_match'));
    expect(columnCount).toEqual([[5, 5, 0]]);
  });

  it('applies the compared and reference filters and judges every severity', async () => {
    await run({ tableComparisonName: 'without_fr_and_us' });
    const today = new Date().toISOString().slice(0, 10);
    // 7 vs 6 rows: 16.7% apart, within the warning's 20% but not the error's 10%
    expect(await latest('without_fr_and_us', 'daily_row_count_match')).toEqual({ [`${today} all data`]: [7, 6, 2] });
  });

  it('partitioned comparisons match partitions by day, each side on its own partition column', async () => {
    const result = await run({ tableComparisonName: 'by_country', checkType: 'partitioned' });
    expect(result).toMatchObject({ executed_checks: 1, execution_errors: 0 });
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    expect(await latest('by_country', 'daily_partition_row_count_match')).toEqual({
      [`${day(1)} PL`]: [4, 4, 0],
      [`${day(1)} DE`]: [3, 2, 2],
      [`${day(1)} US`]: [0, 1, 2],
      [`${day(2)} FR`]: [3, 0, 2],
    });
  });

  it('a reference table that is gone, or a reference connection that does not exist, is an execution error naming it', async () => {
    const filters = { check_search_filters: { connection: 'oltp', tableComparisonName: 'gone,nowhere' } };
    const outcome = await runChecks({ store: fx.store, objects, dataSources }, filters, new AbortController().signal);
    expect(outcome.result).toMatchObject({ executed_checks: 2, execution_errors: 2 });
    // a reference table that is gone fails the table: the job ends failed, naming it
    expect(outcome.tables).toMatchObject([{ table: TABLE, status: 'failed', error: { code: 'DATASOURCE_QUERY_FAILED' } }]);
    await expect(runChecksExecutor({ store: fx.store, objects, dataSources })(job(filters), new AbortController().signal)).rejects.toThrow(
      /run checks failed for 1 of 1 table .*order lines: connection "dwh": the table does not exist/,
    );
    const gone = await fx.store.checkResults({ connectionName: 'oltp', schemaName: 'Sales "EU"', tableName: 'order lines', tableComparison: 'gone', newest: { of: 'runs', count: 1 } });
    expect(gone[0].severity).toBeNull();
    expect(gone[0].errorMessage).toMatch(/reference table dwh\/mart\.dropped table/);
    expect(gone[0].errorMessage).toMatch(/does not exist/);
    const nowhere = await fx.store.checkResults({ connectionName: 'oltp', schemaName: 'Sales "EU"', tableName: 'order lines', tableComparison: 'nowhere', newest: { of: 'runs', count: 1 } });
    expect(nowhere[0].errorMessage).toMatch(/reference connection "no_such_connection" does not exist/);
  });

  it('the category filter selects comparisons like any category; a column filter leaves the table-level ones out', async () => {
    const count = async (filters: JsonObject) => (await runChecksExecutor({ store: fx.store, objects, dataSources })(job({ check_search_filters: { connection: 'oltp', ...filters }, dummy_execution: true }), new AbortController().signal) as RunChecksResult).executed_checks;
    expect(await count({ checkCategory: 'nulls' })).toBe(0);
    expect(await count({ checkCategory: 'comparisons' })).toBe(8);
    expect(await count({ column: 'amount' })).toBe(1);
    expect(await count({ checkName: 'daily_row_count_match' })).toBe(4);
  });

  it('the comparison results endpoint serves the counts and the data groups that do not match', async () => {
    await run({ tableComparisonName: 'by_country', checkType: 'monitoring' });
    const app = await serverOn(fx.store);
    try {
      const url = `/api/connections/oltp/schemas/${encodeURIComponent('Sales "EU"')}/tables/${encodeURIComponent('order lines')}/monitoring/daily/comparisons/by_country/results`;
      const { status, body } = await call(app, { method: 'GET', url });
      expect(status).toBe(200);
      expect(body.table_comparison_results.daily_row_count_match).toMatchObject({ valid_results: 1, errors: 3, execution_errors: 0 });
      expect([...body.table_comparison_results.daily_row_count_match.not_matching_data_groups].sort()).toEqual(['DE', 'FR', 'US']);
      expect(body.column_comparison_results.amount.column_comparison_results.daily_sum_match).toMatchObject({ valid_results: 1, errors: 3 });
      expect(body.column_comparison_results.note.column_comparison_results.daily_null_count_match).toMatchObject({ valid_results: 3, fatals: 1 });
    } finally {
      await app.close();
    }
  });
});
