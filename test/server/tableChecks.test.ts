import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const TABLE = '/api/connections/shop_oltp/schemas/public/tables';

type CheckModel = { check_name: string; configured: boolean; default_check: boolean; rule: Record<string, { configured: boolean; rule_parameters: Array<{ definition: { field_name: string }; long_value?: number; double_value?: number }> }> };
type ContainerModel = { categories: Array<{ category: string; checks: CheckModel[] }> };

function check(model: ContainerModel, category: string, name: string): CheckModel {
  const found = model.categories.find((c) => c.category === category)?.checks.find((c) => c.check_name === name);
  if (!found) throw new Error(`${category}.${name} not in the model`);
  return found;
}

describe('table and column check containers show the effective checks', () => {
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

  it('own checks win; checks added by a matching policy are configured and marked default_check', async () => {
    const model = (await call(app, { method: 'GET', url: `${TABLE}/customers/monitoring/daily/model` })).body as ContainerModel;
    const own = check(model, 'volume', 'daily_row_count');
    expect(own).toMatchObject({ configured: true, default_check: false });
    expect(own.rule.warning.rule_parameters[0]).toMatchObject({ definition: { field_name: 'min_count' }, long_value: 1000 });
    const column = (await call(app, { method: 'GET', url: `${TABLE}/customers/columns/email/monitoring/daily/model` })).body as ContainerModel;
    expect(check(column, 'patterns', 'daily_invalid_email_format_percent')).toMatchObject({ configured: true, default_check: true });
    expect(check(column, 'nulls', 'daily_nulls_count').configured).toBeTypeOf('boolean');
  });

  it('a model sent back untouched copies nothing from policies; an edited policy check is written into the table', async () => {
    const url = `${TABLE}/customers/columns/email/monitoring/daily/model`;
    const before = (await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.customers' }]))[0];
    const model = (await call(app, { method: 'GET', url })).body as ContainerModel;
    expect((await call(app, { method: 'PUT', url, payload: model })).status).toBe(204);
    const unchanged = (await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.customers' }]))[0];
    expect(unchanged.contentHash).toBe(before.contentHash);

    const edited = check(model, 'patterns', 'daily_invalid_email_format_percent');
    edited.rule.error.rule_parameters[0].double_value = 2.5;
    expect((await call(app, { method: 'PUT', url, payload: model })).status).toBe(204);
    const after = (await call(app, { method: 'GET', url: `${TABLE}/customers/columns/email/monitoring/daily` })).body;
    expect(after.patterns.daily_invalid_email_format_percent.error).toEqual({ max_percent: 2.5 });
    const reread = (await call(app, { method: 'GET', url })).body as ContainerModel;
    expect(check(reread, 'patterns', 'daily_invalid_email_format_percent')).toMatchObject({ configured: true, default_check: false });
  });

  it('reads and replaces a container as the file holds it', async () => {
    const url = `${TABLE}/payments/profiling`;
    const spec = { volume: { profile_row_count: { error: { min_count: 3 } } } };
    expect((await call(app, { method: 'PUT', url, payload: spec })).status).toBe(204);
    expect((await call(app, { method: 'GET', url })).body).toEqual(spec);
    const wrong = await call(app, { method: 'PUT', url, payload: { volume: { daily_row_count: {} } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details.violations[0].code).toBe('check_wrong_container');
  });

  it('404 for unknown tables and columns, 400 for hostile names', async () => {
    expect((await call(app, { method: 'GET', url: `${TABLE}/nope/profiling/model` })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: `${TABLE}/customers/columns/nope/profiling/model` })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: `${TABLE}/customers/columns/a%00b/profiling` })).status).toBe(400);
  });
});
