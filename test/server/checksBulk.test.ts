import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { planRepository } from '../../src/app/planRepository.js';
import { normalizeSpec } from '../../src/diff/normalizeSpec.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../src/model/index.js';
import { EXAMPLE } from '../helpers/cli.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** A CheckModel patch configuring one severity with one rule parameter. */
function patch(severity: 'warning' | 'error' | 'fatal', field: string, value: JsonValue, type = 'long'): JsonObject {
  return { rule: { [severity]: { configured: true, rule_parameters: [{ definition: { field_name: field, data_type: type }, [`${type}_value`]: value }] } } };
}

const TABLE_CHECK = ['monitoring_checks', 'daily', 'volume', 'daily_row_count'];
const COLUMN_CHECK = ['monitoring_checks', 'daily', 'nulls', 'daily_nulls_count'];

function getAt(root: JsonValue | undefined, path: readonly string[]): JsonValue | undefined {
  let node = root;
  for (const key of path) node = isJsonObject(node) ? node[key] : undefined;
  return node;
}

function setAt(root: JsonObject, path: readonly string[], value: JsonValue | undefined): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (!isJsonObject(node[key])) node[key] = {};
    node = node[key] as JsonObject;
  }
  if (value === undefined) delete node[path[path.length - 1]];
  else node[path[path.length - 1]] = value;
}

describe('bulk check activation API', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;

  /** Every table spec, by object name. */
  const tables = async (): Promise<Map<string, JsonObject>> =>
    new Map((await fx.store.listObjects({ kind: 'table' })).map((t) => [t.name, t.spec]));

  /**
   * What the tables must look like after an operation: `before` with `edit` applied at exactly the given
   * locations (`table` or `table#column`), normalized as the store normalizes.
   */
  function expected(before: Map<string, JsonObject>, path: readonly string[], locations: string[], edit: (existing: JsonValue | undefined) => JsonValue | undefined) {
    const out = new Map<string, JsonObject>();
    for (const [name, spec] of before) out.set(name, structuredClone(spec));
    for (const location of locations) {
      const [table, column] = location.split('#');
      const spec = out.get(table)!;
      const owner = column === undefined ? spec : ((spec.columns as JsonObject)[column] as JsonObject);
      setAt(owner, path, edit(getAt(owner, path)));
    }
    for (const [name, spec] of out) out.set(name, normalizeSpec('table', spec));
    return out;
  }

  /** The columns of the connection's tables passing a predicate, as `table#column`. */
  function columnsWhere(before: Map<string, JsonObject>, prefix: string, keep: (table: string, column: string, type: string | undefined) => boolean): string[] {
    const out: string[] = [];
    for (const [name, spec] of before) {
      if (!name.startsWith(prefix)) continue;
      for (const [column, columnSpec] of Object.entries((spec.columns ?? {}) as JsonObject)) {
        const type = getAt(columnSpec, ['type_snapshot', 'column_type']);
        if (keep(name, column, typeof type === 'string' ? type : undefined)) out.push(`${name}#${column}`);
      }
    }
    return out;
  }

  const activate = (connection: string, check: string, body: JsonObject) =>
    call(app, { method: 'PUT', url: `/api/connections/${connection}/checks/${check}/bulkactivate`, payload: body });
  const deactivate = (connection: string, check: string, body: JsonObject) =>
    call(app, { method: 'PUT', url: `/api/connections/${connection}/checks/${check}/bulkdeactivate`, payload: body });

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
  });
  // every test starts from the examples, with a server whose read cache has not seen another test's store
  beforeEach(async () => {
    await app?.close();
    await fx.reset();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app?.close();
    await fx.dispose();
  });

  it('writes a table check into exactly the tables fullTableName selects, keeping existing configurations', async () => {
    const before = await tables();
    expect(getAt(before.get('shop_oltp/public.orders'), TABLE_CHECK)).toBeDefined();
    expect(getAt(before.get('shop_oltp/public.order_items'), TABLE_CHECK)).toBeUndefined();

    const { status, raw } = await activate('shop_oltp', 'daily_row_count', { check_search_filters: { fullTableName: 'public.order*' }, check_model_patch: patch('error', 'min_count', 7) });
    expect(status).toBe(204);
    expect(raw).toBe('');
    const want = expected(before, TABLE_CHECK, ['shop_oltp/public.order_items'], () => ({ error: { min_count: 7 } }));
    expect(await tables()).toEqual(want);
  });

  it('with override_conflicts applies the patch over existing configurations too', async () => {
    const before = await tables();
    const orders = getAt(before.get('shop_oltp/public.orders'), TABLE_CHECK) as JsonObject;
    expect(orders.error).toEqual({ min_count: 5000 });

    const body = { check_search_filters: { connection: 'shop_oltp', fullTableName: 'public.order*', enabled: true }, check_model_patch: patch('error', 'min_count', 7), override_conflicts: true };
    expect((await activate('shop_oltp', 'daily_row_count', body)).status).toBe(204);
    const want = expected(before, TABLE_CHECK, ['shop_oltp/public.orders', 'shop_oltp/public.order_items'], (existing) =>
      existing === undefined ? { error: { min_count: 7 } } : { ...(existing as JsonObject), error: { min_count: 7 } },
    );
    expect(await tables()).toEqual(want);
    // the severities the patch leaves out stay as they were
    expect(getAt((await tables()).get('shop_oltp/public.orders'), [...TABLE_CHECK, 'warning'])).toEqual({ min_count: 50000 });
  });

  it('writes a column check into exactly the columns column and columnDataType select (wildcards)', async () => {
    const before = await tables();
    const selected = columnsWhere(before, 'shop_oltp/public.', (_t, column, type) => column.endsWith('_id') && type !== undefined && type.startsWith('big'));
    // payments.payment_id is a uuid; orders.paid_at is not an id: neither is selected
    expect(selected).toContain('shop_oltp/public.order_items#product_id');
    expect(selected).not.toContain('shop_oltp/public.payments#payment_id');
    const configured = selected.filter((l) => {
      const [table, column] = l.split('#');
      return getAt(before.get(table), ['columns', column, ...COLUMN_CHECK]) !== undefined;
    });
    expect(configured).toEqual(['shop_oltp/public.customers#customer_id', 'shop_oltp/public.orders#order_id']);

    const body = { check_search_filters: { fullTableName: 'public.*', column: '*_id', columnDataType: 'big*', checkType: 'monitoring', timeScale: 'daily', checkCategory: 'nulls' }, check_model_patch: patch('error', 'max_count', 3) };
    expect((await activate('shop_oltp', 'daily_nulls_count', body)).status).toBe(204);
    const want = expected(before, COLUMN_CHECK, selected, (existing) => existing ?? { error: { max_count: 3 } });
    expect(await tables()).toEqual(want);
  });

  it('deactivation removes the check from the selected locations only', async () => {
    const before = await tables();
    const withCheck = columnsWhere(before, 'shop_oltp/', (table, column) => getAt(before.get(table), ['columns', column, ...COLUMN_CHECK]) !== undefined);
    expect(withCheck).toEqual(['shop_oltp/public.customers#customer_id', 'shop_oltp/public.orders#order_id']);

    expect((await deactivate('shop_oltp', 'daily_nulls_count', { check_search_filters: { fullTableName: 'public.orders', column: 'order_*' } })).status).toBe(204);
    expect(await tables()).toEqual(expected(before, COLUMN_CHECK, ['shop_oltp/public.orders#order_id'], () => undefined));

    // a table check, selected by a label of the table
    const next = await tables();
    expect((await deactivate('shop_oltp', 'daily_row_count', { check_search_filters: { labels: ['pc*'] } })).status).toBe(204);
    expect(await tables()).toEqual(expected(next, TABLE_CHECK, ['shop_oltp/public.payments'], () => undefined));
  });

  it('filters that contradict the check select nothing; a fullTableName without a dot names a table in any schema', async () => {
    const before = await tables();
    const everywhere = { check_model_patch: patch('error', 'min_count', 9), override_conflicts: true };
    const contradictions: JsonObject[] = [
      { checkType: 'profiling' },
      { timeScale: 'monthly' },
      { checkTarget: 'column' },
      { checkCategory: 'nulls' },
      { checkName: 'monthly_*' },
      { sensorName: 'column/*' },
      { column: 'order_id' },
      { fullTableName: 'nosuch.*' },
    ];
    for (const filters of contradictions) {
      expect((await activate('shop_oltp', 'daily_row_count', { ...everywhere, check_search_filters: filters })).status, JSON.stringify(filters)).toBe(204);
      expect(await tables(), JSON.stringify(filters)).toEqual(before);
    }
    expect((await activate('shop_oltp', 'daily_row_count', { ...everywhere, check_search_filters: { fullTableName: 'orders' } })).status).toBe(204);
    expect(await tables()).toEqual(expected(before, TABLE_CHECK, ['shop_oltp/public.orders'], (e) => ({ ...(e as JsonObject), error: { min_count: 9 } })));
  });

  it('the enabled filter skips disabled tables and columns (enabled: false selects only them)', async () => {
    const objects = new LiveObjects(fx.store);
    const writer = { caller: 'test' };
    await objects.create('table', 'shop_oltp/tmp.off', { disabled: true, columns: { id: { type_snapshot: { column_type: 'bigint' } } } }, writer);
    await objects.create('table', 'shop_oltp/tmp.on', { columns: { id: { type_snapshot: { column_type: 'bigint' } }, old_id: { disabled: true } } }, writer);
    const before = await tables();

    expect((await activate('shop_oltp', 'daily_row_count', { check_search_filters: { fullTableName: 'tmp.*' }, check_model_patch: {} })).status).toBe(204);
    let want = expected(before, TABLE_CHECK, ['shop_oltp/tmp.on'], () => ({}));
    expect(await tables()).toEqual(want);
    expect((await activate('shop_oltp', 'daily_nulls_count', { check_search_filters: { fullTableName: 'tmp.*', column: '*id' }, check_model_patch: {} })).status).toBe(204);
    want = expected(want, COLUMN_CHECK, ['shop_oltp/tmp.on#id'], () => ({}));
    expect(await tables()).toEqual(want);
    expect((await activate('shop_oltp', 'daily_nulls_count', { check_search_filters: { fullTableName: 'tmp.*', enabled: false }, check_model_patch: {} })).status).toBe(204);
    want = expected(want, COLUMN_CHECK, ['shop_oltp/tmp.off#id', 'shop_oltp/tmp.on#old_id'], () => ({}));
    expect(await tables()).toEqual(want);
  });

  it('refuses unknown checks (with a did-you-mean), unknown connections, hostile names and bad bodies, writing nothing', async () => {
    const revision = await fx.store.revision();
    const body = { check_search_filters: {}, check_model_patch: patch('error', 'min_count', 7) };

    const typo = await activate('shop_oltp', 'daily_row_cont', body);
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({ code: 'INVALID_ARGUMENT', details: { suggestions: ['daily_row_count'] } });
    expect(typo.body.message).toContain('did you mean "daily_row_count"');
    expect((await deactivate('shop_oltp', 'no_such_check_at_all', { check_search_filters: {} })).status).toBe(400);

    const missing = await activate('nowhere', 'daily_row_count', body);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    expect((await deactivate('nowhere', 'daily_row_count', { check_search_filters: {} })).status).toBe(404);

    for (const url of [
      '/api/connections/a%00b/checks/daily_row_count/bulkactivate',
      `/api/connections/${'c'.repeat(1500)}/checks/daily_row_count/bulkactivate`,
      '/api/connections/..%2Fx/checks/daily_row_count/bulkdeactivate',
      '/api/connections/shop_oltp/checks/..%2Fdaily_row_count/bulkactivate',
    ]) {
      expect((await call(app, { method: 'PUT', url, payload: body })).status, url).toBe(400);
    }

    const wrongType = await activate('shop_oltp', 'daily_row_count', { ...body, override_conflicts: 'maybe' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details.violations[0].path).toBe('/override_conflicts');
    const misspelledFilter = await activate('shop_oltp', 'daily_row_count', { ...body, check_search_filters: { fullTablename: 'public.orders' } });
    expect(misspelledFilter.status).toBe(400);
    expect(misspelledFilter.body.code).toBe('BODY_INVALID');
    const badEnum = await deactivate('shop_oltp', 'daily_row_count', { check_search_filters: { checkType: 'sometimes' } });
    expect(badEnum.status).toBe(400);
    const unsupported = await activate('shop_oltp', 'daily_row_count', { ...body, check_search_filters: { tags: ['eu'] } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.message).toContain('tags');
    const otherConnection = await activate('shop_oltp', 'daily_row_count', { ...body, check_search_filters: { connection: 'analytics_dwh' } });
    expect(otherConnection.status).toBe(400);
    const badParameter = await activate('shop_oltp', 'daily_row_count', { ...body, check_model_patch: patch('error', 'min_cont', 7) });
    expect(badParameter.status).toBe(400);
    expect(badParameter.body.code).toBe('BODY_INVALID');
    expect(badParameter.body.details.violations[0]).toMatchObject({ path: '/check_model_patch/rule/error/rule_parameters', code: 'unknown_rule_parameter', suggestions: ['min_count'] });
    const malformed = await call(app, { method: 'PUT', url: '/api/connections/shop_oltp/checks/daily_row_count/bulkactivate', payload: '{"check_search_filters": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.raw).not.toMatch(/\bat \//);

    expect(await fx.store.revision()).toBe(revision);
  });

  it('is one transaction: one refused table (--read-only-managed) leaves every table as it was', async () => {
    const objects = new LiveObjects(fx.store);
    await objects.create('table', 'shop_oltp/zz.api_table', { columns: { id: {} } }, { caller: 'test' });
    const before = await tables();
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    try {
      const refused = await call(strict, {
        method: 'PUT',
        url: '/api/connections/shop_oltp/checks/daily_row_count/bulkactivate',
        payload: { check_search_filters: {}, check_model_patch: patch('error', 'min_count', 3), override_conflicts: true },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('READ_ONLY_MANAGED');
      expect(await tables()).toEqual(before);
      // the API's own table alone may be changed
      const allowed = await call(strict, {
        method: 'PUT',
        url: '/api/connections/shop_oltp/checks/daily_row_count/bulkactivate',
        payload: { check_search_filters: { fullTableName: 'zz.*' }, check_model_patch: patch('error', 'min_count', 3) },
      });
      expect(allowed.status).toBe(204);
      expect(await tables()).toEqual(expected(before, TABLE_CHECK, ['shop_oltp/zz.api_table'], () => ({ error: { min_count: 3 } })));
    } finally {
      await strict.close();
    }
  });

  it('the touched git-managed tables show as drift in the next plan, and only they', async () => {
    const before = await fx.store.listObjects({ kind: 'table' });
    const body = { check_search_filters: { fullTableName: 'mart.*', column: '*_key' }, check_model_patch: patch('error', 'max_count', 0) };
    expect((await activate('analytics_dwh', 'daily_nulls_count', body)).status).toBe(204);
    const after = await fx.store.listObjects({ kind: 'table' });
    const touched = after.filter((t) => t.contentHash !== before.find((b) => b.name === t.name)!.contentHash).map((t) => t.name);
    expect(touched).toEqual(['analytics_dwh/mart.dim_customer', 'analytics_dwh/mart.dim_product', 'analytics_dwh/mart.fact_orders']);

    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    expect(plan.drift.map((d) => `${d.key.kind}:${d.key.name}`)).toEqual(touched.map((name) => `table:${name}`));
    expect(plan.drift.every((d) => d.restored)).toBe(true);
    // deactivating what was activated brings the tables back to the repository's version: no drift left
    expect((await deactivate('analytics_dwh', 'daily_nulls_count', { check_search_filters: { fullTableName: 'mart.*', column: '*_key' } })).status).toBe(204);
    const again = await planRepository({ repository: EXAMPLE, store: fx.store });
    expect(again.plan.drift).toEqual([]);
  });
});
