import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import type { SourceColumn } from '../../src/datasource/index.js';
import { collectErrorSamples, idColumnsOf } from '../../src/jobs/executors/collectErrorSamples.js';
import type { JsonObject } from '../../src/model/index.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * The collect-error-samples job end to end: a real PostgreSQL source with hostile names and known offending rows,
 * the job through the jobs API, the samples through the results API (JSON and CSV), and error samples collected
 * by a run-checks job. The table's primary key is ("Region", "Line Nº").
 */
const SCHEMA = 'Sales "EU" ünï';
const TABLE = 'Order Lines.v2';
const TABLE_NAME = `src/${SCHEMA}.${TABLE}`;
const TABLE_URL = `/api/connections/src/schemas/${encodeURIComponent(SCHEMA)}/tables/${encodeURIComponent(TABLE)}`;
const columnUrl = (column: string) => `${TABLE_URL}/columns/${encodeURIComponent(column)}/monitoring/daily`;

describe('collect error samples', () => {
  let fx: StoreFixture;
  let source: TestDatabase;
  let dataSources: DataSources;
  let objects: LiveObjects;
  let app: FastifyInstance;
  const ctx = { caller: 'test' };

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query(`create schema "Sales ""EU"" ünï"`);
    await client.query(`create table "Sales ""EU"" ünï"."Order Lines.v2" (
      "Region" text, "Line Nº" int, "Ünit Price" numeric, qty int, status text, code text, "e-mail" text, note text,
      country text, primary key ("Region", "Line Nº"))`);
    await client.query(`insert into "Sales ""EU"" ünï"."Order Lines.v2" values
      ('EU', 1, 10,   1,  'open',   'ABC-1', 'a@example.com',  'fine',                   'PL'),
      ('EU', 2, null, 2,  'closed', 'ABC-2', 'b@example.com',  'say "hi"',               'PL'),
      ('EU', 3, 30,   -1, 'OPEN',   'abc-3', 'bad@',           'a,b',                    'DE'),
      ('US', 1, 40,   -5, 'lost',   'ABC-4', null,             E'line\\nbreak',          'US'),
      ('US', 5, null, 5,  'open',   'ABCD',  'x@y.z',          '=HYPERLINK("http://x")', 'US'),
      ('US', 7, 70,   -7, null,     'ABC-7', 'c@ex-ample.org', '-2+3',                   'US')`);
    await client.end();
    const url = new URL(source.url);
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create(
      'source',
      'src',
      { provider_type: 'postgresql', postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: '${SRC_USER}', password: '${SRC_PASSWORD}' } },
      ctx,
    );
    const daily = (category: string, check: string, spec: JsonObject): JsonObject => ({ monitoring_checks: { daily: { [category]: { [check]: spec } } } });
    await objects.create(
      'table',
      TABLE_NAME,
      {
        monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } },
        columns: {
          'Ünit Price': daily('nulls', 'daily_nulls_count', { error: { max_count: 0 } }),
          qty: daily('numeric', 'daily_negative_values', { error: { max_count: 0 } }),
          status: daily('accepted_values', 'daily_text_found_in_set_percent', { parameters: { expected_values: ['open', "closed'; drop table x; --", 'closed'] }, error: { min_percent: 100 } }),
          code: daily('patterns', 'daily_text_not_matching_regex_found', { parameters: { regex: '^[A-Z]{3}-[0-9]+$' }, error: { max_count: 0 } }),
          'e-mail': daily('patterns', 'daily_invalid_email_format_found', { error: { max_count: 10 }, always_collect_error_samples: true }),
          note: daily('accepted_values', 'daily_text_found_in_set_percent', { parameters: { expected_values: ['fine'] }, error: { min_percent: 100 } }),
          country: {},
          // configured, but not on the data source: its sampler fails and stores nothing
          gone: daily('nulls', 'daily_nulls_count', { error: { max_count: 0 } }),
        },
      },
      ctx,
    );
    dataSources = new DataSources({ env: { SRC_USER: decodeURIComponent(url.username) || 'postgres', SRC_PASSWORD: decodeURIComponent(url.password) } });
    app = await serverOn(fx.store, { dataSources });
  });
  afterAll(async () => {
    await app.close();
    await dataSources.close();
    await source.drop();
    await fx.dispose();
  });

  it('runs through the jobs API: 201 with honest counts; a failing sampler counts as failed and stores nothing', async () => {
    const started = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples?wait=true&waitTimeout=60', payload: { check_search_filters: { connection: 'src' } } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      status: 'finished',
      result: {
        executed_error_samplers: 7,
        columns_analyzed: 7,
        columns_successfully_analyzed: 6,
        total_error_samplers_failed: 1,
        // nulls 2, negatives 3, status 2, regex 2, e-mail 2, note 5
        total_error_samples_collected: 16,
      },
    });
    expect(await fx.store.errorSamples({ connectionName: 'src', schemaName: SCHEMA, tableName: TABLE, columnName: 'gone' })).toEqual([]);
  });

  it('serves the samples: offending values, composite key row ids, the data type', async () => {
    const { status, body } = await call(app, { method: 'GET', url: `${columnUrl('qty')}/errorsamples` });
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ checkName: 'daily_negative_values', checkCategory: 'numeric', checkType: 'monitoring', dataGroupsNames: ['all data'] });
    expect(body[0].errorSamplesEntries.map((e: any) => [e.sampleIndex, e.result, e.resultDataType, e.rowId1, e.rowId2, e.rowId3])).toEqual([
      [0, '-1', 'integer', 'EU', '3', undefined],
      [1, '-5', 'integer', 'US', '1', undefined],
      [2, '-7', 'integer', 'US', '7', undefined],
    ]);
    expect(body[0].errorSamplesEntries[0]).toMatchObject({ columnName: 'qty', sensorName: 'column/numeric/negative_count', timeGradient: 'day', provider: 'postgresql' });
    const nulls = await call(app, { method: 'GET', url: `${columnUrl('Ünit Price')}/errorsamples` });
    expect(nulls.body[0].errorSamplesEntries.map((e: any) => [e.result, e.resultDataType, e.rowId1, e.rowId2])).toEqual([
      [undefined, 'null_value', 'EU', '2'],
      [undefined, 'null_value', 'US', '5'],
    ]);
    const sets = await call(app, { method: 'GET', url: `${columnUrl('status')}/errorsamples` });
    expect(sets.body[0].errorSamplesEntries.map((e: any) => e.result)).toEqual(['OPEN', 'lost']);
    const regex = await call(app, { method: 'GET', url: `${columnUrl('code')}/errorsamples` });
    expect(regex.body[0].errorSamplesEntries.map((e: any) => e.result)).toEqual(['abc-3', 'ABCD']);
    const email = await call(app, { method: 'GET', url: `${columnUrl('e-mail')}/errorsamples` });
    expect(email.body[0].errorSamplesEntries.map((e: any) => [e.result, e.rowId1, e.rowId2])).toEqual([
      ['bad@', 'EU', '3'],
      ['x@y.z', 'US', '5'],
    ]);
  });

  it('downloads them as CSV: header row, RFC 4180 quoting, formula guard', async () => {
    const response = await app.inject({ method: 'GET', url: `${columnUrl('note')}/errorsamples/download` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const body = response.body;
    const header = body.slice(0, body.indexOf('\r\n'));
    expect(header).toBe(
      'checkName,checkCategory,checkType,timeGradient,columnName,dataGroup,sampleIndex,result,resultDataType,rowId1,rowId2,rowId3,rowId4,rowId5,collectedAt,executedAt,sensorName,qualityDimension,tableComparison',
    );
    const records = parseCsv(body);
    expect(records[0]).toEqual(header.split(','));
    const rows = records.slice(1);
    expect(rows.map((r) => [r[6], r[7], r[8], r[9], r[10]])).toEqual([
      ['0', 'say "hi"', 'string', 'EU', '2'],
      ['1', 'a,b', 'string', 'EU', '3'],
      ['2', 'line\nbreak', 'string', 'US', '1'],
      ['3', `'=HYPERLINK("http://x")`, 'string', 'US', '5'],
      ['4', "'-2+3", 'string', 'US', '7'],
    ]);
    // the raw quoting: quotes doubled, fields with a comma, quote or line break quoted
    expect(body).toContain(',"say ""hi""",');
    expect(body).toContain(',"a,b",');
    expect(body).toContain(',"line\nbreak",');
    expect(body).toContain(`,"'=HYPERLINK(""http://x"")",`);
  });

  it('keeps at most the limit per check, per data group with data_scope data_group, and plans only on dummy_sensor_execution', async () => {
    const deps = { store: fx.store, objects, dataSources };
    const limited = await collectErrorSamples(deps, { check_search_filters: { connection: 'src', column: 'qty' } }, { limit: 2 });
    expect(limited.result).toEqual({ executed_error_samplers: 1, columns_analyzed: 1, columns_successfully_analyzed: 1, total_error_samplers_failed: 0, total_error_samples_collected: 2 });

    await objects.update('table', TABLE_NAME, ctx, (current) => ({
      spec: { ...current.spec, groupings: { by_country: { level_1: { source: 'tag', tag: 'shop' }, level_2: { source: 'column_value', column: 'country' } } }, default_grouping_name: 'by_country' },
    }));
    const grouped = await call(app, {
      method: 'POST',
      url: '/api/jobs/collecterrorsamples',
      payload: { check_search_filters: { connection: 'src', column: 'qty' }, data_scope: 'data_group' },
    });
    expect(grouped.body).toMatchObject({ status: 'finished', result: { total_error_samples_collected: 3 } });
    const samples = await call(app, { method: 'GET', url: `${columnUrl('qty')}/errorsamples?data_group=${encodeURIComponent('shop, US')}` });
    expect(samples.body[0].errorSamplesEntries.map((e: any) => [e.dataGroup, e.result])).toEqual([
      ['shop, US', '-5'],
      ['shop, US', '-7'],
    ]);

    const dummy = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples', payload: { check_search_filters: { connection: 'src' }, dummy_sensor_execution: true } });
    expect(dummy.body).toMatchObject({ status: 'finished', result: { executed_error_samplers: 7, total_error_samplers_failed: 0, total_error_samples_collected: 0 } });
  });

  it('a job whose samplers all fail ends failed with the reason; nothing is stored', async () => {
    await objects.create('source', 'down', { provider_type: 'postgresql', postgresql: { host: '127.0.0.1', port: '1', database: 'x', user: 'x' } }, ctx);
    await objects.create('table', 'down/public.t', { columns: { a: { monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } } } }, ctx);
    const started = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples', payload: { check_search_filters: { connection: 'down' } } });
    expect(started.status).toBe(201);
    expect(started.body.status).toBe('failed');
    expect(started.body.errorMessage).toMatch(/all 1 error sampler failed: down\/public\.t: .*refused/);
    expect(await fx.store.errorSamples({ connectionName: 'down', schemaName: 'public', tableName: 't' })).toEqual([]);
  });

  it('run checks collects the samples of failed checks with collect_error_samples, and always those marked always_collect_error_samples', async () => {
    await fx.store.deleteStoredData({ connection: 'src', checkResults: false, errors: false, errorSamples: true });
    const plain = await call(app, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: { connection: 'src', column: 'e-mail' } } });
    expect(plain.body).toMatchObject({ status: 'finished', result: { valid_results: 3, errors: 0 } }); // one per data group: PL, DE, US
    // the e-mail check passed (2 invalid, at most 10 allowed), but it always collects its samples; per data group
    const always = await fx.store.errorSamples({ connectionName: 'src', schemaName: SCHEMA, tableName: TABLE });
    expect(always.map((s) => [s.columnName, s.dataGroup, s.result])).toEqual([
      ['e-mail', 'shop, DE', 'bad@'],
      ['e-mail', 'shop, US', 'x@y.z'],
    ]);

    await fx.store.deleteStoredData({ connection: 'src', checkResults: false, errors: false, errorSamples: true });
    const withoutFlag = await call(app, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: { connection: 'src', column: 'qty' } } });
    expect(withoutFlag.body).toMatchObject({ status: 'finished', result: { errors: 2 } });
    expect(await fx.store.errorSamples({ connectionName: 'src', schemaName: SCHEMA, tableName: TABLE })).toEqual([]);

    const run = await call(app, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: { connection: 'src', column: 'qty' }, collect_error_samples: true } });
    expect(run.body).toMatchObject({ status: 'finished', result: { errors: 2 } });
    const failed = await fx.store.errorSamples({ connectionName: 'src', schemaName: SCHEMA, tableName: TABLE, columnName: 'qty' });
    expect(failed.map((s) => [s.dataGroup, s.result, s.rowId1, s.rowId2])).toEqual([
      ['shop, DE', '-1', 'EU', '3'],
      ['shop, US', '-5', 'US', '1'],
      ['shop, US', '-7', 'US', '7'],
    ]);
    const [result] = await fx.store.checkResults({ connectionName: 'src', schemaName: SCHEMA, tableName: TABLE, columnName: 'qty', newest: { of: 'runs', count: 1 } });
    expect(failed[0].executedAt).toBe(result.executedAt);
  });
});

describe('row id columns', () => {
  const column = (name: string, primaryKeyPosition: number | null = null): SourceColumn => ({
    name, ordinal: 1, columnType: 'int4', baseType: 'int4', typeCategory: 'N', nullable: true, length: null, precision: null, scale: null, primaryKeyPosition,
  });
  it("are the spec's id: true columns, else the primary key in key order, else a column named id, else none; at most five", () => {
    const columns = [column('id'), column('b', 2), column('a', 1), column('c'), column('d'), column('e'), column('f')];
    expect(idColumnsOf({ columns: { c: { id: true }, missing: { id: true }, d: { id: false } } }, columns)).toEqual(['c']);
    expect(idColumnsOf({ columns: { c: {} } }, columns)).toEqual(['a', 'b']);
    expect(idColumnsOf({}, [column('id'), column('x')])).toEqual(['id']);
    expect(idColumnsOf({}, [column('ID'), column('x')])).toEqual([]);
    const six = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => [n, { id: true }]));
    expect(idColumnsOf({ columns: six }, columns)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

/** RFC 4180 records (CRLF between records, quoted fields may hold CR, LF, commas and doubled quotes). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}
