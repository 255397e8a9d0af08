import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRepository } from '../../src/app/planRepository.js';
import { getCheckCatalog, type CheckContainer } from '../../src/catalog/index.js';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import { parseTokens } from '../../src/server/tokens.js';
import { EXAMPLE } from '../helpers/cli.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Column policies through both DQOps families (`/api/default/checks/column`, `/api/policies/checks/column`):
 * one stored object per policy, whichever family writes or reads it.
 */
const FAMILIES = [
  {
    family: 'default checks patterns',
    base: '/api/default/checks/column',
    nameField: 'pattern_name',
    specField: 'pattern_spec',
    model: 'DefaultColumnChecksPatternModel',
    listModel: 'DefaultColumnChecksPatternListModel',
  },
  {
    family: 'quality policies',
    base: '/api/policies/checks/column',
    nameField: 'policy_name',
    specField: 'policy_spec',
    model: 'ColumnQualityPolicyModel',
    listModel: 'ColumnQualityPolicyListModel',
  },
] as const;
type Family = (typeof FAMILIES)[number];
const other = (f: Family): Family => (f === FAMILIES[0] ? FAMILIES[1] : FAMILIES[0]);

const CONTAINERS: Array<{ segment: string; container: CheckContainer; path: string[] }> = [
  { segment: 'profiling', container: { target: 'column', checkType: 'profiling', timeScale: null }, path: ['profiling_checks'] },
  { segment: 'monitoring/daily', container: { target: 'column', checkType: 'monitoring', timeScale: 'daily' }, path: ['monitoring_checks', 'daily'] },
  { segment: 'monitoring/monthly', container: { target: 'column', checkType: 'monitoring', timeScale: 'monthly' }, path: ['monitoring_checks', 'monthly'] },
  { segment: 'partitioned/daily', container: { target: 'column', checkType: 'partitioned', timeScale: 'daily' }, path: ['partitioned_checks', 'daily'] },
  { segment: 'partitioned/monthly', container: { target: 'column', checkType: 'partitioned', timeScale: 'monthly' }, path: ['partitioned_checks', 'monthly'] },
];

const ajv = new Ajv({ strict: false, allErrors: true });
for (const schema of apiSchemas()) ajv.addSchema(schema);
function expectValid(model: string, value: unknown): void {
  const validate = ajv.getSchema(model)!;
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
}

const url = (f: Family, name: string, suffix = '') => `${f.base}/${encodeURIComponent(name)}${suffix}`;

function findCheck(model: any, category: string, check: string): any {
  const found = model.categories.find((c: any) => c.category === category)?.checks.find((c: any) => c.check_name === check);
  if (!found) throw new Error(`no ${category}.${check} in the model`);
  return found;
}

function ruleParameter(check: any, severity: string, parameter: string): any {
  return check.rule[severity].rule_parameters.find((p: any) => p.definition.field_name === parameter);
}

function configuredChecks(model: any): string[] {
  return model.categories.flatMap((c: any) => c.checks.filter((k: any) => k.configured).map((k: any) => `${c.category}.${k.check_name}`)).sort();
}

describe('column policies API', () => {
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

  const stored = async (name: string) => (await fx.store.getObjects([{ kind: 'default_column_checks', name }]))[0];

  it.each(FAMILIES)('lists every column policy sorted by name, with the column target ($family)', async (f) => {
    const { status, body } = await call(app, { method: 'GET', url: f.base });
    expect(status).toBe(200);
    for (const entry of body) expectValid(f.listModel, entry);
    const names = body.map((e: any) => e[f.nameField]);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['columns/id_columns_not_null', 'email_columns_valid', 'money_amounts_non_negative']));
    expect(body.find((e: any) => e[f.nameField] === 'money_amounts_non_negative')).toEqual({
      [f.nameField]: 'money_amounts_non_negative',
      priority: 500,
      disabled: true,
      target_column: {
        connection: 'analytics_*',
        schema: 'mart',
        table: '*',
        label: 'finance',
        column: '*amount*,*revenue*,*_total,*price*',
        data_type: 'numeric',
        data_type_category: 'numeric_decimal',
      },
      can_edit: true,
    });
    // the table policies are not column policies
    expect(names).not.toContain('Detect empty tables daily');
  });

  it.each(FAMILIES)('gets a policy by its %2F-encoded name; 404 for an unknown one ($family)', async (f) => {
    const nested = await call(app, { method: 'GET', url: `${f.base}/columns%2Fid_columns_not_null` });
    expect(nested.status).toBe(200);
    expectValid(f.model, nested.body);
    expect(nested.body).toEqual({
      [f.nameField]: 'columns/id_columns_not_null',
      [f.specField]: expect.objectContaining({ priority: 100, target: { column: '*_id,*_key', data_type_category: 'numeric_integer' } }),
      can_edit: true,
    });
    expect((await call(app, { method: 'GET', url: `${f.base}/mart_volume_and_schema` })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: `${f.base}/columns%2Fnone` })).body).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it.each(FAMILIES)('creates, replaces and deletes through $family; the other family sees the same object', async (f) => {
    const name = `${f.family}/amounts in eur`;
    const spec = { target: { column: 'amount_eur', data_type_category: 'numeric_decimal' }, monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } };
    expect((await call(app, { method: 'POST', url: url(f, name), payload: { [f.nameField]: name, [f.specField]: spec } })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: url(f, name), payload: { [f.specField]: spec } })).status).toBe(409);
    const o = other(f);
    const read = await call(app, { method: 'GET', url: url(o, name) });
    expectValid(o.model, read.body);
    expect(read.body).toEqual({ [o.nameField]: name, [o.specField]: { ...spec, priority: 1000 }, can_edit: true });

    const replaced = { priority: 20, target: { column: '*_eur', data_type: 'numeric' } };
    expect((await call(app, { method: 'PUT', url: url(o, name), payload: { [o.specField]: replaced } })).status).toBe(204);
    expect((await stored(name))?.spec).toEqual(replaced);
    expect((await call(app, { method: 'DELETE', url: url(f, name) })).status).toBe(204);
    expect((await call(app, { method: 'DELETE', url: url(o, name) })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: url(o, name) })).status).toBe(404);
  });

  it.each(FAMILIES)('PUT upserts the policy, its target and its containers ($family)', async (f) => {
    const whole = `${f.family} upsert`;
    expect((await call(app, { method: 'PUT', url: url(f, whole), payload: { [f.specField]: { disabled: true } } })).status).toBe(204);
    expect((await stored(whole))?.spec).toEqual({ priority: 1000, disabled: true });

    const target = `${f.family} upsert target`;
    expect((await call(app, { method: 'PUT', url: url(f, target, '/target'), payload: { target_column: { column: 'email', data_type_category: 'text' } } })).status).toBe(204);
    expect((await stored(target))?.spec).toEqual({ priority: 1000, target: { column: 'email', data_type_category: 'text' } });

    const container = `${f.family} upsert container`;
    const model = (await call(app, { method: 'GET', url: url(f, 'columns/id_columns_not_null', '/partitioned/monthly') })).body;
    const nulls = findCheck(model, 'nulls', 'monthly_partition_nulls_percent');
    nulls.configured = true;
    nulls.rule.error.configured = true;
    ruleParameter(nulls, 'error', 'max_percent').double_value = 2.5;
    expect((await call(app, { method: 'PUT', url: url(f, container, '/partitioned/monthly'), payload: model })).status).toBe(204);
    expect((await stored(container))?.spec).toEqual({ priority: 1000, partitioned_checks: { monthly: { nulls: { monthly_partition_nulls_percent: { error: { max_percent: 2.5 } } } } } });
  });

  it.each(FAMILIES)('target: GET, POST a policy with only a target (201/409), PUT changes only the target ($family)', async (f) => {
    const got = await call(app, { method: 'GET', url: `${f.base}/email_columns_valid/target` });
    expect(got.status).toBe(200);
    expectValid(f.listModel, got.body);
    expect(got.body).toEqual({
      [f.nameField]: 'email_columns_valid',
      priority: 200,
      disabled: false,
      target_column: { connection: 'shop_oltp', schema: 'public', column: '*email*', data_type: 'varchar,text', data_type_category: 'text' },
      can_edit: true,
    });

    const name = `${f.family}/target only`;
    const body = { priority: 5, disabled: true, target_column: { table: 'customers', column: 'phone' } };
    expect((await call(app, { method: 'POST', url: url(f, name, '/target'), payload: body })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: url(f, name, '/target'), payload: body })).status).toBe(409);
    expect((await stored(name))?.spec).toEqual({ priority: 5, disabled: true, target: { table: 'customers', column: 'phone' } });

    const copy = `${f.family}/email copy`;
    expect((await call(app, { method: 'POST', url: `${url(f, copy)}/copyfrom/email_columns_valid` })).status).toBe(201);
    const before = (await stored(copy))!.spec;
    expect((await call(app, { method: 'PUT', url: url(other(f), copy, '/target'), payload: { priority: 1, target_column: { column: 'mail' } } })).status).toBe(204);
    expect((await stored(copy))!.spec).toEqual({ ...before, target: { column: 'mail' } });
  });

  it.each(FAMILIES)('copyfrom: 201, 404 without the source, 409 onto an existing name ($family)', async (f) => {
    const name = `${f.family}/ids copy`;
    expect((await call(app, { method: 'POST', url: `${url(f, name)}/copyfrom/columns%2Fid_columns_not_null` })).status).toBe(201);
    expect((await stored(name))?.spec).toEqual((await stored('columns/id_columns_not_null'))?.spec);
    expect((await call(app, { method: 'POST', url: `${url(f, name)}/copyfrom/columns%2Fid_columns_not_null` })).status).toBe(409);
    expect((await call(app, { method: 'POST', url: `${url(f, `${name} 2`)}/copyfrom/columns%2Fmissing` })).status).toBe(404);
    // a table policy is no source for a column policy
    expect((await call(app, { method: 'POST', url: `${url(f, `${name} 3`)}/copyfrom/mart_volume_and_schema` })).status).toBe(404);
  });

  it.each(FAMILIES)('each container lists every column check of the catalog, configured where the policy sets it ($family)', async (f) => {
    const catalog = getCheckCatalog();
    const spec = (await stored('money_amounts_non_negative'))!.spec as any;
    for (const { segment, container, path } of CONTAINERS) {
      const { status, body } = await call(app, { method: 'GET', url: url(f, 'money_amounts_non_negative', `/${segment}`) });
      expect(status, segment).toBe(200);
      expectValid('CheckContainerModel', body);
      expect(body.categories.map((c: any) => c.category)).toEqual(catalog.categoriesOf(container).filter((c) => c !== 'comparisons'));
      const listed = body.categories.flatMap((c: any) => c.checks.map((k: any) => k.check_name)).sort();
      expect(listed).toEqual(catalog.checksIn(container).filter((c) => c.category !== 'comparisons').map((c) => c.checkName).sort());
      const containerSpec = path.reduce((node, key) => node?.[key], spec) ?? {};
      const expected = Object.entries(containerSpec).flatMap(([category, checks]) => Object.keys(checks as object).map((check) => `${category}.${check}`)).sort();
      expect(configuredChecks(body), segment).toEqual(expected);
      expect(body.categories.flatMap((c: any) => c.checks).every((c: any) => c.default_check === false)).toBe(true);
    }
    const negatives = findCheck((await call(app, { method: 'GET', url: url(f, 'money_amounts_non_negative', '/partitioned/daily') })).body, 'numeric', 'daily_partition_negative_values');
    expect(negatives).toMatchObject({ configured: true, default_check: false });
    expect(ruleParameter(negatives, 'error', 'max_count')).toMatchObject({ long_value: 0 });
  });

  it('container PUT round trip on a git-managed policy in a sub-folder: model, stored spec, drift in the plan', async () => {
    const [f, o] = FAMILIES;
    const name = 'columns/id_columns_not_null';
    const model = (await call(app, { method: 'GET', url: url(o, name, '/profiling') })).body;
    const nulls = findCheck(model, 'nulls', 'profile_nulls_count');
    expect(ruleParameter(nulls, 'error', 'max_count')).toMatchObject({ long_value: 0 });
    ruleParameter(nulls, 'error', 'max_count').long_value = 3;
    nulls.rule.warning.configured = true;
    ruleParameter(nulls, 'warning', 'max_count').long_value = 1;
    expect((await call(app, { method: 'PUT', url: url(o, name, '/profiling'), payload: model })).status).toBe(204);

    const after = findCheck((await call(app, { method: 'GET', url: url(f, name, '/profiling') })).body, 'nulls', 'profile_nulls_count');
    expect(ruleParameter(after, 'error', 'max_count')).toMatchObject({ long_value: 3 });
    expect(ruleParameter(after, 'warning', 'max_count')).toMatchObject({ long_value: 1 });
    const live = (await stored(name))!;
    expect(live.spec.profiling_checks).toEqual({ nulls: { profile_nulls_count: { warning: { max_count: 1 }, error: { max_count: 3 } } } });
    expect(live.spec.monitoring_checks).toEqual({ daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } });
    expect(live.managedBy).toBe('git');

    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    const drift = plan.drift.find((d) => d.key.kind === 'default_column_checks' && d.key.name === name);
    expect(drift).toMatchObject({ restored: true });
    expect(drift!.fields.map((c) => c.path.join('.'))).toEqual(
      expect.arrayContaining(['spec.profiling_checks.nulls.profile_nulls_count.error.max_count']),
    );
  });

  it.each(FAMILIES)('refuses invalid bodies with 400 and the violations ($family)', async (f) => {
    const name = `${f.family} invalid`;
    const badCategory = await call(app, { method: 'POST', url: url(f, name), payload: { [f.specField]: { target: { data_type_category: 'numbers' } } } });
    expect(badCategory.status).toBe(400);
    expect(badCategory.body.details.violations[0]).toMatchObject({ path: `/${f.specField}/target/data_type_category`, code: 'invalid_value' });

    const badTargetCategory = await call(app, { method: 'POST', url: url(f, name, '/target'), payload: { target_column: { data_type_category: 'numbers' } } });
    expect(badTargetCategory.status).toBe(400);
    expect(badTargetCategory.body.details.violations[0].path).toBe('/target_column/data_type_category');

    const tableCheck = await call(app, { method: 'PUT', url: url(f, name), payload: { [f.specField]: { monitoring_checks: { daily: { volume: { daily_row_count: {} } } } } } });
    expect(tableCheck.status).toBe(400);
    expect(tableCheck.body.code).toBe('BODY_INVALID');

    const wrongRule = await call(app, { method: 'PUT', url: url(f, name), payload: { [f.specField]: { profiling_checks: { nulls: { profile_nulls_count: { error: { max_cont: 0 } } } } } } });
    expect(wrongRule.status).toBe(400);
    expect(wrongRule.body.details.violations[0]).toMatchObject({ code: 'unknown_rule_parameter' });
    expect(wrongRule.body.details.violations[0].message).toContain('max_count');

    const wrongValue = await call(app, {
      method: 'PUT',
      url: url(f, name, '/monitoring/daily'),
      payload: { categories: [{ category: 'nulls', checks: [{ check_name: 'daily_nulls_count', configured: 'yes' }] }] },
    });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.details.violations[0].path).toBe('/categories/0/checks/0/configured');

    const malformed = await call(app, { method: 'POST', url: url(f, name), payload: `{"${f.specField}": {`, headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: 'BODY_INVALID', status: 400 });
    expect(await stored(name)).toBeUndefined();
  });

  it.each(FAMILIES)('refuses hostile names with 400 ($family)', async (f) => {
    for (const name of ['columns%2F..', '..%2Fpatterns', 'nul%00byte', 'y'.repeat(1025)]) {
      for (const [method, suffix] of [['GET', ''], ['PUT', '/target'], ['GET', '/monitoring/monthly'], ['POST', '/copyfrom/email_columns_valid']] as const) {
        const payload = method === 'PUT' ? { target_column: {} } : undefined;
        const { status, body } = await call(app, { method, url: `${f.base}/${name}${suffix}`, payload });
        expect(status, `${method} ${name.slice(0, 20)}${suffix}`).toBe(400);
        expect(body.code).toBe('INVALID_ARGUMENT');
      }
    }
  });

  it('a viewer reads policies with can_edit false and may not write them; an editor may', async () => {
    const tokens = parseTokens('- {name: vera, role: viewer, token: viewer-token-1}\n- {name: ed, role: editor, token: editor-token-1}\n', 'test tokens');
    const secured = await serverOn(fx.store, { tokens });
    try {
      const viewer = { authorization: 'Bearer viewer-token-1' };
      const editor = { authorization: 'Bearer editor-token-1' };
      const f = FAMILIES[1];
      expect((await call(secured, { method: 'GET', url: f.base })).status).toBe(401);
      const listed = await call(secured, { method: 'GET', url: f.base, headers: viewer });
      expect(listed.status).toBe(200);
      expect(listed.body.every((e: any) => e.can_edit === false)).toBe(true);
      const container = await call(secured, { method: 'GET', url: url(f, 'email_columns_valid', '/monitoring/daily'), headers: viewer });
      expect(container.body).toMatchObject({ can_edit: false, can_run_checks: false, can_delete_data: false });
      const refused = await call(secured, { method: 'PUT', url: url(f, 'viewer made', '/target'), payload: { target_column: {} }, headers: viewer });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
      expect((await call(secured, { method: 'POST', url: `${url(f, 'editor made')}/copyfrom/email_columns_valid`, headers: editor })).status).toBe(201);
      expect(await stored('viewer made')).toBeUndefined();
    } finally {
      await secured.close();
    }
  });
});
