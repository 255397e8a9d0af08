import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRepository } from '../../src/app/planRepository.js';
import { getCheckCatalog, type CheckContainer } from '../../src/catalog/index.js';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import { EXAMPLE } from '../helpers/cli.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Table policies through both DQOps families (`/api/default/checks/table`, `/api/policies/checks/table`): one
 * stored object per policy, whichever family writes or reads it.
 */
const FAMILIES = [
  {
    family: 'default checks patterns',
    base: '/api/default/checks/table',
    nameField: 'pattern_name',
    specField: 'pattern_spec',
    model: 'DefaultTableChecksPatternModel',
    listModel: 'DefaultTableChecksPatternListModel',
  },
  {
    family: 'quality policies',
    base: '/api/policies/checks/table',
    nameField: 'policy_name',
    specField: 'policy_spec',
    model: 'TableQualityPolicyModel',
    listModel: 'TableQualityPolicyListModel',
  },
] as const;
type Family = (typeof FAMILIES)[number];
const other = (f: Family): Family => (f === FAMILIES[0] ? FAMILIES[1] : FAMILIES[0]);

const CONTAINERS: Array<{ segment: string; container: CheckContainer; path: string[] }> = [
  { segment: 'profiling', container: { target: 'table', checkType: 'profiling', timeScale: null }, path: ['profiling_checks'] },
  { segment: 'monitoring/daily', container: { target: 'table', checkType: 'monitoring', timeScale: 'daily' }, path: ['monitoring_checks', 'daily'] },
  { segment: 'monitoring/monthly', container: { target: 'table', checkType: 'monitoring', timeScale: 'monthly' }, path: ['monitoring_checks', 'monthly'] },
  { segment: 'partitioned/daily', container: { target: 'table', checkType: 'partitioned', timeScale: 'daily' }, path: ['partitioned_checks', 'daily'] },
  { segment: 'partitioned/monthly', container: { target: 'table', checkType: 'partitioned', timeScale: 'monthly' }, path: ['partitioned_checks', 'monthly'] },
];

const ajv = new Ajv({ strict: false, allErrors: true });
for (const schema of apiSchemas()) ajv.addSchema(schema);
function expectValid(model: string, value: unknown): void {
  const validate = ajv.getSchema(model)!;
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}

const url = (f: Family, name: string, suffix = '') => `${f.base}/${encodeURIComponent(name)}${suffix}`;
const json = { 'content-type': 'application/json' };

/** The model of one check in a container model. */
function findCheck(model: any, category: string, check: string): any {
  const found = model.categories.find((c: any) => c.category === category)?.checks.find((c: any) => c.check_name === check);
  if (!found) throw new Error(`no ${category}.${check} in the model`);
  return found;
}

/** Sets a rule parameter of one severity in a check model, in the value field of its data type. */
function setRuleParameter(check: any, severity: string, parameter: string, value: unknown): void {
  const field = check.rule[severity].rule_parameters.find((p: any) => p.definition.field_name === parameter);
  field[`${field.definition.data_type}_value`] = value;
  check.rule[severity].configured = true;
  check.configured = true;
}

function configuredChecks(model: any): string[] {
  return model.categories.flatMap((c: any) => c.checks.filter((k: any) => k.configured).map((k: any) => `${c.category}.${k.check_name}`)).sort();
}

describe('table policies API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  const stored = async (name: string) => (await fx.store.getObjects([{ kind: 'default_table_checks', name }]))[0];

  it.each(FAMILIES)('lists every table policy sorted by name ($family)', async (f) => {
    const { status, body } = await call(app, { method: 'GET', url: f.base });
    expect(status).toBe(200);
    for (const entry of body) expectValid(f.listModel, entry);
    const names = body.map((e: any) => e[f.nameField]);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['Detect empty tables daily', 'mart_volume_and_schema', 'oltp/critical_tables_schema_drift']));
    expect(body.find((e: any) => e[f.nameField] === 'oltp/critical_tables_schema_drift')).toEqual({
      [f.nameField]: 'oltp/critical_tables_schema_drift',
      priority: 300,
      disabled: false,
      target_table: { connection: 'shop_oltp', schema: 'public', table_priority: 2, label: 'critical' },
      can_edit: true,
    });
  });

  it.each(FAMILIES)('gets a policy by its %2F-encoded name and by a name with spaces ($family)', async (f) => {
    const nested = await call(app, { method: 'GET', url: `${f.base}/oltp%2Fcritical_tables_schema_drift` });
    expect(nested.status).toBe(200);
    expectValid(f.model, nested.body);
    expect(nested.body[f.nameField]).toBe('oltp/critical_tables_schema_drift');
    expect(nested.body[f.specField]).toMatchObject({ priority: 300, target: { connection: 'shop_oltp' }, monitoring_checks: { daily: { availability: {} } } });
    expect(nested.body.can_edit).toBe(true);
    const spaced = await call(app, { method: 'GET', url: `${f.base}/Detect%20empty%20tables%20daily` });
    expect(spaced.status).toBe(200);
    expect(spaced.body[f.specField].monitoring_checks.daily.volume.daily_row_count).toEqual({ error: { min_count: 1 } });
    const missing = await call(app, { method: 'GET', url: `${f.base}/no%2Fsuch%20policy` });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(missing.body.message).toContain('no/such policy');
  });

  it.each(FAMILIES)('creates, replaces and deletes through $family; the other family sees the same object', async (f) => {
    const name = `${f.family}/nightly volume`;
    const spec = { description: 'made here', target: { connection: 'shop_oltp', table: 'orders*' }, monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 5 } } } } } };
    expect((await call(app, { method: 'POST', url: url(f, name), payload: { [f.nameField]: name, [f.specField]: spec } })).status).toBe(201);
    const again = await call(app, { method: 'POST', url: url(f, name), payload: { [f.specField]: spec } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ALREADY_EXISTS');

    const o = other(f);
    const read = await call(app, { method: 'GET', url: url(o, name) });
    expect(read.status).toBe(200);
    expectValid(o.model, read.body);
    expect(read.body).toEqual({ [o.nameField]: name, [o.specField]: { ...spec, priority: 1000 }, can_edit: true });

    const replaced = { priority: 50, disabled: true, target: { schema: 'mart' } };
    expect((await call(app, { method: 'PUT', url: url(f, name), payload: { [f.nameField]: name, [f.specField]: replaced } })).status).toBe(204);
    expect((await stored(name))?.spec).toEqual(replaced);
    expect((await stored(name))?.managedBy).toBe('api');
    const listed = (await call(app, { method: 'GET', url: o.base })).body.find((e: any) => e[o.nameField] === name);
    expect(listed).toEqual({ [o.nameField]: name, priority: 50, disabled: true, target_table: { schema: 'mart' }, can_edit: true });

    expect((await call(app, { method: 'DELETE', url: url(o, name) })).status).toBe(204);
    expect((await call(app, { method: 'DELETE', url: url(f, name) })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: url(f, name) })).status).toBe(404);
    expect(await stored(name)).toBeUndefined();
  });

  it.each(FAMILIES)('PUT is an upsert for the policy, its target and its containers, never 404 ($family)', async (f) => {
    const whole = `${f.family} upsert whole`;
    expect((await call(app, { method: 'PUT', url: url(f, whole), payload: { [f.specField]: { target: { table: 'x' } } } })).status).toBe(204);
    expect((await stored(whole))?.spec).toEqual({ priority: 1000, target: { table: 'x' } });

    const target = `${f.family} upsert target`;
    const put = await call(app, { method: 'PUT', url: url(f, target, '/target'), payload: { priority: 7, disabled: true, target_table: { stage: 'gold' } } });
    expect(put.status).toBe(204);
    expect((await stored(target))?.spec).toEqual({ priority: 7, disabled: true, target: { stage: 'gold' } });

    const container = `${f.family} upsert container`;
    const model = (await call(app, { method: 'GET', url: url(f, 'Detect empty tables daily', '/monitoring/monthly') })).body;
    setRuleParameter(findCheck(model, 'volume', 'monthly_row_count'), 'error', 'min_count', 3);
    expect((await call(app, { method: 'PUT', url: url(f, container, '/monitoring/monthly'), payload: model })).status).toBe(204);
    expect((await stored(container))?.spec).toEqual({ priority: 1000, monitoring_checks: { monthly: { volume: { monthly_row_count: { error: { min_count: 3 } } } } } });
  });

  it.each(FAMILIES)('target: GET the list model, POST a policy with only a target, PUT changes only the target ($family)', async (f) => {
    const got = await call(app, { method: 'GET', url: `${f.base}/oltp%2Fcritical_tables_schema_drift/target` });
    expect(got.status).toBe(200);
    expectValid(f.listModel, got.body);
    expect(got.body).toEqual({
      [f.nameField]: 'oltp/critical_tables_schema_drift',
      priority: 300,
      disabled: false,
      target_table: { connection: 'shop_oltp', schema: 'public', table_priority: 2, label: 'critical' },
      can_edit: true,
    });
    expect((await call(app, { method: 'GET', url: url(f, 'nothing here', '/target') })).status).toBe(404);

    const name = `${f.family}/targets only`;
    const body = { [f.nameField]: 'ignored: the path names the policy', priority: 10, target_table: { connection: 'shop_oltp', table: 'orders*', stage: 'raw' } };
    expect((await call(app, { method: 'POST', url: url(f, name, '/target'), payload: body })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: url(f, name, '/target'), payload: body })).status).toBe(409);
    const o = other(f);
    expect((await call(app, { method: 'GET', url: url(o, name) })).body[o.specField]).toEqual({ priority: 10, target: { connection: 'shop_oltp', table: 'orders*', stage: 'raw' } });

    // on a policy with checks, PUT target replaces the target and keeps priority, disabled and every check
    const copy = `${f.family}/mart copy`;
    expect((await call(app, { method: 'POST', url: `${url(f, copy)}/copyfrom/mart_volume_and_schema` })).status).toBe(201);
    const before = (await stored(copy))!.spec;
    const put = await call(app, { method: 'PUT', url: url(o, copy, '/target'), payload: { priority: 1, disabled: true, target_table: { schema: 'gold', label: 'pii' } } });
    expect(put.status).toBe(204);
    expect((await stored(copy))!.spec).toEqual({ ...before, target: { schema: 'gold', label: 'pii' } });
    expect((await call(app, { method: 'GET', url: url(f, copy, '/target') })).body).toMatchObject({ priority: 200, disabled: false, target_table: { schema: 'gold', label: 'pii' } });
  });

  it.each(FAMILIES)('copyfrom: 201 with the source spec, 404 without the source, 409 onto an existing name ($family)', async (f) => {
    const name = `${f.family} copy of drift`;
    const copied = await call(app, { method: 'POST', url: `${url(f, name)}/copyfrom/oltp%2Fcritical_tables_schema_drift` });
    expect(copied.status).toBe(201);
    const source = await stored('oltp/critical_tables_schema_drift');
    const copy = await stored(name);
    expect(copy?.spec).toEqual(source?.spec);
    expect(copy?.managedBy).toBe('api');
    expect((await call(app, { method: 'POST', url: `${url(f, `${name} 2`)}/copyfrom/no%2Fsuch` })).status).toBe(404);
    const onto = await call(app, { method: 'POST', url: `${f.base}/mart_volume_and_schema/copyfrom/oltp%2Fcritical_tables_schema_drift` });
    expect(onto.status).toBe(409);
    expect(onto.body.code).toBe('ALREADY_EXISTS');
    expect((await call(app, { method: 'GET', url: url(other(f), name) })).status).toBe(200);
  });

  it.each(FAMILIES)('each container lists every catalog check, configured where the policy sets it ($family)', async (f) => {
    const catalog = getCheckCatalog();
    const spec = (await stored('mart_volume_and_schema'))!.spec as any;
    for (const { segment, container, path } of CONTAINERS) {
      const { status, body } = await call(app, { method: 'GET', url: url(f, 'mart_volume_and_schema', `/${segment}`) });
      expect(status, segment).toBe(200);
      expectValid('CheckContainerModel', body);
      expect(body).toMatchObject({ can_edit: true, can_run_checks: true, can_delete_data: true });
      const categories = catalog.categoriesOf(container).filter((c) => c !== 'comparisons');
      expect(body.categories.map((c: any) => c.category)).toEqual(categories);
      for (const category of body.categories) {
        expect(category.checks.map((c: any) => c.check_name).sort()).toEqual(catalog.checksIn(container, category.category).map((c) => c.checkName).sort());
      }
      const containerSpec = path.reduce((node, key) => node?.[key], spec) ?? {};
      const expected = Object.entries(containerSpec).flatMap(([category, checks]) => Object.keys(checks as object).map((check) => `${category}.${check}`)).sort();
      expect(configuredChecks(body), segment).toEqual(expected);
      const all = body.categories.flatMap((c: any) => c.checks);
      expect(all.every((c: any) => c.default_check === false)).toBe(true);
    }
    const anomaly = findCheck((await call(app, { method: 'GET', url: url(f, 'mart_volume_and_schema', '/monitoring/daily') })).body, 'volume', 'daily_row_count_anomaly');
    expect(anomaly.rule.warning).toMatchObject({ configured: true });
    expect(anomaly.rule.fatal.configured).toBe(false);
    expect((await call(app, { method: 'GET', url: url(f, 'no such', '/profiling') })).status).toBe(404);
  });

  it('container PUT round trip on a git-managed policy: the model, the stored spec, and drift in the plan', async () => {
    const [f, o] = FAMILIES;
    const name = 'Detect empty tables daily';
    const model = (await call(app, { method: 'GET', url: url(f, name, '/monitoring/daily') })).body;
    const rowCount = findCheck(model, 'volume', 'daily_row_count');
    expect(rowCount.rule.error.rule_parameters.find((p: any) => p.definition.field_name === 'min_count')).toMatchObject({ long_value: 1 });
    setRuleParameter(rowCount, 'error', 'min_count', 25);
    const columnCount = findCheck(model, 'schema', 'daily_column_count_changed');
    columnCount.configured = true;
    columnCount.rule.warning.configured = true;
    expect((await call(app, { method: 'PUT', url: url(f, name, '/monitoring/daily'), payload: model })).status).toBe(204);

    const after = (await call(app, { method: 'GET', url: url(o, name, '/monitoring/daily') })).body;
    expect(findCheck(after, 'volume', 'daily_row_count').rule.error.rule_parameters.find((p: any) => p.definition.field_name === 'min_count')).toMatchObject({ long_value: 25 });
    expect(configuredChecks(after)).toEqual(['schema.daily_column_count_changed', 'volume.daily_row_count']);
    const live = (await stored(name))!;
    expect(live.spec.monitoring_checks).toEqual({ daily: { volume: { daily_row_count: { error: { min_count: 25 } } }, schema: { daily_column_count_changed: { warning: {} } } } });
    expect(live.spec.profiling_checks).toEqual({ volume: { profile_row_count: { error: { min_count: 1 } } } });
    expect(live.spec.target).toEqual({ connection: '*', table: '*' });
    expect(live.managedBy).toBe('git');

    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    expect(plan.drift).toContainEqual(expect.objectContaining({ key: { kind: 'default_table_checks', name }, restored: true }));

    // sent back unchanged, the model changes nothing
    const unchanged = (await call(app, { method: 'GET', url: url(o, name, '/monitoring/daily') })).body;
    expect((await call(app, { method: 'PUT', url: url(o, name, '/monitoring/daily'), payload: unchanged })).status).toBe(204);
    expect((await stored(name))!.contentHash).toBe(live.contentHash);
  });

  it('container PUT adds and removes checks; other containers stay as they were', async () => {
    const f = FAMILIES[1];
    const name = 'partitioned edits';
    expect((await call(app, { method: 'POST', url: `${url(f, name)}/copyfrom/mart_volume_and_schema` })).status).toBe(201);
    const before = (await stored(name))!.spec;
    const model = (await call(app, { method: 'GET', url: url(f, name, '/partitioned/daily') })).body;
    findCheck(model, 'volume', 'daily_partition_row_count').configured = false;
    findCheck(model, 'volume', 'daily_partition_row_count_change').configured = true;
    expect((await call(app, { method: 'PUT', url: url(f, name, '/partitioned/daily'), payload: model })).status).toBe(204);
    const spec = (await stored(name))!.spec as any;
    expect(spec.partitioned_checks).toEqual({ daily: { volume: { daily_partition_row_count_change: {} } } });
    expect(spec.monitoring_checks).toEqual(before.monitoring_checks);
    expect(spec.target).toEqual(before.target);
    expect(configuredChecks((await call(app, { method: 'GET', url: url(f, name, '/partitioned/daily') })).body)).toEqual(['volume.daily_partition_row_count_change']);
  });

  it("each family answers its own release's check models: DQOps 1.7.0's on the older routes, the current release's on the newer", async () => {
    const name = 'model generations';
    const spec = {
      monitoring_checks: {
        daily: {
          volume: { daily_row_count_anomaly: { do_not_schedule: true, warning: { anomaly_percent: 1 } } },
          uniqueness: { daily_duplicate_record_count: { parameters: { columns: ['a'] }, error: { max_count: 0 } } },
        },
      },
    };
    expect((await call(app, { method: 'POST', url: url(FAMILIES[1], name), payload: { policy_name: name, policy_spec: spec } })).status).toBe(201);
    const hints = (model: any) =>
      model.categories.flatMap((c: any) =>
        c.checks.flatMap((k: any) =>
          [...k.sensor_parameters, ...['warning', 'error', 'fatal'].flatMap((s) => k.rule[s].rule_parameters)]
            .filter((field: any) => field.definition.display_hint !== undefined)
            .map((field: any) => `${k.check_name}.${field.definition.field_name}: ${field.definition.display_hint}`),
        ),
      );
    const [older, newer] = await Promise.all(FAMILIES.map(async (f) => (await call(app, { method: 'GET', url: url(f, name, '/monitoring/daily') })).body));
    // the catalog's hints: use_ai of the anomaly rules is a paid feature in DQOps, columns a list of column names
    expect(hints(newer)).toEqual(expect.arrayContaining(['daily_row_count_anomaly.use_ai: requires_paid_version', 'daily_duplicate_record_count.columns: column_names']));
    expect(hints(older).every((hint: string) => hint.endsWith(': textarea'))).toBe(true);
    expect(hints(older).length).toBe(hints(newer).filter((hint: string) => hint.endsWith(': textarea')).length);
    expect(findCheck(newer, 'volume', 'daily_row_count_anomaly').do_not_schedule).toBe(true);
    expect('do_not_schedule' in findCheck(older, 'volume', 'daily_row_count_anomaly')).toBe(false);
    expectValid('CheckContainerModel', older);
    // otherwise the same model: same categories, checks and values
    const without = (model: any) => JSON.stringify(model, (key, value) => (key === 'display_hint' || key === 'do_not_schedule' ? undefined : value));
    expect(without(older)).toBe(without(newer));
    // the older model written back keeps what it does not carry (do_not_schedule)
    expect((await call(app, { method: 'PUT', url: url(FAMILIES[0], name, '/monitoring/daily'), payload: older })).status).toBe(204);
    expect(((await stored(name))!.spec as any).monitoring_checks).toEqual(spec.monitoring_checks);
  });

  it.each(FAMILIES)('refuses invalid bodies with 400 and the violations ($family)', async (f) => {
    const name = `${f.family} invalid`;
    const post = (payload: unknown, suffix = '') => call(app, { method: 'POST', url: url(f, name, suffix), payload: payload as object });

    const wrongType = await post({ [f.specField]: { priority: 'high' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('BODY_INVALID');
    expect(wrongType.body.details.violations).toContainEqual(expect.objectContaining({ path: `/${f.specField}/priority`, code: 'wrong_type' }));

    const unknownKey = await post({ [f.specField]: { targett: {} } });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.details.violations[0]).toMatchObject({ path: `/${f.specField}/targett`, code: 'unknown_key' });

    const unknownCheck = await post({ [f.specField]: { monitoring_checks: { daily: { volume: { daily_row_cont: {} } } } } });
    expect(unknownCheck.status).toBe(400);
    expect(unknownCheck.body.details.violations[0]).toMatchObject({ path: `/${f.specField}/monitoring_checks/daily/volume/daily_row_cont` });
    expect(unknownCheck.body.details.violations[0].message).toContain('daily_row_count');

    const noSpec = await post({ [f.nameField]: name });
    expect(noSpec.status).toBe(400);
    expect(noSpec.body.code).toBe('BODY_INVALID');

    const specNotObject = await call(app, { method: 'PUT', url: url(f, name), payload: { [f.specField]: 'x' } });
    expect(specNotObject.status).toBe(400);

    const badTarget = await post({ priority: 'first', target_table: { connection: 'x' } }, '/target');
    expect(badTarget.status).toBe(400);
    expect(badTarget.body.details.violations[0]).toMatchObject({ path: '/priority' });
    const unknownTargetField = await call(app, { method: 'PUT', url: url(f, name, '/target'), payload: { target_table: { column: 'id' } } });
    expect(unknownTargetField.status).toBe(400);
    expect(unknownTargetField.body.code).toBe('BODY_INVALID');

    const badContainer = await call(app, { method: 'PUT', url: url(f, name, '/profiling'), payload: { categories: 'volume' } });
    expect(badContainer.status).toBe(400);
    expect(badContainer.body.details.violations[0].path).toMatch(/^\/categories/);
    // a check of another container, smuggled into a container model, is refused as a policy file would be
    const misplaced = await call(app, {
      method: 'PUT',
      url: url(f, name, '/monitoring/daily'),
      payload: { categories: [{ category: 'volume', checks: [{ check_name: 'monthly_row_count', configured: true }] }] },
    });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.details.violations[0]).toMatchObject({ path: '/monitoring_checks/daily/volume/monthly_row_count', code: 'check_wrong_container' });

    for (const suffix of ['', '/target', '/monitoring/daily']) {
      const malformed = await call(app, { method: 'PUT', url: url(f, name, suffix), payload: '{"categories": [', headers: json });
      expect(malformed.status, suffix).toBe(400);
      expect(malformed.body.code).toBe('BODY_INVALID');
      expect(malformed.raw).not.toMatch(/\bat \//);
    }
    expect(await stored(name)).toBeUndefined();
  });

  it.each(FAMILIES)('refuses hostile names with 400 on every route ($family)', async (f) => {
    const hostile = ['..%2F..%2Fetc%2Fpasswd', 'a%00b', 'x'.repeat(1500), '%2Fleading', 'a%2F.%2Fb'];
    for (const name of hostile) {
      const requests = [
        { method: 'GET', url: `${f.base}/${name}` },
        { method: 'POST', url: `${f.base}/${name}`, payload: { [f.specField]: {} } },
        { method: 'PUT', url: `${f.base}/${name}`, payload: { [f.specField]: {} } },
        { method: 'DELETE', url: `${f.base}/${name}` },
        { method: 'GET', url: `${f.base}/${name}/target` },
        { method: 'POST', url: `${f.base}/${name}/target`, payload: {} },
        { method: 'PUT', url: `${f.base}/${name}/target`, payload: {} },
        { method: 'GET', url: `${f.base}/${name}/partitioned/monthly` },
        { method: 'PUT', url: `${f.base}/${name}/profiling`, payload: { categories: [] } },
        { method: 'POST', url: `${f.base}/${name}/copyfrom/mart_volume_and_schema` },
        { method: 'POST', url: `${f.base}/new_name/copyfrom/${name}` },
      ] as const;
      for (const request of requests) {
        const { status, body } = await call(app, request as any);
        expect(status, `${request.method} ${request.url.slice(0, 80)}`).toBe(400);
        expect(body).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
      }
    }
  });

  it('the OpenAPI document names every route with its DQOps operation id', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/openapi.json' });
    expect(status).toBe(200);
    const ids = (path: string) => Object.values(body.paths[path] ?? {}).map((op: any) => op.operationId).sort();
    expect(ids('/api/default/checks/table')).toEqual(['get_all_default_table_checks_patterns']);
    expect(ids('/api/policies/checks/table')).toEqual(['get_table_quality_policies']);
    expect(ids('/api/default/checks/table/{name}')).toEqual(['create_default_table_checks_pattern', 'delete_default_table_checks_pattern', 'get_default_table_checks_pattern', 'update_default_table_checks_pattern']);
    expect(ids('/api/policies/checks/table/{name}/target')).toEqual(['create_table_quality_policy_target', 'get_table_quality_policy_target', 'update_table_quality_policy_target']);
    expect(ids('/api/default/checks/table/{name}/monitoring/daily')).toEqual(['get_default_monitoring_daily_table_checks_pattern', 'update_default_monitoring_daily_table_checks_pattern']);
    expect(ids('/api/policies/checks/table/{name}/partitioned/monthly')).toEqual(['get_partitioned_monthly_table_quality_policy', 'update_partitioned_monthly_table_quality_policy']);
    expect(ids('/api/policies/checks/table/{targetName}/copyfrom/{sourceName}')).toEqual(['copy_from_table_quality_policy']);
  });

  it('with --read-only-managed, git-managed policies show can_edit false and refuse writes', async () => {
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    try {
      for (const f of FAMILIES) {
        const listed = (await call(strict, { method: 'GET', url: f.base })).body;
        expect(listed.find((e: any) => e[f.nameField] === 'mart_volume_and_schema').can_edit).toBe(false);
        const container = (await call(strict, { method: 'GET', url: url(f, 'mart_volume_and_schema', '/monitoring/daily') })).body;
        expect(container.can_edit).toBe(false);
        const refused = await call(strict, { method: 'PUT', url: url(f, 'mart_volume_and_schema', '/monitoring/daily'), payload: container });
        expect(refused.status).toBe(409);
        expect(refused.body.code).toBe('READ_ONLY_MANAGED');
        expect(refused.body.message).toContain('patterns/mart_volume_and_schema.dqotablepattern.yaml');
        expect((await call(strict, { method: 'DELETE', url: url(f, 'mart_volume_and_schema') })).status).toBe(409);
      }
    } finally {
      await strict.close();
    }
  });
});
