import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function modelValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const schema of apiSchemas()) ajv.addSchema(schema);
  return (model: string, value: unknown) => {
    const validate = ajv.getSchema(model)!;
    if (!validate(value)) throw new Error(`${model}: ${ajv.errorsText(validate.errors)}`);
    return true;
  };
}

const e = encodeURIComponent;
const table = (t: string, s = 'mart', c = 'analytics_dwh') => `/api/connections/${e(c)}/schemas/${e(s)}/tables/${e(t)}`;
const source = (target: string, c: string, s: string, t: string) => `${target}/lineage/sources/${e(c)}/schemas/${e(s)}/tables/${e(t)}`;
const flowNames = (body: any) => body.flows.map((f: any) => `${f.source_table.compact_key} > ${f.target_table.compact_key}`);

describe('lineage API', () => {
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

  it('lists the source tables of a table', async () => {
    const { status, body } = await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/sources` });
    expect(status).toBe(200);
    for (const item of body) valid('TableLineageTableListModel', item);
    expect(body).toEqual([
      { target_connection: 'analytics_dwh', target_schema: 'mart', target_table: 'fact_orders', source_connection: 'shop_oltp', source_schema: 'public', source_table: 'orders', data_lineage_source_tool: 'dbt', can_edit: true },
      expect.objectContaining({ source_table: 'order_items' }),
      expect.objectContaining({ source_table: 'payments' }),
    ]);
    expect((await call(app, { method: 'GET', url: `${table('orders', 'public', 'shop_oltp')}/lineage/sources` })).body).toEqual([]);
  });

  it('lists the target tables of a table, found across connections', async () => {
    const { status, body } = await call(app, { method: 'GET', url: `${table('orders', 'public', 'shop_oltp')}/lineage/targets` });
    expect(status).toBe(200);
    for (const item of body) valid('TableLineageTableListModel', item);
    expect(body.map((t: any) => `${t.target_connection}/${t.target_schema}.${t.target_table}`)).toEqual([
      'analytics_dwh/mart.daily_revenue',
      'analytics_dwh/mart.dim_customer',
      'analytics_dwh/mart.fact_orders',
      'analytics_dwh/mart.kundenübersicht',
    ]);
    expect(body.every((t: any) => t.source_connection === 'shop_oltp' && t.source_table === 'orders')).toBe(true);
    expect((await call(app, { method: 'GET', url: `${table('daily_revenue')}/lineage/targets` })).body).toEqual([]);
  });

  it('accepts check_type in both spellings (ignored until results exist) and refuses an unknown one', async () => {
    const url = `${table('fact_orders')}/lineage/sources`;
    const plain = (await call(app, { method: 'GET', url })).body;
    expect((await call(app, { method: 'GET', url: `${url}?check_type=monitoring` })).body).toEqual(plain);
    expect((await call(app, { method: 'GET', url: `${url}?checkType=profiling` })).body).toEqual(plain);
    expect((await call(app, { method: 'GET', url: `${table('orders', 'public', 'shop_oltp')}/lineage/targets?checkType=partitioned` })).status).toBe(200);
    const wrong = await call(app, { method: 'GET', url: `${url}?checkType=sometimes` });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('BODY_INVALID');
  });

  it('gets one source entry with its column lineage', async () => {
    const { status, body } = await call(app, { method: 'GET', url: source(table('dim_customer'), 'shop_oltp', 'public', 'customers') });
    expect(status).toBe(200);
    valid('TableLineageSourceSpec', body);
    expect(body).toMatchObject({
      source_connection: 'shop_oltp',
      source_schema: 'public',
      source_table: 'customers',
      data_lineage_source_tool: 'dbt',
      properties: { dbt_model: 'dim_customer', scd_type: '2' },
      columns: { customer_id: { source_columns: ['customer_id'] } },
    });
    const missing = await call(app, { method: 'GET', url: source(table('dim_customer'), 'shop_oltp', 'public', 'payments') });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('lineage source "shop_oltp/public.payments" of table "analytics_dwh/mart.dim_customer" not found');
  });

  it('answers 404 for an unknown target table, connection or flow', async () => {
    for (const url of [
      `${table('nope')}/lineage/sources`,
      `${table('nope')}/lineage/targets`,
      `${table('nope')}/lineage/tree`,
      source(table('nope'), 'shop_oltp', 'public', 'orders'),
      source(table('t', 's', 'gone'), 'shop_oltp', 'public', 'orders'),
    ]) {
      const { status, body } = await call(app, { method: 'GET', url });
      expect(status, url).toBe(404);
      expect(body.code, url).toBe('NOT_FOUND');
    }
    const noConnection = await call(app, { method: 'GET', url: `${table('t', 's', 'gone')}/lineage/tree` });
    expect(noConnection.body.message).toBe('connection "gone" not found');
  });

  it('creates, replaces and deletes a flow inside the target table spec', async () => {
    const target = table('dim_product');
    const url = source(target, 'shop_oltp', 'public', 'order_items');
    const entry = { data_lineage_source_tool: 'manual', properties: { note: 'by hand' }, columns: { product_id: { source_columns: ['product_id'] } } };
    const targetsUrl = `${table('order_items', 'public', 'shop_oltp')}/lineage/targets`;
    // read once before the change: the lineage index is built now and must not go stale
    expect((await call(app, { method: 'GET', url: targetsUrl })).body.map((t: any) => t.target_table)).toEqual(['fact_orders']);
    expect((await call(app, { method: 'POST', url, payload: entry })).status).toBe(201);
    const again = await call(app, { method: 'POST', url, payload: entry });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ALREADY_EXISTS');
    expect((await call(app, { method: 'GET', url })).body).toEqual({ source_connection: 'shop_oltp', source_schema: 'public', source_table: 'order_items', ...entry });
    // stored as an entry of the target's source_tables, after the ones it had
    const spec = (await call(app, { method: 'GET', url: target })).body.spec;
    expect(spec.source_tables.map((s: any) => s.source_table)).toEqual(['products', 'order_items']);
    // the source sees it as a target
    const targets = (await call(app, { method: 'GET', url: `${table('order_items', 'public', 'shop_oltp')}/lineage/targets` })).body;
    expect(targets.map((t: any) => t.target_table)).toEqual(['dim_product', 'fact_orders']);

    expect((await call(app, { method: 'PUT', url, payload: { data_lineage_source_tool: 'airflow' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url })).body).toEqual({ source_connection: 'shop_oltp', source_schema: 'public', source_table: 'order_items', data_lineage_source_tool: 'airflow' });
    expect((await call(app, { method: 'DELETE', url })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: targetsUrl })).body.map((t: any) => t.target_table)).toEqual(['fact_orders']);
    expect((await call(app, { method: 'DELETE', url })).status).toBe(404);
    expect((await call(app, { method: 'GET', url })).status).toBe(404);
    // PUT is an upsert of the flow
    expect((await call(app, { method: 'PUT', url, payload: {} })).status).toBe(204);
    expect((await call(app, { method: 'GET', url })).body).toEqual({ source_connection: 'shop_oltp', source_schema: 'public', source_table: 'order_items' });
    expect((await call(app, { method: 'DELETE', url })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: target })).body.spec.source_tables).toEqual([expect.objectContaining({ source_table: 'products' })]);
  });

  it('accepts a source table that is not (yet) in the store, but not an unknown source connection', async () => {
    const target = table('dim_product');
    const url = source(target, 'shop_oltp', 'archive', 'a/b "old"');
    expect((await call(app, { method: 'POST', url, payload: {} })).status).toBe(201);
    expect((await call(app, { method: 'GET', url })).body.source_table).toBe('a/b "old"');
    expect((await call(app, { method: 'DELETE', url })).status).toBe(204);
    const unknown = await call(app, { method: 'POST', url: source(target, 'elsewhere', 'public', 'orders'), payload: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('connection "elsewhere" not found');
    expect((await call(app, { method: 'POST', url: source(table('nope'), 'shop_oltp', 'public', 'orders'), payload: {} })).status).toBe(404);
    expect((await call(app, { method: 'PUT', url: source(table('nope'), 'shop_oltp', 'public', 'orders'), payload: {} })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: source(table('nope'), 'shop_oltp', 'public', 'orders') })).status).toBe(404);
  });

  it('refuses bad bodies and hostile names with 400', async () => {
    const url = source(table('dim_product'), 'shop_oltp', 'public', 'orders');
    // (the server coerces scalars the way its Ajv is configured, e.g. 1 → "1"; values that cannot be coerced are refused)
    const wrongType = await call(app, { method: 'POST', url, payload: { columns: { x: { source_columns: [{ a: 1 }] } }, properties: { n: { deep: true } } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('BODY_INVALID');
    expect(wrongType.body.details.violations.length).toBeGreaterThan(0);
    const unknownKey = await call(app, { method: 'POST', url, payload: { tool: 'dbt' } });
    expect(unknownKey.status).toBe(400);
    const otherTable = await call(app, { method: 'POST', url, payload: { source_table: 'payments' } });
    expect(otherTable.status).toBe(400);
    expect(otherTable.body.message).toContain('source_table "payments"');
    const malformed = await call(app, { method: 'POST', url, payload: '{"columns": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    for (const hostile of [
      source(table('dim_product'), '../x', 'public', 'orders'),
      source(table('dim_product'), 'shop_oltp', 'pub.lic', 'orders'),
      source(table('dim_product'), 'shop_oltp', 'public', 'a\u0000b'),
      source(table('dim_product'), 'shop_oltp', 'public', 'x'.repeat(1500)),
      `${table('dim_product')}/lineage/sources/shop_oltp/schemas/public/tables/x%2F..`,
    ]) {
      const { status, body } = await call(app, { method: 'GET', url: hostile });
      expect(status, hostile).toBe(400);
      expect(body.code).toBe('INVALID_ARGUMENT');
    }
    expect((await call(app, { method: 'GET', url: table('dim_product') })).body.spec.source_tables).toHaveLength(1);
  });

  it('concurrent flow writes to one target never lose each other', async () => {
    const target = table('dim_product');
    const names = Array.from({ length: 10 }, (_, i) => `parallel_${i}`);
    const writes = await Promise.all(names.map((n) => call(app, { method: 'POST', url: source(target, 'shop_oltp', 'public', n), payload: {} })));
    expect(writes.map((w) => w.status)).toEqual(Array(10).fill(201));
    const sources = (await call(app, { method: 'GET', url: `${target}/lineage/sources` })).body.map((s: any) => s.source_table);
    expect(sources.sort()).toEqual(['products', ...names].sort());
    await Promise.all(names.map((n) => call(app, { method: 'DELETE', url: source(target, 'shop_oltp', 'public', n) })));
    expect((await call(app, { method: 'GET', url: `${target}/lineage/sources` })).body).toHaveLength(1);
  });

  describe('tree', () => {
    it('walks upstream and downstream transitively', async () => {
      const { status, body } = await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/tree` });
      expect(status).toBe(200);
      valid('TableLineageModel', body);
      expect(body.relative_table).toEqual({ connection_name: 'analytics_dwh', physical_table_name: { schema_name: 'mart', table_name: 'fact_orders' }, compact_key: 'analytics_dwh/mart.fact_orders' });
      // no results yet: the statuses are left out (DQOps's client parses a status only as a whole object)
      expect(body.relative_table_cumulative_quality_status).toBeUndefined();
      expect(body.data_lineage_fully_loaded).toBe(true);
      expect(flowNames(body)).toEqual([
        'shop_oltp/public.orders > analytics_dwh/mart.fact_orders',
        'shop_oltp/public.order_items > analytics_dwh/mart.fact_orders',
        'shop_oltp/public.payments > analytics_dwh/mart.fact_orders',
        'analytics_dwh/mart.fact_orders > analytics_dwh/mart.daily_revenue',
      ]);
      expect(body.flows[0]).toEqual({
        source_table: { connection_name: 'shop_oltp', physical_table_name: { schema_name: 'public', table_name: 'orders' }, compact_key: 'shop_oltp/public.orders' },
        target_table: body.relative_table,
        row_count: null,
      });
      // from a source: every table it feeds, and what those feed
      const orders = (await call(app, { method: 'GET', url: `${table('orders', 'public', 'shop_oltp')}/lineage/tree` })).body;
      expect(flowNames(orders)).toEqual([
        'shop_oltp/public.orders > analytics_dwh/mart.daily_revenue',
        'shop_oltp/public.orders > analytics_dwh/mart.dim_customer',
        'shop_oltp/public.orders > analytics_dwh/mart.fact_orders',
        'shop_oltp/public.orders > analytics_dwh/mart.kundenübersicht',
        'analytics_dwh/mart.fact_orders > analytics_dwh/mart.daily_revenue',
      ]);
    });

    it('walks one direction when the other is false', async () => {
      const up = (await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/tree?downstream=false` })).body;
      expect(flowNames(up)).toHaveLength(3);
      const down = (await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/tree?upstream=false&downstream=true` })).body;
      expect(flowNames(down)).toEqual(['analytics_dwh/mart.fact_orders > analytics_dwh/mart.daily_revenue']);
      const none = (await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/tree?upstream=false&downstream=false` })).body;
      expect(none.flows).toEqual([]);
      expect((await call(app, { method: 'GET', url: `${table('fact_orders')}/lineage/tree?upstream=perhaps` })).status).toBe(400);
    });

    it('ends on cycles (a → b → a) and self-loops, listing each flow once', async () => {
      const t = (name: string) => table(name, 'loops');
      for (const name of ['a', 'b', 'self']) expect((await call(app, { method: 'POST', url: t(name), payload: {} })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: source(t('b'), 'analytics_dwh', 'loops', 'a'), payload: {} })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: source(t('a'), 'analytics_dwh', 'loops', 'b'), payload: {} })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: source(t('self'), 'analytics_dwh', 'loops', 'self'), payload: {} })).status).toBe(201);
      expect((await call(app, { method: 'POST', url: source(t('self'), 'analytics_dwh', 'loops', 'a'), payload: {} })).status).toBe(201);

      const a = (await call(app, { method: 'GET', url: `${t('a')}/lineage/tree` })).body;
      expect(flowNames(a)).toEqual([
        'analytics_dwh/loops.b > analytics_dwh/loops.a',
        'analytics_dwh/loops.a > analytics_dwh/loops.b',
        'analytics_dwh/loops.a > analytics_dwh/loops.self',
        'analytics_dwh/loops.self > analytics_dwh/loops.self',
      ]);
      const self = (await call(app, { method: 'GET', url: `${t('self')}/lineage/tree` })).body;
      expect(flowNames(self)).toEqual([
        'analytics_dwh/loops.self > analytics_dwh/loops.self',
        'analytics_dwh/loops.a > analytics_dwh/loops.self',
        'analytics_dwh/loops.b > analytics_dwh/loops.a',
        'analytics_dwh/loops.a > analytics_dwh/loops.b',
      ]);
      const targets = (await call(app, { method: 'GET', url: `${t('self')}/lineage/targets` })).body;
      expect(targets.map((x: any) => x.target_table)).toEqual(['self']);
    });
  });
});
