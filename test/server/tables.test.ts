import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Bodies checked against the committed API models with a fresh Ajv (not the server's). */
function modelValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const schema of apiSchemas()) ajv.addSchema(schema);
  return (model: string, value: unknown) => {
    const validate = ajv.getSchema(model)!;
    const ok = validate(value);
    if (!ok) throw new Error(`${model}: ${ajv.errorsText(validate.errors)}`);
    return true;
  };
}

const e = encodeURIComponent;
const SCHEMA = '/api/connections/analytics_dwh/schemas/mart';
const table = (t: string, s = 'mart', c = 'analytics_dwh') => `/api/connections/${e(c)}/schemas/${e(s)}/tables/${e(t)}`;

describe('tables and columns API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const valid = modelValidator();

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  describe('tables', () => {
    it('lists the tables of a schema sorted by name, with their flags', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${SCHEMA}/tables` });
      expect(status).toBe(200);
      expect(body.map((t: any) => t.target.table_name)).toEqual(['daily_revenue', 'dim_customer', 'dim_product', 'fact_orders', 'kundenübersicht']);
      for (const t of body) valid('TableListModel', t);
      const revenue = body[0];
      expect(revenue).toMatchObject({
        connection_name: 'analytics_dwh',
        target: { schema_name: 'mart', table_name: 'daily_revenue' },
        disabled: false,
        stage: 'gold',
        priority: 1,
        labels: ['finance', 'critical'],
        has_any_configured_checks: true,
        has_any_configured_monitoring_checks: true,
        has_any_configured_partition_checks: true,
        partitioning_configuration_missing: false,
        can_edit: true,
        can_collect_statistics: true,
        can_run_checks: true,
        can_delete_data: true,
      });
      expect(Number.isSafeInteger(revenue.table_hash)).toBe(true);
      expect(body[1]).toMatchObject({ target: { table_name: 'dim_customer' }, partitioning_configuration_missing: true });
      // the staging schema holds a table whose name has a space
      const staging = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh/schemas/staging/tables' });
      expect(staging.body.map((t: any) => t.target.table_name)).toEqual(['web events']);
    });

    it('answers 404 for an unknown connection or schema', async () => {
      const conn = await call(app, { method: 'GET', url: '/api/connections/nope/schemas/mart/tables' });
      expect(conn.status).toBe(404);
      expect(conn.body).toMatchObject({ code: 'NOT_FOUND', message: 'connection "nope" not found' });
      valid('ErrorResponse', conn.body);
      const schema = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh/schemas/nope/tables' });
      expect(schema.status).toBe(404);
      expect(schema.body.message).toContain('schema "nope"');
    });

    it('gets a table by names with spaces and unicode, with its full spec', async () => {
      const spaced = await call(app, { method: 'GET', url: table('web events', 'staging') });
      expect(spaced.status).toBe(200);
      valid('TableModel', spaced.body);
      expect(spaced.body).toMatchObject({ connection_name: 'analytics_dwh', spec: { stage: 'silver', labels: ['clickstream'] }, can_edit: true });
      const unicode = await call(app, { method: 'GET', url: table('kundenübersicht') });
      expect(unicode.status).toBe(200);
      expect(Object.keys(unicode.body.spec.columns)).toHaveLength(6);
      expect(unicode.body.table_hash).not.toBe(spaced.body.table_hash);
      const basic = await call(app, { method: 'GET', url: `${table('kundenübersicht')}/basic` });
      expect(basic.status).toBe(200);
      valid('TableListModel', basic.body);
      expect(basic.body.table_hash).toBe(unicode.body.table_hash);
    });

    it('answers 404 for an unknown table, naming the connection first when it is missing', async () => {
      const missing = await call(app, { method: 'GET', url: table('nope') });
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('table "analytics_dwh/mart.nope" not found');
      const noConnection = await call(app, { method: 'GET', url: table('orders', 'public', 'gone') });
      expect(noConnection.status).toBe(404);
      expect(noConnection.body.message).toBe('connection "gone" not found');
      for (const part of ['columns', 'labels', 'comments', 'timestampcolumns', 'incidentgrouping', 'defaultgroupingconfiguration', 'columns/x', 'basic']) {
        expect((await call(app, { method: 'GET', url: `${table('nope')}/${part}` })).status).toBe(404);
      }
    });

    it('creates, replaces and deletes a table with DQOps status codes; names may hold "/", quotes and unicode', async () => {
      for (const name of ['a/b', `it's "quoted"`, 'ünï cödé.x']) {
        const url = table(name, 'new_schema');
        const spec = { stage: 'landing', labels: ['api'], columns: { id: { type_snapshot: { column_type: 'int8' } } } };
        expect((await call(app, { method: 'POST', url, payload: spec })).status).toBe(201);
        const again = await call(app, { method: 'POST', url, payload: spec });
        expect(again.status).toBe(409);
        expect(again.body.code).toBe('ALREADY_EXISTS');
        const got = await call(app, { method: 'GET', url });
        expect(got.status).toBe(200);
        expect(got.body.spec).toEqual(spec);
        expect((await call(app, { method: 'PUT', url, payload: { stage: 'bronze' } })).status).toBe(204);
        expect((await call(app, { method: 'GET', url })).body.spec).toEqual({ stage: 'bronze' });
      }
      const listed = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh/schemas/new_schema/tables' });
      expect(listed.body.map((t: any) => t.target.table_name)).toEqual(['a/b', `it's "quoted"`, 'ünï cödé.x']);
      for (const name of ['a/b', `it's "quoted"`, 'ünï cödé.x']) {
        expect((await call(app, { method: 'DELETE', url: table(name, 'new_schema') })).status).toBe(200);
        expect((await call(app, { method: 'DELETE', url: table(name, 'new_schema') })).status).toBe(404);
      }
      expect((await call(app, { method: 'PUT', url: table('never'), payload: {} })).status).toBe(404);
      const noConnection = await call(app, { method: 'POST', url: table('t', 's', 'gone'), payload: {} });
      expect(noConnection.status).toBe(404);
      expect(noConnection.body.message).toBe('connection "gone" not found');
      expect((await call(app, { method: 'DELETE', url: table('t', 's', 'gone') })).status).toBe(404);
    });

    it('refuses invalid specs with 400 and the violations, as table files are refused', async () => {
      const typo = await call(app, { method: 'POST', url: table('bad'), payload: { colums: {}, priority: 'high' } });
      expect(typo.status).toBe(400);
      expect(typo.body.code).toBe('BODY_INVALID');
      expect(typo.body.details.violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: '/colums', code: 'unknown_key', suggestions: ['columns'] }),
          expect.objectContaining({ path: '/priority', code: 'wrong_type' }),
        ]),
      );
      const unknownCheck = await call(app, {
        method: 'PUT',
        url: table('fact_orders'),
        payload: { monitoring_checks: { daily: { volume: { daily_row_cont: {} } } } },
      });
      expect(unknownCheck.status).toBe(400);
      expect(unknownCheck.body.details.violations[0]).toMatchObject({ path: '/monitoring_checks/daily/volume/daily_row_cont', code: 'unknown_check' });
      const notObject = await call(app, { method: 'POST', url: table('bad'), payload: ['x'] });
      expect(notObject.status).toBe(400);
      expect(notObject.body.details.violations.length).toBeGreaterThan(0);
      const malformed = await call(app, { method: 'POST', url: table('bad'), payload: '{"stage": ', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('BODY_INVALID');
      expect((await call(app, { method: 'GET', url: table('bad') })).status).toBe(404);
    });

    it('refuses hostile names with 400', async () => {
      const urls = [
        // (a bare `..` segment is resolved by URL parsing before routing; inside an encoded name it is refused)
        '/api/connections/analytics_dwh/schemas/mart/tables/x%2F..',
        '/api/connections/analytics_dwh/schemas/mart/tables/..%2F..%2Fetc',
        '/api/connections/analytics_dwh/schemas/mart/tables/a%00b',
        table('x'.repeat(1100)),
        table('t', 'has.dot'),
        '/api/connections/..%2Fsecrets/schemas/mart/tables/t',
        '/api/connections/analytics_dwh/schemas/..%2F..%2Fmart/tables/t',
        table('t', 'mart', 'a/b'),
        '/api/connections/analytics_dwh/schemas/ma%00rt/tables',
        `${table('fact_orders')}/columns/a%2F..`,
      ];
      for (const url of urls) {
        const { status, body } = await call(app, { method: 'GET', url });
        expect(status, url).toBe(400);
        expect(body.code, url).toBe('INVALID_ARGUMENT');
      }
      expect((await call(app, { method: 'POST', url: table('a%00'.replace('%00', '\u0000')), payload: {} })).status).toBe(400);
    });
  });

  describe('parts of a table', () => {
    it('reads and replaces labels, comments, timestamp columns, incident grouping and the default grouping', async () => {
      const url = table('dim_product');
      expect((await call(app, { method: 'GET', url: `${url}/labels` })).body).toEqual(['catalog']);
      expect((await call(app, { method: 'GET', url: `${url}/comments` })).body).toEqual([]);
      expect((await call(app, { method: 'GET', url: `${table('kundenübersicht')}/comments` })).body).toEqual([expect.objectContaining({ comment: expect.any(String) })]);
      expect((await call(app, { method: 'GET', url: `${url}/incidentgrouping` })).body).toEqual({});
      expect((await call(app, { method: 'GET', url: `${url}/defaultgroupingconfiguration` })).body).toEqual({});

      const values: Record<string, unknown> = {
        labels: ['pii', 'gold'],
        comments: [{ date: '2024-05-01T10:00:00Z', comment_by: 'ana', comment: 'checked by hand' }],
        timestampcolumns: { event_timestamp_column: 'valid_from', partition_by_column: 'valid_from' },
        incidentgrouping: { grouping_level: 'table_dimension', minimum_severity: 'error', max_incident_length_days: 30 },
        defaultgroupingconfiguration: { level_1: { source: 'column_value', column: 'category' } },
      };
      for (const [part, value] of Object.entries(values)) {
        expect((await call(app, { method: 'PUT', url: `${url}/${part}`, payload: value as object })).status, part).toBe(204);
        expect((await call(app, { method: 'GET', url: `${url}/${part}` })).body, part).toEqual(value);
      }
      valid('CommentSpec', values.comments && (values.comments as unknown[])[0]);
      valid('TimestampColumnsSpec', values.timestampcolumns);
      valid('TableIncidentGroupingSpec', values.incidentgrouping);
      // the parts are the table spec's fields; nothing else of the table changed
      const spec = (await call(app, { method: 'GET', url })).body.spec;
      expect(spec).toMatchObject({
        labels: ['pii', 'gold'],
        timestamp_columns: values.timestampcolumns,
        incident_grouping: values.incidentgrouping,
        default_grouping_name: 'default',
        groupings: { default: values.defaultgroupingconfiguration },
        source_tables: [expect.objectContaining({ source_table: 'products' })],
      });
      expect(Object.keys(spec.columns)).toHaveLength(7);
      expect((await call(app, { method: 'GET', url: `${url}/basic` })).body.partitioning_configuration_missing).toBe(false);
      // an empty list clears the labels
      expect((await call(app, { method: 'PUT', url: `${url}/labels`, payload: [] })).status).toBe(204);
      expect((await call(app, { method: 'GET', url: `${url}/labels` })).body).toEqual([]);
    });

    it('refuses wrong part bodies with 400 and answers 404 for a missing table', async () => {
      const url = table('dim_product');
      const wrongEnum = await call(app, { method: 'PUT', url: `${url}/incidentgrouping`, payload: { grouping_level: 'everything' } });
      expect(wrongEnum.status).toBe(400);
      expect(wrongEnum.body.details.violations[0].path).toBe('/grouping_level');
      const unknownKey = await call(app, { method: 'PUT', url: `${url}/timestampcolumns`, payload: { partition_column: 'x' } });
      expect(unknownKey.status).toBe(400);
      const notList = await call(app, { method: 'PUT', url: `${url}/comments`, payload: { comment: 'x' } });
      expect(notList.status).toBe(400);
      expect((await call(app, { method: 'PUT', url: `${table('nope')}/labels`, payload: ['x'] })).status).toBe(404);
    });
  });

  describe('columns', () => {
    it('lists the columns of a table sorted by name', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${table('daily_revenue')}/columns` });
      expect(status).toBe(200);
      const names = body.map((c: any) => c.column_name);
      expect(names).toEqual([...names].sort());
      expect(names).toContain('gross_revenue');
      for (const c of body) valid('ColumnListModel', c);
      const gross = body.find((c: any) => c.column_name === 'gross_revenue');
      expect(gross).toMatchObject({
        connection_name: 'analytics_dwh',
        table: { schema_name: 'mart', table_name: 'daily_revenue' },
        disabled: false,
        has_any_configured_checks: true,
        has_any_configured_monitoring_checks: true,
        has_any_configured_partition_checks: true,
        has_any_configured_profiling_checks: false,
        type_snapshot: { column_type: 'numeric', nullable: false, precision: 16, scale: 2 },
        can_edit: true,
      });
      expect(body.find((c: any) => c.column_name === 'currency').has_any_configured_checks).toBe(false);
    });

    it('gets one column with its spec', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${table('daily_revenue')}/columns/gross_revenue` });
      expect(status).toBe(200);
      valid('ColumnModel', body);
      expect(body).toMatchObject({ column_name: 'gross_revenue', table: { schema_name: 'mart', table_name: 'daily_revenue' }, spec: { type_snapshot: { column_type: 'numeric' } } });
      expect(body.spec.monitoring_checks.daily.anomaly.daily_sum_change_7_days).toBeDefined();
      const basic = await call(app, { method: 'GET', url: `${table('daily_revenue')}/columns/gross_revenue/basic` });
      valid('ColumnListModel', basic.body);
      expect(basic.body.column_hash).toBe(body.column_hash);
      const missing = await call(app, { method: 'GET', url: `${table('daily_revenue')}/columns/nope` });
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe('column "nope" not found in table "analytics_dwh/mart.daily_revenue"');
    });

    it('creates, replaces and deletes columns inside the table spec', async () => {
      const url = `${table('dim_customer')}/columns/${e('new col/ü')}`;
      const spec = { type_snapshot: { column_type: 'text', nullable: true }, labels: ['api'] };
      expect((await call(app, { method: 'POST', url, payload: spec })).status).toBe(201);
      expect((await call(app, { method: 'POST', url, payload: spec })).status).toBe(409);
      expect((await call(app, { method: 'GET', url })).body.spec).toEqual(spec);
      expect((await call(app, { method: 'PUT', url, payload: { sql_expression: 'upper({column})' } })).status).toBe(204);
      const table_ = (await call(app, { method: 'GET', url: table('dim_customer') })).body.spec;
      expect(table_.columns['new col/ü']).toEqual({ sql_expression: 'upper({column})' });
      expect(Object.keys(table_.columns)).toHaveLength(11);
      expect((await call(app, { method: 'DELETE', url })).status).toBe(200);
      expect((await call(app, { method: 'DELETE', url })).status).toBe(404);
      expect((await call(app, { method: 'PUT', url, payload: {} })).status).toBe(404);
      // an empty column spec declares the column
      expect((await call(app, { method: 'POST', url, payload: {} })).status).toBe(201);
      expect((await call(app, { method: 'GET', url })).body.spec).toEqual({});
      expect((await call(app, { method: 'DELETE', url })).status).toBe(200);
      expect((await call(app, { method: 'POST', url: `${table('nope')}/columns/x`, payload: {} })).status).toBe(404);
      expect((await call(app, { method: 'POST', url: `${table('t', 'mart', 'gone')}/columns/x`, payload: {} })).body.message).toBe('connection "gone" not found');
    });

    it('refuses invalid column specs with violations relative to the column', async () => {
      const url = `${table('dim_customer')}/columns/bad`;
      const bad = await call(app, { method: 'POST', url, payload: { type_snapshot: { lenght: 3 }, disabled: 'no' } });
      expect(bad.status).toBe(400);
      expect(bad.body.details.violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: '/type_snapshot/lenght', code: 'unknown_key' }),
          expect.objectContaining({ path: '/disabled', code: 'wrong_type' }),
        ]),
      );
      expect((await call(app, { method: 'POST', url, payload: 'text', headers: { 'content-type': 'application/json' } })).status).toBe(400);
      expect((await call(app, { method: 'GET', url })).status).toBe(404);
    });

    it('concurrent column writes to one table never lose each other', async () => {
      const url = (i: number) => `${table('fact_orders')}/columns/parallel_${i}`;
      const writes = await Promise.all(Array.from({ length: 16 }, (_, i) => call(app, { method: 'POST', url: url(i), payload: { sql_expression: `c${i}` } })));
      expect(writes.map((w) => w.status)).toEqual(Array(16).fill(201));
      const columns = (await call(app, { method: 'GET', url: table('fact_orders') })).body.spec.columns;
      for (let i = 0; i < 16; i++) expect(columns[`parallel_${i}`]).toEqual({ sql_expression: `c${i}` });
      expect(Object.keys(columns)).toHaveLength(11 + 16);
      const deletes = await Promise.all(Array.from({ length: 16 }, (_, i) => call(app, { method: 'DELETE', url: url(i) })));
      expect(deletes.map((w) => w.status)).toEqual(Array(16).fill(200));
      expect(Object.keys((await call(app, { method: 'GET', url: table('fact_orders') })).body.spec.columns)).toHaveLength(11);
    });
  });

  it('with --read-only-managed, git-managed tables are read-only (can_edit false, writes 409)', async () => {
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    try {
      expect((await call(strict, { method: 'GET', url: table('fact_orders') })).body.can_edit).toBe(false);
      const refused = await call(strict, { method: 'PUT', url: `${table('fact_orders')}/labels`, payload: ['x'] });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('READ_ONLY_MANAGED');
      expect((await call(strict, { method: 'POST', url: `${table('fact_orders')}/columns/x`, payload: {} })).status).toBe(409);
    } finally {
      await strict.close();
    }
  });

  it('documents every route in the OpenAPI document', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/openapi.json' });
    expect(status).toBe(200);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/api/connections/{connectionName}/schemas/{schemaName}/tables',
        '/api/connections/{connectionName}/schemas/{schemaName}/tables/{tableName}',
        '/api/connections/{connectionName}/schemas/{schemaName}/tables/{tableName}/columns/{columnName}',
        '/api/connections/{connectionName}/schemas/{schemaName}/tables/{tableName}/defaultgroupingconfiguration',
      ]),
    );
    const ids = Object.values(body.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId)).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'get_tables', 'get_table', 'create_table', 'update_table', 'delete_table', 'get_columns', 'get_column', 'create_column', 'update_column',
        'delete_column', 'get_table_labels', 'update_table_comments', 'get_table_timestamp_columns', 'update_table_incident_grouping',
        'get_table_default_grouping_configuration', 'get_table_source_tables', 'get_table_target_tables', 'get_table_data_lineage_graph',
        'create_table_source_table', 'update_table_source_table', 'delete_table_source_table', 'get_table_source_table',
      ]),
    );
  });
});
