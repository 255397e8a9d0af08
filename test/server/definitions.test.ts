/**
 * DQOps's sensors, checks (definitions) and dictionaries groups, and rules with their Python: built-in ones from
 * the catalog beside the custom ones of the live store (test/fixtures/customHome applied from git, more written
 * through the API), their writes checked as their files would be, the admin role for every write, API writes as
 * API-owned objects or drift that plan sees.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { DEFAULT_BODY_LIMIT } from '../../src/server/buildServer.js';
import { parseTokens } from '../../src/server/tokens.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const HOME = resolve(import.meta.dirname, '../fixtures/customHome');
const ERROR_BODY_KEYS = ['code', 'error', 'message', 'path', 'status', 'timestamp'];
const CUSTOM_SENSOR = 'column/custom/accepted_count';
const CUSTOM_CHECK = 'column/partitioned/daily/accepted_values/paid_status_count';
const TEMPLATE = 'SELECT\n    COUNT(*) AS actual_value\nFROM {{ lib.render_target_table() }} AS analyzed_table\n';

const enc = encodeURIComponent;

describe('definitions API: sensors, check definitions, dictionaries, rules', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let home: string;
  const plan = async () => (await planRepository({ repository: home, store: fx.store })).plan;

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    home = await mkdtemp(join(tmpdir(), 'dqctl-definitions-'));
    await cp(HOME, home, { recursive: true });
    await applyPlan(await plan(), fx.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 30_000 });
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    await rm(home, { recursive: true, force: true });
  });

  describe('sensors', () => {
    it('lists the built-in sensors of the catalog beside the custom ones, and in folders', async () => {
      const { status, body } = await call(app, { method: 'GET', url: '/api/sensors' });
      expect(status).toBe(200);
      const builtIn = body.find((s: any) => s.full_sensor_name === 'column/nulls/null_count');
      expect(builtIn).toMatchObject({ sensor_name: 'null_count', custom: false, built_in: true, can_edit: true });
      expect(builtIn.provider_sensors).toContainEqual({ provider_type: 'postgresql', custom: false, built_in: true, can_edit: true });
      expect(body.find((s: any) => s.full_sensor_name === CUSTOM_SENSOR)).toEqual({
        sensor_name: 'accepted_count',
        full_sensor_name: CUSTOM_SENSOR,
        custom: true,
        built_in: false,
        can_edit: true,
        provider_sensors: [{ provider_type: 'postgresql', custom: true, built_in: false, can_edit: true }],
      });
      const names = body.map((s: any) => s.full_sensor_name);
      expect(names).toEqual([...names].sort());

      const tree = (await call(app, { method: 'GET', url: '/api/definitions/sensors' })).body;
      expect(tree.sensors).toBeUndefined(); // no sensor at the root: left out, as DQOps leaves empty lists out
      expect(tree.all_sensors).toHaveLength(body.length);
      expect(tree.folders.column.folders.custom.sensors.map((s: any) => s.full_sensor_name)).toEqual([CUSTOM_SENSOR]);
      expect(tree.folders.column.folders.custom.folders).toBeUndefined();
      expect(tree.folders.table.folders.volume.sensors.map((s: any) => s.sensor_name)).toContain('row_count');
    });

    it('gets a built-in sensor (no template: dqctl runs its own SQL) and a custom one with its provider file and template', async () => {
      const builtIn = await call(app, { method: 'GET', url: '/api/sensors/table/volume/row_count' });
      expect(builtIn.status).toBe(200);
      expect(builtIn.body).toMatchObject({ full_sensor_name: 'table/volume/row_count', sensor_definition_spec: { fields: [], default_value: 0 }, custom: false, built_in: true });
      const postgresql = builtIn.body.provider_sensor_list.find((p: any) => p.provider_type === 'postgresql');
      expect(postgresql).toEqual({ provider_type: 'postgresql', provider_sensor_definition_spec: { type: 'sql_template' }, custom: false, built_in: true, can_edit: true });

      const custom = await call(app, { method: 'GET', url: `/api/sensors/${enc(CUSTOM_SENSOR)}` });
      expect(custom.body).toMatchObject({
        full_sensor_name: CUSTOM_SENSOR,
        sensor_definition_spec: { fields: [{ field_name: 'expected_values', data_type: 'string_list', required: true }] },
        custom: true,
        built_in: false,
      });
      expect(custom.body.provider_sensor_list).toHaveLength(1);
      expect(custom.body.provider_sensor_list[0]).toMatchObject({
        provider_type: 'postgresql',
        provider_sensor_definition_spec: { type: 'sql_template', supports_grouping: true, supports_partitioned_checks: true },
        custom: true,
        built_in: false,
      });
      expect(custom.body.provider_sensor_list[0].sql_template).toContain("{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}");
      expect(custom.body.provider_sensor_list[0].error_sampling_template).toContain('lib.render_error_sampler()');
    });

    it('creates a custom sensor, reads it back, changes its template; plan keeps it as the API\'s and sees a changed git sensor as drift', async () => {
      const model = {
        full_sensor_name: 'table/custom/row_floor',
        sensor_definition_spec: { fields: [{ field_name: 'floor', data_type: 'integer' }] },
        provider_sensor_list: [
          { provider_type: 'postgresql', provider_sensor_definition_spec: { type: 'sql_template', disable_merging_queries: true }, sql_template: TEMPLATE, error_sampling_template: 'SELECT 1 AS actual_value' },
        ],
      };
      expect((await call(app, { method: 'POST', url: '/api/sensors/table/custom/row_floor', payload: model })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: '/api/sensors/table/custom/row_floor', payload: model })).status).toBe(409);
      const read = (await call(app, { method: 'GET', url: '/api/sensors/table%2Fcustom%2Frow_floor' })).body;
      expect(read.sensor_definition_spec).toEqual(model.sensor_definition_spec);
      expect(read.provider_sensor_list).toEqual([{ ...model.provider_sensor_list[0], custom: true, built_in: false, can_edit: true }]);

      const changed = TEMPLATE.replace('COUNT(*)', 'COUNT(*) + 0');
      const put = await call(app, { method: 'PUT', url: '/api/sensors/table/custom/row_floor', payload: { ...read, provider_sensor_list: [{ provider_type: 'postgresql', sql_template: changed }] } });
      expect(put.status).toBe(204);
      expect((await call(app, { method: 'GET', url: '/api/sensors/table/custom/row_floor' })).body.provider_sensor_list[0].sql_template).toBe(changed);

      // the git sensor's template changed through the API: drift that apply restores
      const gitSensor = (await call(app, { method: 'GET', url: `/api/sensors/${enc(CUSTOM_SENSOR)}` })).body;
      gitSensor.provider_sensor_list[0].sql_template = TEMPLATE;
      expect((await call(app, { method: 'PUT', url: `/api/sensors/${enc(CUSTOM_SENSOR)}`, payload: gitSensor })).status).toBe(204);
      const planned = await plan();
      expect(planned.kept).toContainEqual(expect.objectContaining({ key: { kind: 'sensor', name: 'table/custom/row_floor' }, reason: 'unmanaged' }));
      expect(planned.drift).toContainEqual(expect.objectContaining({ key: { kind: 'sensor', name: CUSTOM_SENSOR }, restored: true }));
      await applyPlan(planned, fx.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 30_000 });
      expect((await call(app, { method: 'GET', url: `/api/sensors/${enc(CUSTOM_SENSOR)}` })).body.provider_sensor_list[0].sql_template).not.toBe(TEMPLATE);
      expect((await plan()).changes).toEqual([]);

      expect((await call(app, { method: 'DELETE', url: '/api/sensors/table/custom/row_floor' })).status).toBe(204);
      expect((await call(app, { method: 'GET', url: '/api/sensors/table/custom/row_floor' })).status).toBe(404);
    });

    it('a built-in sensor written back as read stays built-in; one with a template becomes a custom one over it, until written back', async () => {
      const served = (await call(app, { method: 'GET', url: '/api/sensors/table/volume/row_count' })).body;
      expect((await call(app, { method: 'PUT', url: '/api/sensors/table/volume/row_count', payload: served })).status).toBe(204);
      expect(await fx.store.getObjects([{ kind: 'sensor', name: 'table/volume/row_count' }])).toEqual([]);

      const customized = { ...served, provider_sensor_list: [{ provider_type: 'postgresql', provider_sensor_definition_spec: { type: 'sql_template' }, sql_template: TEMPLATE }] };
      expect((await call(app, { method: 'PUT', url: '/api/sensors/table/volume/row_count', payload: customized })).status).toBe(204);
      const over = (await call(app, { method: 'GET', url: '/api/sensors/table/volume/row_count' })).body;
      expect(over).toMatchObject({ custom: true, built_in: true });
      // the customized provider replaces the built-in one; the other providers stay built-in
      expect(over.provider_sensor_list.find((p: any) => p.provider_type === 'postgresql')).toMatchObject({ custom: true, built_in: true, sql_template: TEMPLATE });
      expect(over.provider_sensor_list.find((p: any) => p.provider_type === 'mysql')).toMatchObject({ custom: false, built_in: true });
      expect(over.provider_sensor_list.find((p: any) => p.provider_type === 'mysql').sql_template).toBeUndefined();

      expect((await call(app, { method: 'PUT', url: '/api/sensors/table/volume/row_count', payload: served })).status).toBe(204);
      expect(await fx.store.getObjects([{ kind: 'sensor', name: 'table/volume/row_count' }])).toEqual([]);
      // a changed definition with the built-in providers would replace the built-in sensor by one that cannot run
      const definitionOnly = await call(app, { method: 'PUT', url: '/api/sensors/table/volume/row_count', payload: { ...served, sensor_definition_spec: { fields: [{ field_name: 'x', data_type: 'string' }] } } });
      expect(definitionOnly.status).toBe(400);
      expect(definitionOnly.body.details.violations).toEqual([expect.objectContaining({ path: '/provider_sensor_list', code: 'sensor_provider_incomplete' })]);
      const mysqlOnly = await call(app, { method: 'POST', url: '/api/sensors/table/volume/row_count', payload: { provider_sensor_list: [{ provider_type: 'mysql', sql_template: TEMPLATE }] } });
      expect(mysqlOnly.status).toBe(400);
      expect(await fx.store.getObjects([{ kind: 'sensor', name: 'table/volume/row_count' }])).toEqual([]);
      const deleted = await call(app, { method: 'DELETE', url: '/api/sensors/table/volume/row_count' });
      expect(deleted.status).toBe(404);
      expect(deleted.body.message).toContain('built in');
    });

    it('refuses a sensor its files could not hold, each violation at its place in the body', async () => {
      const noTemplate = await call(app, { method: 'POST', url: '/api/sensors/table/custom/broken', payload: { provider_sensor_list: [{ provider_type: 'postgresql', provider_sensor_definition_spec: { type: 'sql_template' } }] } });
      expect(noTemplate.status).toBe(400);
      expect(noTemplate.body.details.violations).toEqual([expect.objectContaining({ path: '/provider_sensor_list/0/sql_template', code: 'sensor_provider_incomplete' })]);
      const badSpec = await call(app, {
        method: 'POST',
        url: '/api/sensors/table/custom/broken',
        payload: { sensor_definition_spec: { fields: [{ field_name: 'x', data_type: 'text' }], requires_event_timestamp: 'yes' }, provider_sensor_list: [{ provider_type: 'postgresql', provider_sensor_definition_spec: { typ: 'sql_template' }, sql_template: TEMPLATE }] },
      });
      expect(badSpec.status).toBe(400);
      expect(badSpec.body.code).toBe('BODY_INVALID');
      expect(badSpec.body.details.violations.map((v: any) => v.path).sort()).toEqual([
        '/provider_sensor_list/0/provider_sensor_definition_spec/typ',
        '/sensor_definition_spec/fields/0/data_type',
        '/sensor_definition_spec/requires_event_timestamp',
      ]);
      expect(badSpec.body.details.violations.find((v: any) => v.path.endsWith('/typ')).suggestions).toEqual(['type']);
      const twice = await call(app, { method: 'POST', url: '/api/sensors/table/custom/broken', payload: { provider_sensor_list: [{ provider_type: 'postgresql', sql_template: TEMPLATE }, { provider_type: 'postgresql', sql_template: TEMPLATE }] } });
      expect(twice.body.details.violations).toEqual([expect.objectContaining({ path: '/provider_sensor_list/1/provider_type' })]);
      const unknownProvider = await call(app, { method: 'POST', url: '/api/sensors/table/custom/broken', payload: { provider_sensor_list: [{ provider_type: 'excel', sql_template: TEMPLATE }] } });
      expect(unknownProvider.status).toBe(400);
      expect(await fx.store.getObjects([{ kind: 'sensor', name: 'table/custom/broken' }])).toEqual([]);
    });

    it('answers an unknown sensor 404 with the error body', async () => {
      for (const [method, payload] of [['GET', undefined], ['PUT', {}], ['DELETE', undefined]] as const) {
        const answer = await call(app, { method, url: '/api/sensors/table/volume/no_such_sensor', payload });
        expect([method, answer.status]).toEqual([method, 404]);
        expect(Object.keys(answer.body).sort()).toEqual(ERROR_BODY_KEYS);
        expect(answer.body).toMatchObject({ code: 'NOT_FOUND', message: 'sensor "table/volume/no_such_sensor" not found', path: '/api/sensors/table/volume/no_such_sensor' });
      }
    });
  });

  describe('check definitions', () => {
    it('lists the built-in checks by their place beside the custom definitions, and in folders with the custom folders', async () => {
      const { status, body } = await call(app, { method: 'GET', url: '/api/checks' });
      expect(status).toBe(200);
      expect(body).toContainEqual({ check_name: 'daily_row_count', full_check_name: 'table/monitoring/daily/volume/daily_row_count', custom: false, built_in: true, can_edit: true });
      expect(body).toContainEqual({ check_name: 'profile_row_count', full_check_name: 'table/profiling/volume/profile_row_count', custom: false, built_in: true, can_edit: true });
      expect(body).toContainEqual({ check_name: 'paid_status_count', full_check_name: CUSTOM_CHECK, custom: true, built_in: false, can_edit: true });
      const tree = (await call(app, { method: 'GET', url: '/api/definitions/checks' })).body;
      expect(tree.checks).toBeUndefined();
      expect(tree.folders.column.folders.partitioned.folders.daily.folders.accepted_values.checks).toContainEqual(expect.objectContaining({ full_check_name: CUSTOM_CHECK }));
      // DQOps shows the folder of custom checks in every container, empty when there are none
      expect(tree.folders.table.folders.profiling.folders.custom).toEqual({ checks: [] });
      expect(tree.folders.column.folders.monitoring.folders.monthly.folders.custom).toEqual({ checks: [] });
      // standard checks first in a folder
      const volume = tree.folders.table.folders.monitoring.folders.daily.folders.volume.checks.map((c: any) => c.check_name);
      expect(volume[0]).toBe('daily_row_count');
    });

    it('gets a built-in definition and a custom one', async () => {
      const builtIn = await call(app, { method: 'GET', url: `/api/checks/${enc('table/monitoring/daily/volume/daily_row_count')}` });
      expect(builtIn.body).toEqual({
        check_name: 'daily_row_count',
        sensor_name: 'table/volume/row_count',
        rule_name: 'comparison/min_count',
        standard: true,
        default_severity: 'error',
        custom: false,
        built_in: true,
        can_edit: true,
      });
      const custom = await call(app, { method: 'GET', url: `/api/checks/${CUSTOM_CHECK}` });
      expect(custom.body).toEqual({
        check_name: 'paid_status_count',
        sensor_name: CUSTOM_SENSOR,
        rule_name: 'comparison/min_count',
        help_text: 'Counts the rows whose status is one of the expected values.',
        standard: false,
        default_severity: 'error',
        custom: true,
        built_in: false,
        can_edit: true,
      });
    });

    it('creates, reads back, replaces and deletes a custom definition; a changed git definition is drift', async () => {
      const url = '/api/checks/table/profiling/custom/row_floor';
      const model = { check_name: 'row_floor', sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count', help_text: 'At least some rows.', default_severity: 'warning' };
      expect((await call(app, { method: 'POST', url, payload: model })).status).toBe(201);
      expect((await call(app, { method: 'POST', url, payload: model })).status).toBe(409);
      expect((await call(app, { method: 'GET', url })).body).toEqual({ ...model, standard: false, custom: true, built_in: false, can_edit: true });
      expect((await call(app, { method: 'PUT', url, payload: { sensor_name: 'table/volume/row_count', rule_name: 'comparison/max_count' } })).status).toBe(204);
      expect((await call(app, { method: 'GET', url })).body).toEqual({
        check_name: 'row_floor',
        sensor_name: 'table/volume/row_count',
        rule_name: 'comparison/max_count',
        standard: false,
        default_severity: 'error',
        custom: true,
        built_in: false,
        can_edit: true,
      });

      const git = (await call(app, { method: 'GET', url: `/api/checks/${CUSTOM_CHECK}` })).body;
      expect((await call(app, { method: 'PUT', url: `/api/checks/${CUSTOM_CHECK}`, payload: { ...git, rule_name: 'comparison/max_count' } })).status).toBe(204);
      const planned = await plan();
      expect(planned.kept).toContainEqual(expect.objectContaining({ key: { kind: 'check', name: 'table/profiling/custom/row_floor' }, reason: 'unmanaged' }));
      expect(planned.drift).toContainEqual(expect.objectContaining({ key: { kind: 'check', name: CUSTOM_CHECK }, restored: true }));

      expect((await call(app, { method: 'DELETE', url })).status).toBe(204);
      expect((await call(app, { method: 'DELETE', url })).status).toBe(404);
    });

    it('refuses what validate would refuse: unknown or mistargeted sensor, unknown rule, missing names, a wrong check_name, a place that is not a folder of checks/', async () => {
      const url = '/api/checks/table/profiling/custom/bad';
      const unknown = await call(app, { method: 'POST', url, payload: { sensor_name: 'table/volume/row_cont', rule_name: 'comparison/min_cont' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details.violations).toEqual([
        expect.objectContaining({ path: '/sensor_name', code: 'unknown_sensor', suggestions: ['table/volume/row_count'] }),
        expect.objectContaining({ path: '/rule_name', code: 'unknown_rule', suggestions: ['comparison/min_count'] }),
      ]);
      const columnSensor = await call(app, { method: 'POST', url, payload: { sensor_name: 'column/nulls/null_count', rule_name: 'comparison/min_count' } });
      expect(columnSensor.body.details.violations[0].message).toBe('names a column sensor; a table check needs a table/… sensor');
      const missing = await call(app, { method: 'POST', url, payload: { help_text: 'no names' } });
      expect(missing.body.details.violations.map((v: any) => [v.path, v.code])).toEqual([['/sensor_name', 'custom_check_incomplete'], ['/rule_name', 'custom_check_incomplete']]);
      const wrongName = await call(app, { method: 'POST', url, payload: { check_name: 'other', sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count' } });
      expect(wrongName.body.details.violations).toEqual([expect.objectContaining({ path: '/check_name' })]);
      const badSeverity = await call(app, { method: 'POST', url, payload: { sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count', default_severity: 'critical' } });
      expect(badSeverity.status).toBe(400);
      const place = await call(app, { method: 'POST', url: '/api/checks/table/weekly/volume/bad', payload: { sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count' } });
      expect(place.status).toBe(400);
      expect(place.body.message).toContain('a check definition is named <table|column>/profiling/<category>/<name>');
      expect((await fx.store.listObjects({ kind: 'check' })).map((o) => o.name)).toEqual([CUSTOM_CHECK]);
    });

    it('built-in definitions cannot be created over, changed or deleted; unknown ones are 404', async () => {
      const builtIn = `/api/checks/${enc('table/monitoring/daily/volume/daily_row_count')}`;
      const body = { sensor_name: 'table/volume/row_count', rule_name: 'comparison/max_count' };
      const created = await call(app, { method: 'POST', url: builtIn, payload: body });
      expect(created.status).toBe(409);
      expect(created.body.message).toContain('is a built-in check and cannot be changed');
      expect((await call(app, { method: 'PUT', url: builtIn, payload: body })).status).toBe(409);
      expect((await call(app, { method: 'DELETE', url: builtIn })).status).toBe(404);
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const answer = await call(app, { method, url: '/api/checks/table/profiling/custom/nothing', payload: method === 'PUT' ? body : undefined });
        expect([method, answer.status, answer.body.code]).toEqual([method, 404, 'NOT_FOUND']);
        expect(Object.keys(answer.body).sort()).toEqual(ERROR_BODY_KEYS);
      }
    });
  });

  describe('dictionaries', () => {
    it('lists, reads and downloads a dictionary of the repository as its file holds it', async () => {
      expect((await call(app, { method: 'GET', url: '/api/dictionaries' })).body).toEqual([{ dictionary_name: 'statuses.csv', can_edit: true, can_access_dictionary: true }]);
      expect((await call(app, { method: 'GET', url: '/api/dictionaries/statuses.csv' })).body).toEqual({ dictionary_name: 'statuses.csv', file_content: 'paid\nshipped\n' });
      const download = await app.inject({ method: 'GET', url: '/api/dictionaries/statuses.csv/download' });
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(download.headers['content-disposition']).toBe(`attachment; filename="statuses.csv"; filename*=UTF-8''statuses.csv`);
      expect(download.body).toBe('paid\nshipped\n');
    });

    it('round-trips a CSV text byte for byte: create, read, download, replace, delete', async () => {
      const content = 'PL\r\nDE,FR\n\n"quoted",Zürich\n日本\nPL';
      expect((await call(app, { method: 'POST', url: '/api/dictionaries', payload: { dictionary_name: 'countries.csv', file_content: content } })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: '/api/dictionaries', payload: { dictionary_name: 'countries.csv', file_content: 'x' } })).status).toBe(409);
      expect((await call(app, { method: 'GET', url: '/api/dictionaries/countries.csv' })).body).toEqual({ dictionary_name: 'countries.csv', file_content: content });
      const download = await app.inject({ method: 'GET', url: '/api/dictionaries/countries.csv/download' });
      expect(download.rawPayload.equals(Buffer.from(content, 'utf8'))).toBe(true);
      const [stored] = await fx.store.getObjects([{ kind: 'dictionary', name: 'countries.csv' }]);
      expect(stored).toMatchObject({ managedBy: 'api', attachments: { file_content: content } });

      expect((await call(app, { method: 'PUT', url: '/api/dictionaries/countries.csv', payload: { dictionary_name: 'countries.csv', file_content: 'SE\n' } })).status).toBe(204);
      expect((await call(app, { method: 'GET', url: '/api/dictionaries/countries.csv' })).body.file_content).toBe('SE\n');
      const renamed = await call(app, { method: 'PUT', url: '/api/dictionaries/countries.csv', payload: { dictionary_name: 'other.csv', file_content: 'SE\n' } });
      expect(renamed.status).toBe(400);
      expect(renamed.body.details.violations).toEqual([expect.objectContaining({ path: '/dictionary_name' })]);
      expect((await plan()).kept).toContainEqual(expect.objectContaining({ key: { kind: 'dictionary', name: 'countries.csv' }, reason: 'unmanaged' }));

      expect((await call(app, { method: 'DELETE', url: '/api/dictionaries/countries.csv' })).status).toBe(204);
      const gone = await call(app, { method: 'GET', url: '/api/dictionaries/countries.csv' });
      expect(gone.status).toBe(404);
      expect(Object.keys(gone.body).sort()).toEqual(ERROR_BODY_KEYS);
      expect((await call(app, { method: 'GET', url: '/api/dictionaries/countries.csv/download' })).status).toBe(404);
      expect((await call(app, { method: 'PUT', url: '/api/dictionaries/countries.csv', payload: { file_content: 'x' } })).status).toBe(404);
    });

    it('a changed repository dictionary is drift; a dictionary needs a .csv name and its text', async () => {
      expect((await call(app, { method: 'PUT', url: '/api/dictionaries/statuses.csv', payload: { file_content: 'paid\n' } })).status).toBe(204);
      expect((await plan()).drift).toContainEqual(expect.objectContaining({ key: { kind: 'dictionary', name: 'statuses.csv' }, restored: true }));
      const notCsv = await call(app, { method: 'POST', url: '/api/dictionaries', payload: { dictionary_name: 'countries.txt', file_content: 'x' } });
      expect(notCsv.status).toBe(400);
      expect(notCsv.body.message).toContain('a dictionary is a CSV file named <name>.csv');
      const noContent = await call(app, { method: 'POST', url: '/api/dictionaries', payload: { dictionary_name: 'empty.csv' } });
      expect(noContent.body.details.violations).toEqual([expect.objectContaining({ path: '/file_content' })]);
      const noName = await call(app, { method: 'POST', url: '/api/dictionaries', payload: { file_content: 'x' } });
      expect(noName.body.details.violations).toEqual([expect.objectContaining({ path: '/dictionary_name' })]);
    });
  });

  describe('rules', () => {
    it('a rule written with its Python module reads back as written; its definition is checked as its file', async () => {
      const module = 'def evaluate_rule(rule_parameters):\n    return {"passed": rule_parameters.actual_value >= 1}\n';
      const model = { type: 'python', mode: 'previous_readouts', time_window: { prediction_time_window: 7, min_periods_with_readouts: 3, historic_data_point_grouping: 'day' }, fields: [{ field_name: 'floor', data_type: 'double' }], rule_python_module_content: module };
      expect((await call(app, { method: 'POST', url: '/api/rules/mine/at_least_one', payload: model })).status).toBe(201);
      const read = (await call(app, { method: 'GET', url: '/api/rules/mine/at_least_one' })).body;
      expect(read).toEqual({ rule_name: 'mine/at_least_one', ...model, custom: true, built_in: false, can_edit: true });
      const [stored] = await fx.store.getObjects([{ kind: 'rule', name: 'mine/at_least_one' }]);
      expect(stored).toMatchObject({ managedBy: 'api', attachments: { python_module: module } });

      const changed = module.replace('>= 1', '>= 2');
      expect((await call(app, { method: 'PUT', url: '/api/rules/mine/at_least_one', payload: { ...read, rule_python_module_content: changed } })).status).toBe(204);
      expect((await call(app, { method: 'GET', url: '/api/rules/mine/at_least_one' })).body.rule_python_module_content).toBe(changed);

      const invalid = await call(app, { method: 'POST', url: '/api/rules/mine/bad', payload: { mode: 'current_value', time_window: { prediction_time_window: -1 }, fields: [{ field_name: 'x', data_type: 'float' }] } });
      expect(invalid.status).toBe(400);
      expect(invalid.body.details.violations.map((v: any) => v.path).sort()).toEqual(['/fields/0/data_type', '/time_window/prediction_time_window']);
      expect((await call(app, { method: 'DELETE', url: '/api/rules/mine/at_least_one' })).status).toBe(204);
    });

    it('a built-in rule written back as read stays built-in (no custom rule without Python replaces it)', async () => {
      const served = (await call(app, { method: 'GET', url: '/api/rules/comparison%2Fmin_count' })).body;
      expect((await call(app, { method: 'PUT', url: '/api/rules/comparison%2Fmin_count', payload: served })).status).toBe(204);
      expect(await fx.store.getObjects([{ kind: 'rule', name: 'comparison/min_count' }])).toEqual([]);
    });
  });

  it('with --read-only-managed, the definitions from git cannot be written and say so; the API\'s own can', async () => {
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    try {
      const sensor = (await call(strict, { method: 'GET', url: `/api/sensors/${enc(CUSTOM_SENSOR)}` })).body;
      expect(sensor.can_edit).toBe(false);
      const refused = await call(strict, { method: 'PUT', url: `/api/sensors/${enc(CUSTOM_SENSOR)}`, payload: { ...sensor, sensor_definition_spec: {} } });
      expect([refused.status, refused.body.code]).toEqual([409, 'READ_ONLY_MANAGED']);
      expect(refused.body.message).toContain(`sensors/${CUSTOM_SENSOR}/sensordefinition.dqosensor.yaml`);
      expect((await call(strict, { method: 'DELETE', url: `/api/checks/${CUSTOM_CHECK}` })).status).toBe(409);
      expect((await call(strict, { method: 'PUT', url: '/api/dictionaries/statuses.csv', payload: { file_content: 'x\n' } })).status).toBe(409);
      expect((await call(strict, { method: 'GET', url: '/api/checks/table%2Fprofiling%2Fvolume%2Fprofile_row_count' })).body.can_edit).toBe(true);
    } finally {
      await strict.close();
    }
  });

  describe('hostile input', () => {
    it('refuses names that would leave their folder, in paths and bodies', async () => {
      for (const url of ['/api/sensors/..%2F..%2Fetc%2Fpasswd', '/api/checks/table%2F..%2F..%2Fx', '/api/dictionaries/..%2Fsecret.csv', '/api/rules/a%2F.%2Fb', '/api/dictionaries/..%2F..%2Fx.csv/download']) {
        const answer = await call(app, { method: 'GET', url });
        expect([url, answer.status, answer.body.code]).toEqual([url, 400, 'INVALID_ARGUMENT']);
        expect(Object.keys(answer.body).sort()).toEqual(ERROR_BODY_KEYS);
      }
      const body = await call(app, { method: 'POST', url: '/api/dictionaries', payload: { dictionary_name: '../../escape.csv', file_content: 'x' } });
      expect([body.status, body.body.code]).toEqual([400, 'INVALID_ARGUMENT']);
      const posted = await call(app, { method: 'POST', url: '/api/sensors/..%2Fx', payload: { provider_sensor_list: [] } });
      expect(posted.status).toBe(400);
      expect(await fx.store.listObjects({ kind: 'dictionary' })).toHaveLength(1);
    });

    it('refuses a body over the limit (a module, a template, a dictionary) with 413 and stores nothing', async () => {
      const huge = 'x'.repeat(DEFAULT_BODY_LIMIT);
      for (const [url, payload] of [
        ['/api/rules/big%2Frule', { rule_python_module_content: huge }],
        ['/api/sensors/table%2Fbig%2Fsensor', { provider_sensor_list: [{ provider_type: 'postgresql', sql_template: huge }] }],
        ['/api/dictionaries', { dictionary_name: 'big.csv', file_content: huge }],
      ] as const) {
        const answer = await call(app, { method: 'POST', url, payload });
        expect([url, answer.status, answer.body.code]).toEqual([url, 413, 'PAYLOAD_TOO_LARGE']);
      }
      expect(await fx.store.getObjects([{ kind: 'dictionary', name: 'big.csv' }])).toEqual([]);
    });
  });
});

describe('definitions API: roles', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  const TOKENS = { viewer: 'viewer-token-1', editor: 'editor-token-1', operator: 'operator-token-1', admin: 'admin-token-1' } as const;
  const as = (role: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[role]}` });
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    const tokens = parseTokens(Object.entries(TOKENS).map(([role, token]) => `- {name: ${role}_user, role: ${role}, token: ${token}}`).join('\n'), 'test tokens');
    app = await serverOn(fx.store, { tokens });
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  const WRITES: Array<[method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object]> = [
    ['POST', '/api/rules/r%2Fone', { type: 'python', mode: 'current_value', rule_python_module_content: 'def evaluate_rule(p):\n    return None\n' }],
    ['PUT', '/api/rules/r%2Fone', { mode: 'current_value' }],
    ['DELETE', '/api/rules/r%2Fone'],
    ['POST', '/api/sensors/table%2Fcustom%2Fone', { provider_sensor_list: [{ provider_type: 'postgresql', sql_template: TEMPLATE }] }],
    ['PUT', '/api/sensors/table%2Fcustom%2Fone', { provider_sensor_list: [{ provider_type: 'postgresql', sql_template: TEMPLATE }] }],
    ['DELETE', '/api/sensors/table%2Fcustom%2Fone'],
    ['POST', '/api/checks/table%2Fprofiling%2Fcustom%2Fone', { sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count' }],
    ['PUT', '/api/checks/table%2Fprofiling%2Fcustom%2Fone', { sensor_name: 'table/volume/row_count', rule_name: 'comparison/max_count' }],
    ['DELETE', '/api/checks/table%2Fprofiling%2Fcustom%2Fone'],
    ['POST', '/api/dictionaries', { dictionary_name: 'one.csv', file_content: 'a\n' }],
    ['PUT', '/api/dictionaries/one.csv', { file_content: 'b\n' }],
    ['DELETE', '/api/dictionaries/one.csv'],
  ];

  it('every write needs the admin role: a viewer, an editor and an operator get 403 and change nothing', async () => {
    for (const role of ['viewer', 'editor', 'operator'] as const) {
      for (const [method, url, payload] of WRITES) {
        const answer = await call(app, { method, url, payload, headers: as(role) });
        expect([role, method, url, answer.status]).toEqual([role, method, url, 403]);
        expect(answer.body).toMatchObject({ code: 'FORBIDDEN', message: `${role}_user has the role ${role}; this operation needs admin or higher` });
      }
    }
    expect(await fx.store.listObjects({})).toEqual([]);
  });

  it('an admin writes each; a viewer reads each, and is told it cannot edit', async () => {
    for (const [method, url, payload] of WRITES) {
      const answer = await call(app, { method, url, payload, headers: as('admin') });
      expect([method, url, answer.status]).toEqual([method, url, method === 'POST' ? 201 : 204]);
    }
    for (const url of ['/api/rules', '/api/sensors', '/api/checks', '/api/dictionaries', '/api/definitions/rules', '/api/definitions/sensors', '/api/definitions/checks']) {
      const viewer = await call(app, { method: 'GET', url, headers: as('viewer') });
      expect([url, viewer.status]).toEqual([url, 200]);
    }
    const sensors = (await call(app, { method: 'GET', url: '/api/sensors', headers: as('viewer') })).body;
    expect(sensors.every((s: any) => s.can_edit === false)).toBe(true);
    expect((await call(app, { method: 'GET', url: '/api/sensors/table%2Fvolume%2Frow_count', headers: as('operator') })).body.can_edit).toBe(false);
    expect((await call(app, { method: 'GET', url: '/api/checks/table%2Fprofiling%2Fvolume%2Fprofile_row_count', headers: as('admin') })).body.can_edit).toBe(true);
    expect((await call(app, { method: 'GET', url: '/api/rules/comparison%2Fmin_count', headers: as('editor') })).body.can_edit).toBe(false);
    expect((await call(app, { method: 'GET', url: '/api/sensors', headers: {} })).status).toBe(401);
  });
});
