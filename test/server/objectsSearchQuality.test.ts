import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * GET /api/objects, as the console's search box asks it a keystroke at a time (issue 25): a page's connections
 * get their quality folded by the store (one row per connection, whatever its number of tables), which must be
 * the quality the overview gives them (the worst of their existing tables'); and a search typed, corrected and
 * retyped answers exactly what a search of the whole list answers.
 */
// a store per engine, on a machine shared with other work
vi.setConfig({ hookTimeout: 300_000, testTimeout: 120_000 });

const result = (connection: string, schema: string, table: string, severity: CheckResultInput['severity'], checkHash = 1): CheckResultInput => ({
  connectionName: connection,
  schemaName: schema,
  tableName: table,
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'volume',
  checkName: 'daily_row_count',
  checkHash,
  timePeriod: '2026-11-20T00:00:00.000Z',
  actualValue: 10,
  severity,
  ...(severity === null ? { errorMessage: 'sensor failed' } : {}),
});

interface Row {
  kind: string;
  name: string;
  quality_status: string;
}

describe.each(STORE_ENGINES)('objects: search and connection quality ($engine)', (engine) => {
  let fx: StoreFixture;
  let app: FastifyInstance;

  beforeAll(async () => {
    fx = await engine.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    for (const name of ['quiet_source', 'failing_source']) {
      const created = await call(app, { method: 'POST', url: `/api/connections/${name}`, payload: { provider_type: 'postgresql', postgresql: { host: 'db', database: 'd', user: 'u' } } });
      expect(created.status).toBe(201);
      expect((await call(app, { method: 'POST', url: `/api/connections/${name}/schemas/public/tables/events`, payload: { columns: {} } })).status).toBe(201);
    }
    await fx.store.insertCheckResults([
      // shop_oltp: a warning; a fatal of a table that is not in the store (its results outlive it) does not count
      result('shop_oltp', 'public', 'orders', 1),
      result('shop_oltp', 'public', 'customers', 0),
      result('shop_oltp', 'public', 'gone_table', 3),
      // analytics_dwh: valid, and a table whose checks could not run: an execution error ranks above valid
      result('analytics_dwh', 'mart', 'fact_orders', 0),
      result('analytics_dwh', 'mart', 'dim_customer', null),
      // failing_source: only execution errors
      result('failing_source', 'public', 'events', null),
      // quiet_source: results of tables that are gone only (an error, an execution error): not run
      result('quiet_source', 'public', 'gone_error', 2),
      result('quiet_source', 'public', 'gone_failed', null),
    ]);
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  it('a page of connections shows each one’s quality as the overview does', async () => {
    const page = (await call(app, { method: 'GET', url: '/api/objects?kind=source&page=1&limit=100' })).body as { objects: Row[] };
    const overview = (await call(app, { method: 'GET', url: '/api/overview' })).body as { connections: Array<{ name: string; quality_status: string }> };
    const fromPage = Object.fromEntries(page.objects.map((o) => [o.name, o.quality_status]));
    expect(fromPage).toEqual(Object.fromEntries(overview.connections.map((c) => [c.name, c.quality_status])));
    expect(fromPage).toEqual({ analytics_dwh: 'execution_error', failing_source: 'execution_error', quiet_source: 'not_run', shop_oltp: 'warning' });
    // the quality filter (which reads every table's) agrees
    const warned = (await call(app, { method: 'GET', url: '/api/objects?kind=source&quality_status=warning&page=1&limit=100' })).body as { objects: Row[] };
    expect(warned.objects.map((o) => o.name)).toEqual(['shop_oltp']);
  });

  it('typed a character at a time, corrected and retyped, every search answers what the whole list filtered answers', async () => {
    const all = ((await call(app, { method: 'GET', url: '/api/objects' })).body as { objects: Array<Row & { origin_file: string | null }> }).objects;
    const expected = (text: string) => {
      const words = text.toLowerCase().split(/\s+/).filter(Boolean);
      return all.filter((o) => words.every((w) => `${o.name} ${o.origin_file ?? ''}`.toLowerCase().includes(w))).map((o) => o.name);
    };
    const texts: string[] = [];
    const type = (text: string) => {
      for (let i = 1; i <= text.length; i++) texts.push(text.slice(0, i));
    };
    type('Shop_oltp/public.ord');
    // backspace to the slash, then another table; words in any order; upper case
    for (let i = 'shop_oltp/public.ord'.length - 1; i >= 'shop_oltp/'.length; i--) texts.push('Shop_oltp/public.ord'.slice(0, i));
    type('shop_oltp/PUBLIC.cust');
    type('public orders ');
    type('public orders items');
    type('mart   ');
    type('mart  dim');
    for (const text of texts) {
      const answer = (await call(app, { method: 'GET', url: `/api/objects?page=1&limit=100&search=${encodeURIComponent(text)}` })).body as { total: number; objects: Row[] };
      const want = expected(text);
      expect(answer.objects.map((o) => o.name), text).toEqual(want.slice(0, 100));
      expect(answer.total, text).toBe(want.length);
    }
    // an object written between two keystrokes is found by the next one (the index, and what it remembers, are new)
    const before = (await call(app, { method: 'GET', url: '/api/objects?page=1&limit=100&search=shop_oltp/public.ne' })).body as { total: number };
    expect(before.total).toBe(0);
    expect((await call(app, { method: 'POST', url: '/api/connections/shop_oltp/schemas/public/tables/new_table', payload: { columns: {} } })).status).toBe(201);
    const after = (await call(app, { method: 'GET', url: '/api/objects?page=1&limit=100&search=shop_oltp/public.new' })).body as { objects: Row[] };
    expect(after.objects.map((o) => o.name)).toEqual(['shop_oltp/public.new_table']);
  });
});
