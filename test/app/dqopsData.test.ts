import type { ReadStream } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exportDqopsData, importDqopsData, listDqopsDataFiles, openDqopsDataFile } from '../../src/app/dqopsData.js';
import { openParquetEngine } from '../../src/dqopsdata/parquetFiles.js';
import { DqError } from '../../src/model/index.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';

/**
 * A DQOps `.data/` folder made here with DuckDB's Parquet writer, imported, imported again, exported and imported
 * into a fresh store; and every kind of bad file. Hashes beyond 2^53 must come back digit for digit.
 */
const CHECK_HASH = '8070450532247928833'; // > 2^53: a JS number would round it
const INCIDENT_HASH = '9223372036854775806';
const STAT_INTEGER = '9223372036854775807';
const HOSTILE_CONNECTION = 'my conn/α&b';
const HOSTILE_FOLDER_C = 'c=my+conn%2Fα%26b';
const HOSTILE_FOLDER_T = 't=sales+%26+co.q%221%3F';

let duck: DuckDBConnection;
let duckInstance: DuckDBInstance;

function q(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

const READOUT_SELECT = (hash: string, conn: string, schema: string, table: string, prefix = 'r-') => `
  ${q(prefix)} || strftime(d, '%Y%m%d') as id, (100.0 + extract(day from d))::double as actual_value, null::double as expected_value,
  d::timestamp as time_period, d::timestamptz as time_period_utc, 'day' as time_gradient,
  'all data' as data_group_name, 0::bigint as data_group_hash, 1234567890123456789::bigint as connection_hash, ${q(conn)} as connection_name,
  'postgresql' as provider, ${q(schema)} as schema_name, ${q(table)} as table_name, null::varchar as column_name,
  ${hash}::bigint as check_hash, 'daily_row_count' as check_name, 'monitoring' as check_type, 'volume' as check_category,
  'Completeness' as quality_dimension, 'table/volume/row_count' as sensor_name, 3::integer as table_priority,
  (d + interval 1 hour)::timestamptz as executed_at, 12::integer as duration_ms, 'dqops-user' as created_by`;

async function copyTo(select: string, file: string): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await duck.run(`copy (${select}) to ${q(file)} (format parquet)`);
}

/** 90 days (2024-01-01 … 2024-03-30) of readouts and results, errors, statistics, samples, incidents of every status. */
async function makeHome(home: string): Promise<void> {
  const data = join(home, '.data');
  const days = (month: number) => `from generate_series(timestamp '2024-01-01', timestamp '2024-03-30', interval 1 day) g(d) where month(d) = ${month}`;
  for (const [month, folder] of [[1, 'm=2024-01-01'], [2, 'm=2024-02-01'], [3, 'm=2024-03-01']] as const) {
    const partition = join('c=shop_oltp', 't=public.orders', folder);
    await copyTo(`select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')} ${days(month)}`, join(data, 'sensor_readouts', partition, 'sensor_readout.0.parquet'));
    // the result of 2024-03-29 reports the rule's own actual value (7), not the sensor's (129)
    await copyTo(
      `select * replace (case when time_period = timestamp '2024-03-29' then 7.0::double else actual_value end as actual_value) from (
         select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')}, case when d = timestamp '2024-03-30' then 2 else 0 end::integer as severity,
         ${INCIDENT_HASH}::bigint as incident_hash, true as include_in_kpi, 50.0::double as error_lower_bound ${days(month)})`,
      join(data, 'check_results', partition, 'check_results.0.parquet'),
    );
  }
  // a hostile connection and table: one readout, folders encoded as DQOps encodes them
  await copyTo(
    `select ${READOUT_SELECT('42', HOSTILE_CONNECTION, 'sales & co', 'q"1?', 'h-')} from (select timestamp '2024-02-10' as d)`,
    join(data, 'sensor_readouts', HOSTILE_FOLDER_C, HOSTILE_FOLDER_T, 'm=2024-02-01', 'sensor_readout.0.parquet'),
  );
  await copyTo(
    `select 'e-' || i as id, ${CHECK_HASH}::bigint as check_hash, 'shop_oltp' as connection_name, 'public' as schema_name, 'orders' as table_name,
       'monitoring' as check_type, 'day' as time_gradient, 'volume' as check_category, 'daily_row_count' as check_name,
       timestamp '2024-01-05' as time_period, 'all data' as data_group_name, 'relation "orders" does not exist #' || i as error_message,
       'sensor' as error_source, (timestamp '2024-01-05 02:00:00.123') as error_timestamp, 'r-20240105' as readout_id
     from range(2) t(i)`,
    join(data, 'errors', 'c=shop_oltp', 't=public.orders', 'm=2024-01-01', 'errors.0.parquet'),
  );
  await copyTo(
    `select * from (values
       ('s-1', timestamp '2024-03-02 10:00:00', 'shop_oltp', 'public', 'orders', null, 'volume', 'table_volume_row_count', 'long', ${STAT_INTEGER}::bigint, null::double, null::varchar, 'all data'),
       ('s-2', timestamp '2024-03-02 10:00:00', 'shop_oltp', 'public', 'orders', 'amount', 'range', 'column_range_mean_value', 'double', null, 12.5::double, null, 'all data'),
       ('s-3', timestamp '2024-03-02 10:00:00', 'shop_oltp', 'public', 'orders', 'status', 'range', 'column_range_min_value', 'string', null, null, 'new', 'all data'))
     as t(id, collected_at, connection_name, schema_name, table_name, column_name, collector_category, collector_name, result_type, result_integer, result_float, result_string, data_group_name)`,
    join(data, 'statistics', 'c=shop_oltp', 't=public.orders', 'm=2024-03-01', 'statistics.0.parquet'),
  );
  await copyTo(
    `select 'x-' || i as id, timestamp '2024-03-03 08:00:00' as collected_at, 'shop_oltp' as connection_name, 'public' as schema_name,
       'orders' as table_name, 'amount' as column_name, ${CHECK_HASH}::bigint as check_hash, 'daily_nulls_count' as check_name,
       'monitoring' as check_type, 'day' as time_gradient, 'nulls' as check_category, 'string' as result_type, 'bad-' || i as result_string,
       i::integer as sample_index, 'row-' || i as row_id_1, 'all data' as data_group_name
     from range(2) t(i)`,
    join(data, 'error_samples', 'c=shop_oltp', 't=public.orders', 'm=2024-03-01', 'errorsamples.0.parquet'),
  );
  const incident = (id: string, status: string, connection: string) =>
    `select ${q(id)} as id, ${INCIDENT_HASH}::bigint as incident_hash, 'public' as schema_name, 'orders' as table_name, 2::integer as table_priority,
       'Completeness' as quality_dimension, 'volume' as check_category, 'monitoring' as check_type, 'daily_row_count' as check_name,
       2::integer as highest_severity, 1::integer as minimum_severity, timestamptz '2024-03-30 01:00:00.250+00' as first_seen,
       timestamptz '2024-03-30 01:00:00.250+00' as last_seen, timestamptz '2024-04-29 01:00:00+00' as incident_until, 1::integer as failed_checks_count,
       ${q(status)} as status, timestamptz '2024-03-30 02:00:00+00' as updated_at, 'ann' as updated_by, ${q(connection)} as ignored`;
  await copyTo(
    [incident('i-open', 'open', ''), incident('i-ack', 'acknowledged', ''), incident('i-resolved', 'resolved', '')].join(' union all '),
    join(data, 'incidents', 'c=shop_oltp', 'm=2024-03-01', 'incidents.0.parquet'),
  );
  await copyTo(incident('i-muted', 'muted', ''), join(data, 'incidents', HOSTILE_FOLDER_C, 'm=2024-03-01', 'incidents.0.parquet'));
}

const EXPECTED = {
  sensor_readouts: { rows: 91, new: 91 },
  check_results: { rows: 90, new: 90 },
  errors: { rows: 2, new: 2 },
  statistics: { rows: 3, new: 3 },
  error_samples: { rows: 2, new: 2 },
  incidents: { rows: 4, new: 4 },
};

let root: string;
let home: string;

beforeAll(async () => {
  duckInstance = await DuckDBInstance.create(':memory:');
  duck = await duckInstance.connect();
  root = await mkdtemp(join(tmpdir(), 'dqctl-dqopsdata-'));
  home = join(root, 'home');
  await makeHome(home);
});

afterAll(async () => {
  duck.closeSync();
  duckInstance.closeSync();
  await rm(root, { recursive: true, force: true });
});

describe.each(STORE_ENGINES)('DQOps .data import and export ($engine)', (engine) => {
  let fixture: StoreFixture;
  beforeAll(async () => {
    fixture = await engine.setup();
  }, 60_000);
  afterAll(async () => fixture?.dispose());
  beforeEach(async () => fixture.reset());

  async function counts(): Promise<number[]> {
    const [r] = await fixture.sql.query<{ a: number; b: number; c: number; d: number }>(
      `select (select count(*)::integer from dqctl.check_results) a, (select count(*)::integer from dqctl.statistics) b,
              (select count(*)::integer from dqctl.error_samples) c, (select count(*)::integer from dqctl.incidents) d`,
    );
    return [r.a, r.b, r.c, r.d];
  }

  it('imports every kind keyed by its DQOps id, once; a dry run stores nothing', async () => {
    const dry = await importDqopsData(fixture.store, { home, dryRun: true });
    expect(dry.kinds).toEqual(EXPECTED);
    expect(await counts()).toEqual([0, 0, 0, 0]);

    const first = await importDqopsData(fixture.store, { home, dryRun: false, maxPartBytes: 4096 });
    expect(first.kinds).toEqual(EXPECTED);
    // 91 readouts (90 of them with a result) + 2 errors; 3 statistics; 2 samples; 4 incidents
    expect(await counts()).toEqual([93, 3, 2, 4]);

    const again = await importDqopsData(fixture.store, { home, dryRun: false });
    expect(Object.values(again.kinds).map((k) => k.new)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(await counts()).toEqual([93, 3, 2, 4]);

    // the rules' history: every imported readout of the anomaly-prone check, exact hash
    const history = await fixture.store.checkResults({ connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders', checkName: 'daily_row_count', read: 'readouts', executionErrors: 'exclude' });
    expect(history).toHaveLength(90);
    expect(history[0].checkHash).toBe(BigInt(CHECK_HASH));
    expect(history[0].timePeriod).toBe('2024-03-30T00:00:00.000Z');
    // a result whose rule reported another actual value: the readout keeps the sensor's, the result the rule's
    expect(history.find((r) => r.timePeriod.startsWith('2024-03-29'))?.actualValue).toBe(129);
    const results = await fixture.store.checkResults({ connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders', checkName: 'daily_row_count', executionErrors: 'exclude' });
    expect(results.find((r) => r.timePeriod.startsWith('2024-03-29'))?.actualValue).toBe(7);
    const hostile = await fixture.store.checkResults({ connectionName: HOSTILE_CONNECTION, schemaName: 'sales & co', tableName: 'q"1?', read: 'readouts' });
    expect(hostile).toHaveLength(1);
    const [muted] = await fixture.sql.query<{ connection_name: string; status: string }>(`select connection_name, status from dqctl.incidents where id = 'i-muted'`);
    expect(muted).toEqual({ connection_name: HOSTILE_CONNECTION, status: 'muted' });
  }, 60_000);

  it('serves imported rows with DQOps ids, 64-bit hashes and milliseconds through the API', async () => {
    await applyExamples(fixture.store);
    await importDqopsData(fixture.store, { home, dryRun: false });
    const app = await serverOn(fixture.store);
    try {
      const results = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/orders/checkresults?results_count=100' });
      expect(results.status).toBe(200);
      expect(results.raw).toContain(CHECK_HASH);
      const errors = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/orders/monitoring/daily/errors' });
      expect(errors.status).toBe(200);
      expect(errors.raw).toContain(CHECK_HASH);
      // the results and readouts lists answer an imported row with DQOps's id, value, time period and hash
      const lists = '/api/connections/shop_oltp/schemas/public/tables/orders/monitoring/daily';
      const query = '?month_start=2024-03-01&month_end=2024-03-31&max_results_per_check=1';
      const resultList = await call(app, { method: 'GET', url: `${lists}/results${query}` });
      expect(resultList.status).toBe(200);
      expect(resultList.raw).toContain(`"checkHash":${CHECK_HASH}`);
      const [resultEntry] = (resultList.body as Array<{ checkResultEntries: Array<Record<string, unknown>> }>)[0].checkResultEntries;
      expect(resultEntry).toMatchObject({ id: 'r-20240330', actualValue: 130, severity: 2, timePeriod: '2024-03-30T00:00:00', checkName: 'daily_row_count' });
      const readoutList = await call(app, { method: 'GET', url: `${lists}/readouts${query}` });
      expect(readoutList.status).toBe(200);
      const [readoutEntry] = (readoutList.body as Array<{ sensorReadoutEntries: Array<Record<string, unknown>> }>)[0].sensorReadoutEntries;
      expect(readoutEntry).toMatchObject({ id: 'r-20240330', actualValue: 130, timePeriod: '2024-03-30T00:00:00' });
      // an imported execution error names the DQOps readout it concerns, as DQOps's ErrorEntryModel does
      const errorList = await call(app, { method: 'GET', url: `${lists}/errors?month_start=2024-01-01&month_end=2024-01-31` });
      expect(errorList.status).toBe(200);
      const errorEntries = (errorList.body as Array<{ errorEntries: Array<Record<string, unknown>> }>)[0].errorEntries;
      expect(errorEntries.map((e) => [e.readoutId, e.errorMessage])).toEqual([
        ['r-20240105', 'relation "orders" does not exist #1'],
        ['r-20240105', 'relation "orders" does not exist #0'],
      ]);
      const incidents = await call(app, { method: 'GET', url: '/api/incidents/shop_oltp/2024/3/i-ack' });
      expect(incidents.status).toBe(200);
      expect(incidents.raw).toContain(INCIDENT_HASH);
      expect(incidents.raw).toContain(String(Date.parse('2024-03-30T01:00:00.250Z')));
    } finally {
      await app.close();
    }
  }, 60_000);

  it('exports in DQOps layout and types; export then import into a fresh store gives the same rows', async () => {
    await importDqopsData(fixture.store, { home, dryRun: false });
    const out = join(root, `out-${engine.engine}`);
    const exported = await exportDqopsData(fixture.store, { out });
    expect(exported.kinds.sensor_readouts).toEqual({ rows: 91, files: 4 });
    expect(exported.kinds.check_results).toEqual({ rows: 90, files: 3 });
    const parquet = await openParquetEngine();
    try {
      const results = await parquet.describe(join(out, '.data/check_results/c=shop_oltp/t=public.orders/m=2024-03-01/check_results.0.parquet'));
      const types = Object.fromEntries(results.map((c) => [c.name, c.type]));
      expect(types).toMatchObject({
        id: 'VARCHAR', check_hash: 'BIGINT', severity: 'INTEGER', duration_ms: 'INTEGER', time_period: 'TIMESTAMP',
        time_period_utc: 'TIMESTAMP WITH TIME ZONE', executed_at: 'TIMESTAMP WITH TIME ZONE', include_in_kpi: 'BOOLEAN', actual_value: 'DOUBLE', incident_hash: 'BIGINT',
      });
      const hostile = await parquet.describe(join(out, '.data/sensor_readouts', HOSTILE_FOLDER_C, HOSTILE_FOLDER_T, 'm=2024-02-01/sensor_readout.0.parquet'));
      expect(hostile.length).toBeGreaterThan(40);
      await parquet.describe(join(out, '.data/incidents', HOSTILE_FOLDER_C, 'm=2024-03-01/incidents.0.parquet'));
      await parquet.describe(join(out, '.data/error_samples/c=shop_oltp/t=public.orders/m=2024-03-01/errorsamples.0.parquet'));
    } finally {
      parquet.close();
    }
    const read = await duck.runAndReadAll(
      `select cast(check_hash as varchar) h, cast(incident_hash as varchar) i, id, cast(time_period as varchar) t from read_parquet(${q(join(out, '.data/check_results/c=shop_oltp/t=public.orders/m=2024-03-01/check_results.0.parquet'))}) where id = 'r-20240330'`,
    );
    expect(read.getRowObjectsJson()).toEqual([{ h: CHECK_HASH, i: INCIDENT_HASH, id: 'r-20240330', t: '2024-03-30 00:00:00' }]);
    const stat = await duck.runAndReadAll(`select cast(result_integer as varchar) v from read_parquet(${q(join(out, '.data/statistics/c=shop_oltp/t=public.orders/m=2024-03-01/statistics.0.parquet'))}) where id = 's-1'`);
    expect(stat.getRowObjectsJson()).toEqual([{ v: STAT_INTEGER }]);

    const before = await snapshot();
    await fixture.reset();
    const again = await importDqopsData(fixture.store, { home: out, dryRun: false });
    expect(again.kinds).toEqual(EXPECTED);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('lists the files an export writes with their rows; one file streamed is the exported file, its temporary copy removed', async () => {
    await importDqopsData(fixture.store, { home, dryRun: false });
    const out = join(root, `listed-${engine.engine}`);
    const exported = await exportDqopsData(fixture.store, { out });
    const listed = await listDqopsDataFiles(fixture.store);
    const written = (await readdir(join(out, '.data'), { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(join(out, '.data'), join(e.parentPath, e.name)));
    expect(listed.map((f) => f.path).sort()).toEqual(written.sort());
    for (const kind of Object.keys(EXPECTED) as Array<keyof typeof EXPECTED>) {
      const ofKind = listed.filter((f) => f.kind === kind);
      expect({ rows: ofKind.reduce((sum, f) => sum + f.rows, 0), files: ofKind.length }, kind).toEqual(exported.kinds[kind]);
    }
    expect(listed).toContainEqual({ kind: 'sensor_readouts', path: `sensor_readouts/${HOSTILE_FOLDER_C}/${HOSTILE_FOLDER_T}/m=2024-02-01/sensor_readout.0.parquet`, rows: 1 });

    const path = 'check_results/c=shop_oltp/t=public.orders/m=2024-03-01/check_results.0.parquet';
    const file = await openDqopsDataFile(fixture.store, path);
    const temporary = (file.stream as ReadStream).path as string;
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    expect({ kind: file.kind, rows: file.rows, bytes: file.bytes }).toEqual({ kind: 'check_results', rows: 30, bytes: bytes.length });
    expect(bytes.equals(await readFile(join(out, '.data', path)))).toBe(true);
    await file.removed;
    await expect(readdir(dirname(temporary))).rejects.toThrow(/ENOENT/);

    await expect(openDqopsDataFile(fixture.store, 'check_results/../../../etc/passwd')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(openDqopsDataFile(fixture.store, 'check_results/c=shop_oltp/t=public.orders/m=2023-03-01/check_results.0.parquet')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  }, 120_000);

  async function snapshot(): Promise<unknown[]> {
    return fixture.sql.query(
      `select dqops_id, check_hash::text, to_char(time_period at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') tp, actual_value, rule_actual_value, severity, verdict, error_message, data_group, dqops_columns->>'incident_hash' ih
         from dqctl.check_results order by dqops_id`,
    );
  }

  it('stores a DQOps id found in two files once, the later file winning', async () => {
    const dir = join(root, `repeated-${engine.engine}`);
    await rm(dir, { recursive: true, force: true });
    await cp(home, dir, { recursive: true });
    // a second file of March's readouts repeats the readout of 2024-03-02 with another value (files are read by name)
    await copyTo(
      `select * replace (555.0::double as actual_value) from (select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')} from (select timestamp '2024-03-02' d))`,
      join(dir, '.data/sensor_readouts/c=shop_oltp/t=public.orders/m=2024-03-01/sensor_readout.1.parquet'),
    );
    const imported = await importDqopsData(fixture.store, { home: dir, dryRun: false });
    expect(imported.kinds.sensor_readouts).toEqual({ rows: 92, new: 91 });
    const [row] = await fixture.sql.query<{ n: number; actual: number }>(
      `select count(*)::integer as n, max(actual_value) as actual from dqctl.check_results where dqops_id = 'r-20240302'`,
    );
    expect(row).toEqual({ n: 1, actual: 555 });
  }, 60_000);

  describe('refuses a bad file, naming it, and stores nothing of the run', () => {
    async function badHome(name: string, damage: (data: string) => Promise<void>): Promise<string> {
      const dir = join(root, `bad-${engine.engine}-${name}`);
      await rm(dir, { recursive: true, force: true });
      await cp(home, dir, { recursive: true });
      await damage(join(dir, '.data'));
      return dir;
    }

    async function expectRefused(dir: string, ...parts: string[]): Promise<void> {
      const error = await importDqopsData(fixture.store, { home: dir, dryRun: false }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(DqError);
      expect((error as DqError).code).toBe('DQOPS_DATA_INVALID');
      for (const part of parts) expect((error as DqError).message).toContain(part);
      expect(await counts()).toEqual([0, 0, 0, 0]);
    }

    it('a corrupt Parquet file', async () => {
      const dir = await badHome('corrupt', async (data) => {
        await writeFile(join(data, 'incidents/c=shop_oltp/m=2024-03-01/incidents.0.parquet'), 'PAR1 not really parquet');
      });
      await expectRefused(dir, 'incidents/c=shop_oltp/m=2024-03-01/incidents.0.parquet', 'not a readable Parquet file');
    });

    it('a missing required column', async () => {
      const dir = await badHome('missing', async (data) => {
        await copyTo(`select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')} from (select timestamp '2024-03-05' d)`, join(data, 'check_results/c=shop_oltp/t=public.orders/m=2024-03-01/check_results.0.parquet'));
      });
      await expectRefused(dir, 'check_results/c=shop_oltp/t=public.orders/m=2024-03-01/check_results.0.parquet', 'severity');
    });

    it('a column of the wrong type', async () => {
      const dir = await badHome('type', async (data) => {
        await copyTo(
          `select * replace (cast(check_hash as varchar) as check_hash) from (select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')} from (select timestamp '2024-03-05' d))`,
          join(data, 'sensor_readouts/c=shop_oltp/t=public.orders/m=2024-03-01/sensor_readout.0.parquet'),
        );
      });
      await expectRefused(dir, 'sensor_readout.0.parquet', 'column check_hash is VARCHAR');
    });

    it('an unknown kind folder', async () => {
      const dir = await badHome('kind', async (data) => {
        await mkdir(join(data, 'check_resultz'));
      });
      await expectRefused(dir, 'check_resultz', 'unknown kind folder');
    });

    it('a month folder that disagrees with its rows', async () => {
      const dir = await badHome('month', async (data) => {
        await copyTo(`select ${READOUT_SELECT(CHECK_HASH, 'shop_oltp', 'public', 'orders')} from (select timestamp '2024-05-05' d)`, join(data, 'sensor_readouts/c=shop_oltp/t=public.orders/m=2024-04-01/sensor_readout.0.parquet'));
      });
      await expectRefused(dir, 'm=2024-04-01/sensor_readout.0.parquet', 'time_period');
    });
  });
});
