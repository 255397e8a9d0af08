import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { demoEnvironment, dropDemoDatabases, ensureDemoDatabases, parseDemoServer, type DemoDatabase } from '../../src/demo/index.js';
import { BUNDLED_EXAMPLE } from '../../src/cli/commands/demo.js';
import { runCli } from '../helpers/cli.js';
import { TEST_SERVER_URL } from '../helpers/testDatabase.js';

/**
 * The demo databases on the test server, under a prefix of their own (never a user's dqctl_demo_ databases):
 * made once, reused the second time, rebuilt when the marker says another generator version or a table is
 * missing; the example's checks run on them through the real bin give warnings, errors and valid results.
 */
const prefix = `dqctl_t${randomBytes(4).toString('hex')}_`;
const server = parseDemoServer(TEST_SERVER_URL, process.env);
let first: DemoDatabase[];

beforeAll(async () => {
  first = await ensureDemoDatabases(server, { prefix });
});

afterAll(async () => {
  await dropDemoDatabases(server, prefix);
});

function urlOf(database: string): string {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function query<R extends pg.QueryResultRow>(database: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: urlOf(database) });
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

describe('demo databases', () => {
  it('creates both databases with every table of the example and thousands of rows', () => {
    expect(first.map((d) => [d.connection, d.database, d.action])).toEqual([
      ['shop_oltp', `${prefix}shop_oltp`, 'created'],
      ['analytics_dwh', `${prefix}analytics_dwh`, 'created'],
    ]);
    expect(Object.keys(first[0].rows).sort()).toEqual(['public.customers', 'public.order_items', 'public.orders', 'public.payments', 'public.products', 'public.shipments']);
    expect(Object.keys(first[1].rows).sort()).toEqual([
      'mart.daily_revenue',
      'mart.dim_customer',
      'mart.dim_product',
      'mart.fact_orders',
      'mart.kundenübersicht',
      'staging.web events',
    ]);
    for (const database of first) for (const rows of Object.values(database.rows)) expect(rows).toBeGreaterThan(300);
  });

  it('leaves about 1% of the orders out of mart.fact_orders', () => {
    const orders = first[0].rows['public.orders'];
    const facts = first[1].rows['mart.fact_orders'];
    expect(facts).toBeLessThan(orders);
    expect((orders - facts) / orders).toBeGreaterThan(0.005);
    expect((orders - facts) / orders).toBeLessThan(0.015);
  });

  it('reuses complete databases the second time, with the same rows', async () => {
    const second = await ensureDemoDatabases(server, { prefix });
    expect(second.map((d) => d.action)).toEqual(['reused', 'reused']);
    expect(second.map((d) => d.rows)).toEqual(first.map((d) => d.rows));
  });

  it('has the hostile names of the example, quoted: umlauts and spaces in table and column names', async () => {
    const rows = await query<{ n: string; segments: string }>(
      `${prefix}analytics_dwh`,
      `select count(*) as n, count(distinct "größe_segment") as segments from "mart"."kundenübersicht" where "land" = any($1::text[])`,
      [['DE', 'AT', 'CH']],
    );
    expect(Number(rows[0].n)).toBe(first[1].rows['mart.kundenübersicht']);
    const events = await query<{ kinds: string }>(`${prefix}analytics_dwh`, `select count(distinct "event type") as kinds from "staging"."web events" where "page url" like $1`, [
      'https://%',
    ]);
    expect(Number(events[0].kinds)).toBe(5);
  });

  it('reaches the databases through the environment the demo sets (sslmode override included)', async () => {
    const env = { ...demoEnvironment(server, prefix, {}) };
    const dataSources = new DataSources({ env });
    try {
      const spec = {
        provider_type: 'postgresql',
        postgresql: {
          host: '${SHOP_OLTP_HOST}',
          port: '${SHOP_OLTP_PORT}',
          database: '${SHOP_OLTP_DATABASE}',
          user: '${SHOP_OLTP_USER}',
          password: '${SHOP_OLTP_PASSWORD}',
          sslmode: 'require',
        },
      };
      const rows = await dataSources.get('shop_oltp', spec).query<{ database: string }>('select current_database() as database');
      expect(rows).toEqual([{ database: `${prefix}shop_oltp` }]);
    } finally {
      await dataSources.close();
    }
  });

  it('rebuilds a database made by another generator version, and one with a table missing', async () => {
    await query(`${prefix}shop_oltp`, `comment on database "${prefix}shop_oltp" is 'dqctl demo data {"generator":0,"day":"2000-01-01","seed":1}'`);
    await query(`${prefix}analytics_dwh`, `drop table "staging"."web events"`);
    const again = await ensureDemoDatabases(server, { prefix });
    expect(again.map((d) => d.action)).toEqual(['rebuilt', 'rebuilt']);
    expect(again[0].reason).toMatch(/generator version 0/);
    expect(again[1].reason).toMatch(/table is missing/);
    expect(again[1].rows['staging.web events']).toBeGreaterThan(100_000);
  }, 180_000);
});

describe('dqctl demo --no-serve (the real bin)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-demo-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => {
    const clean: NodeJS.ProcessEnv = { DQCTL_DEMO_DATABASE_URL: TEST_SERVER_URL, DQCTL_DEMO_DATABASE_PREFIX: prefix, DQCTL_SSLMODE_OVERRIDE: '' };
    for (const name of Object.keys(process.env)) if (/^(SHOP_OLTP|ANALYTICS_DWH)_/.test(name)) clean[name] = undefined;
    return clean;
  };

  it('validates, applies and runs the example checks on the demo data: warnings, errors and valid results, no execution error', async () => {
    const run = await runCli(['demo', '--no-serve', '--state-dir', join(dir, 'state')], { cwd: dir, env: env(), timeoutMs: 240_000 });
    expect(run.stderr).not.toMatch(/^Error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Data source: demo databases on the PostgreSQL at /);
    expect(run.stdout).toContain(`shop_oltp -> ${prefix}shop_oltp: reused`);
    expect(run.stdout).toMatch(/SHOP_OLTP_PASSWORD=\(sensitive\)/);
    expect(run.stdout).toMatch(/Ran \d+ checks .*: \d+ valid, \d+ warnings?, \d+ errors?, 0 fatal, 0 execution errors\./);

    const results = await runCli(['results', '--state-dir', join(dir, 'state'), '--format', 'json'], { cwd: dir, env: env() });
    expect(results.code).toBe(0);
    const rows = (JSON.parse(results.stdout) as { results: Array<{ tableName: string; columnName: string | null; checkName: string; severity: number | null }> }).results;
    const severities = rows.map((row) => row.severity);
    expect(severities).not.toContain(null);
    expect(severities.filter((s) => s === 0).length).toBeGreaterThan(100);
    const failed = (table: string, column: string | null, check: string) =>
      rows.find((row) => row.tableName === table && row.columnName === column && row.checkName === check)?.severity;
    // deliberate problems
    expect(failed('customers', 'email', 'daily_duplicate_count')).toBe(2);
    expect(failed('customers', 'email', 'daily_invalid_email_format_found')).toBe(1);
    expect(failed('payments', 'amount', 'daily_negative_values')).toBe(2);
    expect(failed('products', 'product_name', 'daily_null_placeholder_text_found')).toBe(1);
    expect(failed('dim_customer', null, 'daily_data_staleness')).toBe(2);
    expect(failed('kundenübersicht', 'letzte_bestellung_am', 'daily_date_values_in_future_percent')).toBe(2);
    expect(failed('kundenübersicht', 'größe_segment', 'daily_nulls_percent')).toBe(1);
    expect(failed('web events', 'ip_address', 'daily_invalid_ip4_address_format_found')).toBe(1); // the IPv6 visitors
    // every expected status is in use, and the comparison with the shop finds the orders missing in the warehouse
    expect(failed('orders', 'order_status', 'daily_expected_text_values_in_use_count')).toBe(0);
    expect(failed('fact_orders', null, 'daily_row_count_match')).toBe(1);
    const compared = await runCli(['results', '--state-dir', join(dir, 'state'), '--comparison', 'matches_shop_orders', '--format', 'json'], { cwd: dir, env: env() });
    const comparisonRows = (JSON.parse(compared.stdout) as { results: Array<{ tableComparison: string | null; checkName: string }> }).results;
    expect(new Set(comparisonRows.map((r) => `${r.tableComparison}:${r.checkName}`))).toEqual(new Set(['matches_shop_orders:daily_row_count_match', 'matches_shop_orders:daily_sum_match']));
    // clean data passes, hostile names included
    expect(failed('orders', 'customer_id', 'daily_lookup_key_not_found')).toBe(0);
    expect(failed('kundenübersicht', 'land', 'daily_text_found_in_set_percent')).toBe(0);
    expect(failed('web events', 'event type', 'daily_text_found_in_set_percent')).toBe(0);
    expect(failed('web events', 'page url', 'daily_texts_not_matching_regex_percent')).toBe(0);
  }, 240_000);

  it('without a reachable PostgreSQL: writes the demo data as Parquet and CSV files, runs the checks on them through DuckDB and opens incidents', async () => {
    const state = join(dir, 'files');
    const run = await runCli(['demo', '--no-serve', '--state-dir', state, '--demo-database', 'postgres://someone:pa55word@127.0.0.1:1/postgres'], {
      cwd: dir,
      env: env(),
      timeoutMs: 240_000,
    });
    expect(run.stderr).not.toMatch(/^Error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Data source: demo files read through DuckDB \(embedded; no PostgreSQL answered at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/postgres/);
    expect(run.stdout).toMatch(/shop_oltp -> parquet files in .*: created, 6 tables, \d+ rows/);
    expect(run.stdout).toMatch(/analytics_dwh -> csv files in .*: created, 6 tables, \d+ rows/);
    expect(run.stdout).toContain('table comparison matches_shop_orders: table comparisons with a DuckDB side are not supported yet');
    expect(run.stdout + run.stderr).not.toContain('pa55word');
    expect(run.stdout).toContain('Apply complete!');
    const ran = /Ran (\d+) checks .*: (\d+) valid, (\d+) warnings?, (\d+) errors?, 0 fatal, 0 execution errors\./.exec(run.stdout);
    expect(ran).not.toBeNull();
    expect(Number(ran![1])).toBeGreaterThan(100);
    expect(Number(ran![3]) + Number(ran![4])).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/The failures opened [1-9]\d* incidents?/);
    // the example itself is untouched: the copy under the state folder reads the files
    expect(await readFile(join(BUNDLED_EXAMPLE, 'sources/shop_oltp/connection.dqoconnection.yaml'), 'utf8')).toContain('provider_type: postgresql');
    expect(await readFile(join(state, 'demo-files/home/sources/shop_oltp/connection.dqoconnection.yaml'), 'utf8')).toContain('provider_type: duckdb');

    const results = await runCli(['results', '--state-dir', state, '--format', 'json'], { cwd: dir, env: env() });
    const rows = (JSON.parse(results.stdout) as { results: Array<{ tableName: string; columnName: string | null; checkName: string; severity: number | null }> }).results;
    const failed = (table: string, column: string | null, check: string) =>
      rows.find((row) => row.tableName === table && row.columnName === column && row.checkName === check)?.severity;
    // the same deliberate problems as on PostgreSQL, read from Parquet (shop) and CSV (warehouse), hostile names included
    expect(failed('customers', 'email', 'daily_duplicate_count')).toBe(2);
    expect(failed('payments', 'amount', 'daily_negative_values')).toBe(2);
    expect(failed('dim_customer', null, 'daily_data_staleness')).toBe(2);
    expect(failed('kundenübersicht', 'größe_segment', 'daily_nulls_percent')).toBe(1);
    expect(failed('web events', 'event type', 'daily_text_found_in_set_percent')).toBe(0);
    const incidents = await runCli(['incidents', 'list', '--state-dir', state, '--format', 'json'], { cwd: dir, env: env() });
    expect(incidents.code).toBe(0);
    expect(incidents.stdout).toContain('shop_oltp');

    // the second time the files are reused
    const again = await runCli(['demo', '--no-serve', '--state-dir', state, '--demo-database', 'postgres://someone@127.0.0.1:1/postgres'], { cwd: dir, env: env(), timeoutMs: 240_000 });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/shop_oltp -> parquet files in .*: reused/);
  }, 300_000);

  it('leaves everything alone when the example’s connection variables are set', async () => {
    const run = await runCli(['demo', '--no-serve', '--state-dir', join(dir, 'own')], { cwd: dir, env: { ...env(), SHOP_OLTP_HOST: '127.0.0.1', DQCTL_DEMO_DATABASE_URL: 'postgres://x@127.0.0.1:1/postgres' } });
    expect(run.stdout).toContain('Data source: your own databases (SHOP_OLTP_HOST set); no demo data is made.');
    expect(run.stdout).not.toContain('Data source: none');
  }, 120_000);
});
