import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { planRepository } from '../../src/app/planRepository.js';
import { API_SCHEMAS_DIR } from '../../src/server/apiSchemas.js';
import { EXAMPLE } from '../helpers/cli.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** A fresh Ajv with every API model, to check response bodies against their schema. */
function modelValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  for (const file of readdirSync(API_SCHEMAS_DIR).filter((f) => f.endsWith('.json'))) {
    ajv.addSchema(JSON.parse(readFileSync(join(API_SCHEMAS_DIR, file), 'utf8')));
  }
  return (model: string, value: unknown) => {
    const validate = ajv.getSchema(model);
    if (!validate) throw new Error(`no schema ${model}`);
    const ok = validate(value);
    return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

const conformsTo = modelValidator();
const asArrayOf = (model: string, values: unknown[]) => values.flatMap((v) => conformsTo(model, v));

const TEMPLATES = (connection: string) => ({
  run_checks_job_template: { connection, enabled: true },
  run_profiling_checks_job_template: { connection, enabled: true, checkType: 'profiling' },
  run_monitoring_checks_job_template: { connection, enabled: true, checkType: 'monitoring' },
  run_partition_checks_job_template: { connection, enabled: true, checkType: 'partitioned' },
  collect_statistics_job_template: { connection, enabled: true },
  data_clean_job_template: {
    connection,
    deleteErrors: true,
    deleteStatistics: true,
    deleteCheckResults: true,
    deleteSensorReadouts: true,
    deleteErrorSamples: true,
    deleteIncidents: true,
    deleteChecksConfiguration: false,
  },
});

describe('connections API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const stored = async (name: string) => (await fx.store.getObjects([{ kind: 'source', name }]))[0];

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('lists the connections sorted by name, as ConnectionModel with job templates and no secrets', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/connections' });
    expect(status).toBe(200);
    expect(asArrayOf('ConnectionModel', body)).toEqual([]);
    expect(body.map((c: { connection_name: string }) => c.connection_name)).toEqual(['analytics_dwh', 'shop_oltp']);
    expect(body[1]).toEqual({
      connection_name: 'shop_oltp',
      parallel_jobs_limit: 2,
      provider_type: 'postgresql',
      postgresql: {
        host: '${SHOP_OLTP_HOST}',
        port: '${SHOP_OLTP_PORT}',
        database: '${SHOP_OLTP_DATABASE}',
        user: '${SHOP_OLTP_USER}',
        password: '${SHOP_OLTP_PASSWORD}',
        sslmode: 'require',
      },
      ...TEMPLATES('shop_oltp'),
      can_edit: true,
      can_collect_statistics: true,
      can_run_checks: true,
      can_delete_data: true,
    });
  });

  it('gets a connection specification with a stable hash that changes with the connection', async () => {
    const first = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh' });
    expect(first.status).toBe(200);
    expect(conformsTo('ConnectionSpecificationModel', first.body)).toEqual([]);
    expect(first.body).toMatchObject({ connection_name: 'analytics_dwh', can_edit: true, spec: { provider_type: 'postgresql', parallel_jobs_limit: 4 } });
    expect(Number.isSafeInteger(first.body.connection_hash)).toBe(true);
    expect((await call(app, { method: 'GET', url: '/api/connections/analytics_dwh' })).body.connection_hash).toBe(first.body.connection_hash);

    expect((await call(app, { method: 'PUT', url: '/api/connections/analytics_dwh/labels', payload: ['warehouse'] })).status).toBe(204);
    const after = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh' });
    expect(after.body.connection_hash).not.toBe(first.body.connection_hash);
    expect(after.body.spec.labels).toEqual(['warehouse']);
  });

  it('creates (201, 409), updates (204, 404) and validates connections like connection files', async () => {
    const spec = { provider_type: 'postgresql', postgresql: { host: 'db', port: 5432, database: 'crm', user: 'dq', password: '${CRM_PASSWORD}' }, parallel_jobs_limit: 3 };
    expect((await call(app, { method: 'POST', url: '/api/connections/crm', payload: spec })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: '/api/connections/crm', payload: spec })).status).toBe(409);
    const got = await call(app, { method: 'GET', url: '/api/connections/crm' });
    expect(got.body.spec).toEqual({ ...spec, postgresql: { ...spec.postgresql, port: '5432' } });

    expect((await call(app, { method: 'PUT', url: '/api/connections/crm', payload: { ...spec, parallel_jobs_limit: 8 } })).status).toBe(204);
    expect((await stored('crm')).spec.parallel_jobs_limit).toBe(8);
    expect((await stored('crm')).managedBy).toBe('api');
    expect((await call(app, { method: 'PUT', url: '/api/connections/nowhere', payload: spec })).status).toBe(404);

    const wrongType = await call(app, { method: 'POST', url: '/api/connections/bad', payload: { ...spec, parallel_jobs_limit: 'many' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('BODY_INVALID');
    expect(wrongType.body.details.violations[0].path).toBe('/parallel_jobs_limit');
    const unknownKey = await call(app, { method: 'POST', url: '/api/connections/bad', payload: { ...spec, postgresql: { ...spec.postgresql, hots: 'x' } } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.details.violations).toContainEqual(expect.objectContaining({ path: '/postgresql/hots', code: 'unknown_key' }));
    const badSslmode = await call(app, { method: 'PUT', url: '/api/connections/crm', payload: { ...spec, postgresql: { ...spec.postgresql, sslmode: 'sometimes' } } });
    expect(badSslmode.status).toBe(400);
    expect(badSslmode.body.details.violations[0]).toMatchObject({ path: '/postgresql/sslmode', code: 'invalid_value' });
    const notAnObject = await call(app, { method: 'POST', url: '/api/connections/bad', payload: ['postgresql'] });
    expect(notAnObject.status).toBe(400);
    const malformed = await call(app, { method: 'POST', url: '/api/connections/bad', payload: '{"provider_type": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('BODY_INVALID');
    expect(await stored('bad')).toBeUndefined();
  });

  it('never shows a literal secret, and keeps it when a client sends back what it got', async () => {
    const spec = { provider_type: 'postgresql', postgresql: { host: 'h', user: 'u', password: 'hunter2' } };
    expect((await call(app, { method: 'POST', url: '/api/connections/secretive', payload: spec })).status).toBe(201);
    const got = await call(app, { method: 'GET', url: '/api/connections/secretive' });
    expect(got.body.spec.postgresql.password).toBe('(sensitive)');
    expect(got.raw).not.toContain('hunter2');
    const basic = await call(app, { method: 'GET', url: '/api/connections/secretive/basic' });
    expect(basic.body.postgresql.password).toBe('(sensitive)');
    const list = await call(app, { method: 'GET', url: '/api/connections' });
    expect(list.raw).not.toContain('hunter2');

    expect((await call(app, { method: 'PUT', url: '/api/connections/secretive', payload: { ...got.body.spec, parallel_jobs_limit: 2 } })).status).toBe(204);
    expect((await stored('secretive')).spec).toMatchObject({ parallel_jobs_limit: 2, postgresql: { password: 'hunter2' } });
    // a placeholder with nothing stored behind it is refused, not stored as the password
    const copy = await call(app, { method: 'POST', url: '/api/connections/copy', payload: got.body.spec });
    expect(copy.status).toBe(400);
    expect(copy.body.details.violations[0].path).toBe('/postgresql/password');
  });

  it('creates and updates from the basic model, keeping the rest of the spec', async () => {
    const model = { connection_name: 'basic_one', provider_type: 'postgresql', parallel_jobs_limit: 1, postgresql: { host: 'h', database: 'd' }, advanced_properties: { a: 'b' } };
    expect((await call(app, { method: 'POST', url: '/api/connections/basic_one/basic', payload: model })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: '/api/connections/basic_one/basic', payload: model })).status).toBe(409);
    const got = await call(app, { method: 'GET', url: '/api/connections/basic_one/basic' });
    expect(got.status).toBe(200);
    expect(conformsTo('ConnectionModel', got.body)).toEqual([]);
    expect(got.body).toMatchObject({ ...model, ...TEMPLATES('basic_one') });

    expect((await call(app, { method: 'PUT', url: '/api/connections/basic_one/labels', payload: ['kept'] })).status).toBe(204);
    expect((await call(app, { method: 'PUT', url: '/api/connections/basic_one/basic', payload: { ...got.body, parallel_jobs_limit: 6 } })).status).toBe(204);
    expect((await stored('basic_one')).spec).toMatchObject({ parallel_jobs_limit: 6, labels: ['kept'], advanced_properties: { a: 'b' } });

    const mismatch = await call(app, { method: 'POST', url: '/api/connections/other/basic', payload: model });
    expect(mismatch.status).toBe(400);
    const unknownField = await call(app, { method: 'POST', url: '/api/connections/other/basic', payload: { parallel_job_limit: 1 } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.details.violations[0].params).toMatchObject({ additionalProperty: 'parallel_job_limit' });
    expect((await call(app, { method: 'PUT', url: '/api/connections/nowhere/basic', payload: { parallel_jobs_limit: 1 } })).status).toBe(404);
  });

  it('reads and replaces incident grouping, comments, labels and the default data grouping', async () => {
    const comments = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/comments' });
    expect(comments.status).toBe(200);
    expect(asArrayOf('CommentSpec', comments.body)).toEqual([]);
    expect(comments.body).toEqual([
      expect.objectContaining({ date: '2025-03-04T09:15:00', comment_by: 'data-platform', comment: expect.stringContaining('Read replica') }),
    ]);
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/labels' })).body).toEqual(['oltp', 'production', 'team:checkout']);
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/incidentgrouping' })).body).toEqual({});
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/defaultgroupingconfiguration' })).body).toEqual({});

    const grouping = {
      grouping_level: 'table_dimension',
      minimum_severity: 'warning',
      max_incident_length_days: 60,
      incident_notification: { incident_opened_addresses: 'dq@example.com', filtered_notifications: { mart: { priority: 1 } } },
    };
    const levels = { level_1: { source: 'column_value', column: 'country' }, level_2: { source: 'tag', tag: 'eu' } };
    const newComments = [{ date: '2025-07-01T10:00:00', comment_by: 'me', comment: 'hello' }];
    for (const [segment, payload] of [
      ['incidentgrouping', grouping],
      ['defaultgroupingconfiguration', levels],
      ['comments', newComments],
      ['labels', ['a', 'b']],
    ] as const) {
      expect((await call(app, { method: 'PUT', url: `/api/connections/basic_one/${segment}`, payload })).status).toBe(204);
      const got = await call(app, { method: 'GET', url: `/api/connections/basic_one/${segment}` });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(payload);
    }
    expect(conformsTo('ConnectionIncidentGroupingSpec', grouping)).toEqual([]);
    expect(conformsTo('DataGroupingConfigurationSpec', levels)).toEqual([]);

    const badLevel = await call(app, { method: 'PUT', url: '/api/connections/basic_one/incidentgrouping', payload: { grouping_level: 'everything' } });
    expect(badLevel.status).toBe(400);
    expect(badLevel.body.details.violations[0].path).toBe('/grouping_level');
    const badLabels = await call(app, { method: 'PUT', url: '/api/connections/basic_one/labels', payload: [1, { a: 2 }] });
    expect(badLabels.status).toBe(400);
    for (const segment of ['incidentgrouping', 'comments', 'labels', 'defaultgroupingconfiguration']) {
      expect((await call(app, { method: 'GET', url: `/api/connections/nowhere/${segment}` })).status).toBe(404);
      expect((await call(app, { method: 'PUT', url: `/api/connections/nowhere/${segment}`, payload: segment === 'comments' || segment === 'labels' ? [] : {} })).status).toBe(404);
    }
  });

  it('reads and replaces the schedule of each scheduling group; other groups are 400', async () => {
    const daily = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schedules/monitoring_daily' });
    expect(daily.status).toBe(200);
    expect(daily.body).toEqual({ cron_expression: '30 5 * * *' });
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schedules/monitoring_monthly' })).body).toEqual({ cron_expression: '0 6 1 * *', disabled: true });
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schedules/partitioned_monthly' })).body).toEqual({});

    expect((await call(app, { method: 'PUT', url: '/api/connections/basic_one/schedules/partitioned_monthly', payload: { cron_expression: '0 2 1 * *' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/connections/basic_one/schedules/partitioned_monthly' })).body).toEqual({ cron_expression: '0 2 1 * *' });
    expect((await stored('basic_one')).spec.schedules).toEqual({ partitioned_monthly: { cron_expression: '0 2 1 * *' } });

    const weekly = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schedules/weekly' });
    expect(weekly.status).toBe(400);
    expect(weekly.body.message).toContain('monitoring_daily');
    expect((await call(app, { method: 'PUT', url: '/api/connections/shop_oltp/schedules/weekly', payload: { cron_expression: '* * * * *' } })).status).toBe(400);
    expect((await call(app, { method: 'PUT', url: '/api/connections/shop_oltp/schedules/profiling', payload: { cron: 'x' } })).status).toBe(400);
    expect((await call(app, { method: 'GET', url: '/api/connections/nowhere/schedules/profiling' })).status).toBe(404);
  });

  it('sets the table auto import', async () => {
    const autoImport = { schema_filter: 'sales_*', table_name_contains: 'fact', schedule: { cron_expression: '0 1 * * *' } };
    expect((await call(app, { method: 'PUT', url: '/api/connections/basic_one/autoimport', payload: autoImport })).status).toBe(204);
    expect((await stored('basic_one')).spec.auto_import_tables).toEqual(autoImport);
    expect((await call(app, { method: 'PUT', url: '/api/connections/basic_one/autoimport', payload: { schema_filter: ['a', 'b'] } })).status).toBe(400);
    expect((await call(app, { method: 'PUT', url: '/api/connections/nowhere/autoimport', payload: autoImport })).status).toBe(404);
  });

  it('counts the column names of the connection\'s tables, by name descending', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/connections/shop_oltp/commoncolumns' });
    expect(status).toBe(200);
    expect(asArrayOf('CommonColumnModel', body)).toEqual([]);
    const expected = new Map<string, number>();
    for (const table of await fx.store.listObjects({ kind: 'table', namePrefix: 'shop_oltp/' })) {
      for (const column of Object.keys((table.spec.columns ?? {}) as object)) expected.set(column, (expected.get(column) ?? 0) + 1);
    }
    const names = [...expected.keys()].sort().reverse();
    expect(body).toEqual(names.map((column_name) => ({ column_name, tables_count: expected.get(column_name) })));
    expect(body.find((c: { column_name: string }) => c.column_name === 'customer_id').tables_count).toBeGreaterThan(1);
    expect((await call(app, { method: 'GET', url: '/api/connections/nowhere/commoncolumns' })).status).toBe(404);
  });

  it('lists the schemas of a connection with the job templates scoped to each', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/connections/analytics_dwh/schemas' });
    expect(status).toBe(200);
    expect(asArrayOf('SchemaModel', body)).toEqual([]);
    expect(body.map((s: { schema_name: string }) => s.schema_name)).toEqual(['mart', 'staging']);
    expect(body[0]).toEqual({
      connection_name: 'analytics_dwh',
      schema_name: 'mart',
      directory_prefix: 'sources/analytics_dwh/mart.',
      run_checks_job_template: { connection: 'analytics_dwh', fullTableName: 'mart.*', enabled: true },
      run_profiling_checks_job_template: { connection: 'analytics_dwh', fullTableName: 'mart.*', enabled: true, checkType: 'profiling' },
      run_monitoring_checks_job_template: { connection: 'analytics_dwh', fullTableName: 'mart.*', enabled: true, checkType: 'monitoring' },
      run_partition_checks_job_template: { connection: 'analytics_dwh', fullTableName: 'mart.*', enabled: true, checkType: 'partitioned' },
      collect_statistics_job_template: { connection: 'analytics_dwh', fullTableName: 'mart.*', enabled: true },
      data_clean_job_template: { ...TEMPLATES('analytics_dwh').data_clean_job_template, fullTableName: 'mart.*' },
      can_edit: true,
      can_collect_statistics: true,
      can_run_checks: true,
      can_delete_data: true,
    });
    expect((await call(app, { method: 'GET', url: '/api/connections/basic_one/schemas' })).body).toEqual([]);
    expect((await call(app, { method: 'GET', url: '/api/connections/nowhere/schemas' })).status).toBe(404);
  });

  it('deletes a connection with its tables in one transaction (200 with the id of the job that deletes its data, then 404)', async () => {
    const objects = new LiveObjects(fx.store);
    const writer = { caller: 'test' };
    await objects.create('source', 'doomed', { provider_type: 'postgresql' }, writer);
    await objects.create('source', 'doomed_not', { provider_type: 'postgresql' }, writer);
    for (const name of ['doomed/public.a', 'doomed/sales.b', 'doomed_not/public.a']) await objects.create('table', name, { columns: { id: {} } }, writer);

    const deleted = await call(app, { method: 'DELETE', url: '/api/connections/doomed' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ jobId: expect.any(Number), createdAt: expect.any(String) });
    const left = await fx.store.listObjects({ kind: 'table' });
    expect(left.filter((t) => t.name.startsWith('doomed'))).toEqual([expect.objectContaining({ name: 'doomed_not/public.a' })]);
    expect(await stored('doomed')).toBeUndefined();
    expect(await stored('doomed_not')).toBeDefined();
    expect((await call(app, { method: 'DELETE', url: '/api/connections/doomed' })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: '/api/connections/doomed' })).status).toBe(404);
  });

  it('on a --read-only-managed server refuses changes to git-managed connections and deletes nothing', async () => {
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    try {
      const before = await fx.store.listObjects({ kind: 'table', namePrefix: 'shop_oltp/' });
      const refused = await call(strict, { method: 'DELETE', url: '/api/connections/shop_oltp' });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('READ_ONLY_MANAGED');
      expect(await fx.store.listObjects({ kind: 'table', namePrefix: 'shop_oltp/' })).toHaveLength(before.length);
      expect(await stored('shop_oltp')).toBeDefined();
      expect((await call(strict, { method: 'PUT', url: '/api/connections/shop_oltp/labels', payload: ['x'] })).status).toBe(409);
      const list = await call(strict, { method: 'GET', url: '/api/connections' });
      expect(list.body.find((c: { connection_name: string }) => c.connection_name === 'shop_oltp').can_edit).toBe(false);
      expect(list.body.find((c: { connection_name: string }) => c.connection_name === 'basic_one').can_edit).toBe(true);
    } finally {
      await strict.close();
    }
  });

  it('answers hostile connection names with 400 and unknown routes with 404', async () => {
    for (const url of ['/api/connections/..%2Fetc', '/api/connections/a%00b', `/api/connections/${'x'.repeat(1500)}`, '/api/connections/a%2Fb/labels']) {
      const { status, body } = await call(app, { method: 'GET', url });
      expect(status, url).toBe(400);
      expect(body).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    }
    const routes: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['POST', '', { provider_type: 'postgresql' }],
      ['PUT', '', { provider_type: 'postgresql' }],
      ['DELETE', '', undefined],
      ['GET', '/basic', undefined],
      ['POST', '/basic', { provider_type: 'postgresql' }],
      ['PUT', '/basic', { provider_type: 'postgresql' }],
      ['GET', '/incidentgrouping', undefined],
      ['PUT', '/incidentgrouping', {}],
      ['GET', '/comments', undefined],
      ['PUT', '/comments', []],
      ['GET', '/labels', undefined],
      ['PUT', '/labels', ['a']],
      ['GET', '/defaultgroupingconfiguration', undefined],
      ['PUT', '/defaultgroupingconfiguration', {}],
      ['GET', '/schedules/profiling', undefined],
      ['PUT', '/schedules/profiling', { cron_expression: '0 1 * * *' }],
      ['PUT', '/autoimport', {}],
      ['GET', '/commoncolumns', undefined],
      ['GET', '/schemas', undefined],
    ];
    for (const [method, suffix, payload] of routes) {
      for (const name of ['a%00b', '..%2Fx', 'x'.repeat(1100)]) {
        const { status, body } = await call(app, { method: method as 'GET', url: `/api/connections/${name}${suffix}`, ...(payload === undefined ? {} : { payload: payload as object }) });
        expect(status, `${method} ${name.slice(0, 8)}${suffix}`).toBe(400);
        expect(body.code).toBe('INVALID_ARGUMENT');
      }
    }
    // a bare `..` segment is resolved by URL parsing before routing: it never reaches a connection route
    const dots = await call(app, { method: 'GET', url: '/api/connections/%2E%2E' });
    expect(dots.status).toBe(404);
    expect(dots.body.code).toBe('NOT_FOUND');
    expect((await call(app, { method: 'POST', url: '/api/connections/..%2F..', payload: { provider_type: 'postgresql' } })).status).toBe(400);
    expect((await call(app, { method: 'DELETE', url: '/api/connections/a%00b' })).status).toBe(400);
  });

  it('the OpenAPI document names every route with its DQOps operation id', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/openapi.json' });
    expect(status).toBe(200);
    const ids = (path: string) => Object.values(body.paths[path] ?? {}).map((op: any) => op.operationId).sort();
    const CONN = '/api/connections/{connectionName}';
    expect(ids('/api/connections')).toEqual(['get_all_connections']);
    expect(ids(CONN)).toEqual(['create_connection', 'delete_connection', 'get_connection', 'update_connection']);
    expect(ids(`${CONN}/basic`)).toEqual(['create_connection_basic', 'get_connection_basic', 'update_connection_basic']);
    expect(ids(`${CONN}/labels`)).toEqual(['get_connection_labels', 'update_connection_labels']);
    expect(ids(`${CONN}/comments`)).toEqual(['get_connection_comments', 'update_connection_comments']);
    expect(ids(`${CONN}/incidentgrouping`)).toEqual(['get_connection_incident_grouping', 'update_connection_incident_grouping']);
    expect(ids(`${CONN}/defaultgroupingconfiguration`)).toEqual(['get_connection_default_grouping_configuration', 'update_connection_default_grouping_configuration']);
    expect(ids(`${CONN}/schedules/{schedulingGroup}`)).toEqual(['get_connection_scheduling_group', 'update_connection_scheduling_group']);
    expect(ids(`${CONN}/autoimport`)).toEqual(['get_connection_auto_import', 'update_connection_auto_import']);
    expect(ids(`${CONN}/commoncolumns`)).toEqual(['get_connection_common_columns']);
    expect(ids(`${CONN}/schemas`)).toEqual(['get_schemas']);
    expect(ids(`${CONN}/checks/{checkName}/bulkactivate`)).toEqual(['bulk_activate_connection_checks']);
    expect(ids(`${CONN}/checks/{checkName}/bulkdeactivate`)).toEqual(['bulk_deactivate_connection_checks']);
  });

  it('a change through the API to a git-managed connection shows as drift in the next plan', async () => {
    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    const drifted = plan.drift.map((d) => `${d.key.kind}:${d.key.name}`);
    // analytics_dwh got new labels above; shop_oltp was only read (its refused writes changed nothing)
    expect(drifted).toContain('source:analytics_dwh');
    expect(drifted).not.toContain('source:shop_oltp');
  });
});
