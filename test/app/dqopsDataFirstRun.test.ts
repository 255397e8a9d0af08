import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importDqopsData } from '../../src/app/dqopsData.js';
import { dqopsHashOf } from '../../src/model/index.js';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import type { ExecutorDependencies } from '../../src/jobs/executors/index.js';
import { runChecks } from '../../src/jobs/executors/runChecks.js';
import { createSourceFixture, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The main promise: a DQOps home with 90 days of readouts of an anomaly check (daily_row_count_anomaly,
 * percentile/anomaly_differencing_percentile_moving_average, which gives no verdict until it has history) is
 * imported, and dqctl's FIRST run of the check on the seeded source judges today's readout with that history.
 *
 * The home's readouts are written as DQOps writes them: a local `time_period` without zone, the check's key in
 * DQOps's words (`monitoring`, `day`, `all data`, a null column for a table check), a 64-bit check hash of its own.
 * History: 2024-02-10 … 2024-05-09, 1000 rows a day plus 0…4 (a steady table); today (2024-05-10) the source has
 * 17 rows: a fall of ~983, far outside the 1 % tails of the daily differences (−4 … +4) → the warning.
 */
const SEED = `
create schema shop;
create table shop.sales (id int primary key, sold_on date not null);
insert into shop.sales select g, date '2024-05-09' from generate_series(1, 17) g;
`;
const NOW = new Date('2024-05-10T12:00:00Z');
const CHECK = 'daily_row_count_anomaly';
const TABLE = { monitoring_checks: { daily: { volume: { [CHECK]: { warning: { anomaly_percent: 1.0 } } } } } };

let duck: DuckDBConnection;
let duckInstance: DuckDBInstance;
let root: string;
let home: string;
let incidentHome: string;

/**
 * An open incident DQOps opened for the check's key: the connection's default grouping (table, quality dimension,
 * check category), its hash as DQOps computes it: FarmHash Fingerprint64 of each part, combined in order (the
 * hash function is pinned to published vectors in test/model/dqopsHashes.test.ts).
 */
const INCIDENT_HASH = dqopsHashOf(['src', 'shop', 'sales', 'Consistency', 'volume'])!;

async function makeIncidentHome(dir: string): Promise<void> {
  const folder = join(dir, '.data', 'incidents', 'c=src', 'm=2024-05-01');
  await mkdir(folder, { recursive: true });
  await duck.run(`copy (
    select 'i-open-dqops' as id, ${INCIDENT_HASH}::bigint as incident_hash, 'shop' as schema_name, 'sales' as table_name,
      'Consistency' as quality_dimension, 'volume' as check_category, 'monitoring' as check_type, ${q(CHECK)} as check_name,
      1::integer as highest_severity, 1::integer as minimum_severity, timestamptz '2024-05-01 01:00:00+00' as first_seen,
      timestamptz '2024-05-08 01:00:00+00' as last_seen, timestamptz '2099-01-01 00:00:00+00' as incident_until,
      3::integer as failed_checks_count, 'open' as status
  ) to ${q(join(folder, 'incidents.0.parquet'))} (format parquet)`);
}

const q = (text: string) => `'${text.replace(/'/g, "''")}'`;

async function makeHome(): Promise<void> {
  for (const month of ['02', '03', '04', '05']) {
    const dir = join(home, '.data', 'sensor_readouts', 'c=src', 't=shop.sales', `m=2024-${month}-01`);
    await mkdir(dir, { recursive: true });
    await duck.run(`copy (
      select 'r-' || strftime(d, '%Y%m%d') as id, (1000 + extract(day from d) % 5)::double as actual_value, d::timestamp as time_period,
        d::timestamptz as time_period_utc, 'day' as time_gradient, 'all data' as data_group_name, 0::bigint as data_group_hash,
        'src' as connection_name, 'postgresql' as provider, 'shop' as schema_name, 'sales' as table_name, null::varchar as column_name,
        8070450532247928833::bigint as check_hash, ${q(CHECK)} as check_name, 'monitoring' as check_type, 'volume' as check_category,
        'Reasonableness' as quality_dimension, 'table/volume/row_count' as sensor_name, (d + interval 1 hour)::timestamptz as executed_at
      from generate_series(timestamp '2024-02-10', timestamp '2024-05-09', interval 1 day) g(d) where month(d) = ${Number(month)}
    ) to ${q(join(dir, 'sensor_readout.0.parquet'))} (format parquet)`);
  }
}

beforeAll(async () => {
  duckInstance = await DuckDBInstance.create(':memory:');
  duck = await duckInstance.connect();
  root = await mkdtemp(join(tmpdir(), 'dqctl-dqopsdata-firstrun-'));
  home = join(root, 'home');
  await makeHome();
  incidentHome = join(root, 'incident-home');
  await makeIncidentHome(incidentHome);
});

afterAll(async () => {
  duck.closeSync();
  duckInstance.closeSync();
  await rm(root, { recursive: true, force: true });
});

describe.each(STORE_ENGINES)('the first run after an import of DQOps history ($engine)', (engine) => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let deps: ExecutorDependencies;

  beforeAll(async () => {
    source = await createSourceFixture(SEED);
    fx = await engine.setup();
  }, 60_000);
  afterAll(async () => {
    await dataSources?.close();
    await fx?.dispose();
    await source?.dispose();
  });
  beforeEach(async () => {
    await dataSources?.close();
    await fx.reset();
    dataSources = new DataSources({ env: source.env });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources };
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    await objects.create('table', 'src/shop.sales', TABLE, { caller: 'test' });
  });

  const where = { connectionName: 'src', schemaName: 'shop', tableName: 'sales', checkName: CHECK } as const;
  const today = async () => (await fx.store.checkResults({ ...where, read: 'readouts' })).filter((r) => r.timePeriod.startsWith('2024-05-10'));

  it('without the history, the first run stores a readout without verdict (the control)', async () => {
    await runChecks(deps, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: NOW });
    expect((await today()).map((r) => r.actualValue)).toEqual([17]);
    expect(await fx.store.checkResults(where)).toEqual([]);
  }, 60_000);

  it('with 90 imported days, the first run judges the anomaly check with them', async () => {
    const imported = await importDqopsData(fx.store, { home, dryRun: false });
    expect(imported.kinds.sensor_readouts).toEqual({ rows: 90, new: 90 });

    const run = await runChecks(deps, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: NOW });
    expect(run.result).toMatchObject({ executed_checks: 1, warnings: 1, execution_errors: 0 });
    const results = await fx.store.checkResults(where);
    expect(results).toHaveLength(1);
    const [verdict] = results;
    expect(verdict.timePeriod).toBe('2024-05-10T00:00:00.000Z');
    expect(verdict.actualValue).toBe(17);
    expect(verdict.severity).toBe(1);
    // the expected value is yesterday's imported readout moved by the median difference: about 1000
    expect(verdict.expectedValue).toBeGreaterThan(990);
    expect(verdict.expectedValue).toBeLessThan(1010);
    // the imported readouts are still there, beside today's verdict, under the same check
    expect(await fx.store.checkResults({ ...where, read: 'readouts' })).toHaveLength(91);
  }, 60_000);

  it("joins an imported open incident: its count grows, no new incident opens (dqctl's hash is DQOps's)", async () => {
    await importDqopsData(fx.store, { home, dryRun: false });
    expect((await importDqopsData(fx.store, { home: incidentHome, dryRun: false })).kinds.incidents).toEqual({ rows: 1, new: 1 });
    const run = await runChecks(deps, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: NOW });
    expect(run.result).toMatchObject({ executed_checks: 1, warnings: 1 });
    const incidents = await fx.sql.query<{ id: string; hash: string; count: number; status: string }>(
      'select id, incident_hash::text as hash, failed_checks_count as count, status from dqctl.incidents',
    );
    expect(incidents).toEqual([{ id: 'i-open-dqops', hash: String(INCIDENT_HASH), count: 4, status: 'open' }]);
  }, 60_000);
});
