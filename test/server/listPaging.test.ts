import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The lists page and filter as DQOps's table list does (issue 25): `page`/`limit` (off without either, 100 rows
 * when only `page` is given), `filter` with DQOps's name patterns (case ignored, `*` wildcards), disabled tables
 * left out of the table list, bad values refused. And GET /api/objects: paged, searched and filtered on the
 * server, with the totals. On PostgreSQL, through the API a client uses.
 */
vi.setConfig({ hookTimeout: 300_000, testTimeout: 120_000 });

const e = encodeURIComponent;
const TABLES = '/api/connections/paged/schemas/sales/tables';
const NAMED = ['orders', 'Orders_Big', 'orders_small', 'daily_orders', 'fact_daily_orders'];
const NUMBERED = Array.from({ length: 120 }, (_, i) => `t_${String(i).padStart(3, '0')}`);
const DISABLED = new Set(['t_005', 't_050', 'orders_small']);

const names = (body: Array<{ target: { schema_name: string; table_name: string } }>) => body.map((t) => t.target.table_name);
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('paged and filtered lists', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  /** The enabled tables of schema `sales`, in the order the list answers them. */
  const enabled = [...NAMED, ...NUMBERED].filter((t) => !DISABLED.has(t)).sort(byCodePoint);

  beforeAll(async () => {
    fx = await STORE_ENGINES.find((engine) => engine.engine === 'postgres')!.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    const post = async (url: string, payload: object) => expect((await call(app, { method: 'POST', url, payload })).status).toBe(201);
    await post('/api/connections/paged', { provider_type: 'postgresql', postgresql: { host: 'db', database: 'paged', user: 'dq' } });
    const LABELS: Record<string, string[]> = { orders: ['finance', 'critical'], daily_orders: ['finance'], orders_small: ['finance'] };
    for (const table of [...NAMED, ...NUMBERED]) {
      await post(`${TABLES}/${e(table)}`, { ...(DISABLED.has(table) ? { disabled: true } : {}), ...(LABELS[table] ? { labels: LABELS[table] } : {}), columns: {} });
    }
    // another schema whose name differs only in case: DQOps matches the schema of the path ignoring case
    await post('/api/connections/paged/schemas/SALES/tables/upper_case_schema', { columns: {} });
    await post('/api/connections/paged/schemas/other/tables/elsewhere', { columns: {} });
    const columns = Object.fromEntries([...Array.from({ length: 30 }, (_, i) => [`c_${String(i).padStart(2, '0')}`, {}]), ['Amount', { disabled: true }]]);
    await post('/api/connections/paged/schemas/other/tables/wide', { columns });
  });
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });

  describe('GET …/schemas/{s}/tables', () => {
    it('without page and limit: every enabled table of the schema (its name matched ignoring case), sorted by schema then name', async () => {
      const { status, body } = await call(app, { method: 'GET', url: TABLES });
      expect(status).toBe(200);
      expect(body.map((t: any) => `${t.target.schema_name}.${t.target.table_name}`)).toEqual(['SALES.upper_case_schema', ...enabled.map((t) => `sales.${t}`)]);
      for (const t of body) expect(t.disabled).toBe(false);
    });

    it('leaves disabled tables out, whatever the filter', async () => {
      for (const table of DISABLED) expect((await call(app, { method: 'GET', url: `${TABLES}?filter=${e(table)}` })).body).toEqual([]);
      // a disabled table is still there to read on its own
      const one = await call(app, { method: 'GET', url: `${TABLES}/t_005` });
      expect(one.status).toBe(200);
      expect(one.body.spec.disabled).toBe(true);
    });

    it('pages: limit rows from (page - 1) × limit; the last page short, a page past the end empty', async () => {
      const all = ['upper_case_schema', ...enabled];
      const page = async (query: string) => names((await call(app, { method: 'GET', url: `${TABLES}?${query}` })).body);
      expect(await page('page=1&limit=50')).toEqual(all.slice(0, 50));
      expect(await page('page=2&limit=50')).toEqual(all.slice(50, 100));
      expect(await page('page=3&limit=50')).toEqual(all.slice(100));
      expect(all.slice(100).length).toBeLessThan(50);
      expect(await page('page=4&limit=50')).toEqual([]);
      expect(await page('page=1000&limit=1000')).toEqual([]);
      expect(await page('limit=1000')).toEqual(all);
      // page alone: 100 rows a page; limit alone: the first page
      expect(await page('page=2')).toEqual(all.slice(100, 200));
      expect(await page('limit=3')).toEqual(all.slice(0, 3));
    });

    it("filters with DQOps's patterns: the whole name, prefix*, *suffix, *contains*, pre*post, case ignored, quotes dropped", async () => {
      const filtered = async (filter: string) => names((await call(app, { method: 'GET', url: `${TABLES}?filter=${e(filter)}` })).body);
      expect(await filtered('ORDERS')).toEqual(['orders']);
      expect(await filtered('"orders"')).toEqual(['orders']);
      expect(await filtered('orders*')).toEqual(['Orders_Big', 'orders']);
      expect(await filtered('*orders')).toEqual(['daily_orders', 'fact_daily_orders', 'orders']);
      expect(await filtered('*ORDERS*')).toEqual(['Orders_Big', 'daily_orders', 'fact_daily_orders', 'orders']);
      expect(await filtered('fact*orders')).toEqual(['fact_daily_orders']);
      expect(await filtered('order')).toEqual([]);
      expect(await filtered('*')).toHaveLength(enabled.length + 1);
      expect(await filtered('')).toHaveLength(enabled.length + 1);
    });

    it("takes DQOps's label filter: every label asked (exact, ignoring case, or a pattern) among the table's and its connection's labels", async () => {
      const labelled = async (query: string) => names((await call(app, { method: 'GET', url: `${TABLES}?${query}` })).body);
      expect(await labelled('label=finance')).toEqual(['daily_orders', 'orders']); // orders_small is disabled
      expect(await labelled('label=FINANCE')).toEqual(['daily_orders', 'orders']);
      expect(await labelled('label=fin*')).toEqual(['daily_orders', 'orders']);
      expect(await labelled('label=finance&label=critical')).toEqual(['orders']);
      expect(await labelled('label=finance&filter=daily*')).toEqual(['daily_orders']);
      expect(await labelled('label=finance&page=2&limit=1')).toEqual(['orders']);
      expect(await labelled('label=nothing')).toEqual([]);
      // the connection's labels count for each of its tables
      expect((await call(app, { method: 'PUT', url: '/api/connections/paged/labels', payload: ['warehouse'] })).status).toBe(204);
      expect(await labelled('label=warehouse&filter=t_00*')).toEqual(['t_000', 't_001', 't_002', 't_003', 't_004', 't_006', 't_007', 't_008', 't_009']);
      expect(await labelled('label=warehouse&label=critical')).toEqual(['orders']);
    });

    it('filters, then pages the matching tables', async () => {
      const { body } = await call(app, { method: 'GET', url: `${TABLES}?filter=t_0*&page=1&limit=10` });
      expect(names(body)).toEqual(['t_000', 't_001', 't_002', 't_003', 't_004', 't_006', 't_007', 't_008', 't_009', 't_010']);
      const second = await call(app, { method: 'GET', url: `${TABLES}?filter=t_0*&page=10&limit=10` });
      // 98 match (t_005 and t_050 are disabled): the tenth page holds the last eight
      expect(names(second.body)).toEqual(['t_092', 't_093', 't_094', 't_095', 't_096', 't_097', 't_098', 't_099']);
    });

    it('refuses a page or limit that is not a whole number of at least 1 (400, with the reason)', async () => {
      for (const query of ['page=0', 'limit=0', 'page=-1&limit=10', 'page=abc', 'limit=1.5', 'page=1&limit=-5']) {
        const { status, body } = await call(app, { method: 'GET', url: `${TABLES}?${query}` });
        expect(status, query).toBe(400);
        expect(body.message, query).toMatch(/page|limit/);
      }
    });

    it('answers 404 for a schema without tables and a connection that does not exist, paged or not', async () => {
      expect((await call(app, { method: 'GET', url: '/api/connections/paged/schemas/nope/tables?page=1' })).status).toBe(404);
      expect((await call(app, { method: 'GET', url: '/api/connections/nope/schemas/sales/tables?limit=5' })).status).toBe(404);
    });

    it('sees a table enabled, disabled or created through the API at once', async () => {
      const put = await call(app, { method: 'PUT', url: `${TABLES}/t_050`, payload: { columns: {} } });
      expect(put.status).toBe(204);
      expect(names((await call(app, { method: 'GET', url: `${TABLES}?filter=t_05*` })).body)).toContain('t_050');
      expect((await call(app, { method: 'PUT', url: `${TABLES}/t_050`, payload: { disabled: true, columns: {} } })).status).toBe(204);
      expect(names((await call(app, { method: 'GET', url: `${TABLES}?filter=t_05*` })).body)).not.toContain('t_050');
    });
  });

  describe('GET …/columns and GET /api/connections (dqctl also takes filter, page and limit there)', () => {
    const COLUMNS = '/api/connections/paged/schemas/other/tables/wide/columns';
    const columnNames = (body: Array<{ column_name: string }>) => body.map((c) => c.column_name);
    const allColumns = ['Amount', ...Array.from({ length: 30 }, (_, i) => `c_${String(i).padStart(2, '0')}`)];

    it('columns: without parameters every column (disabled ones too, as DQOps lists them), sorted', async () => {
      const { status, body } = await call(app, { method: 'GET', url: COLUMNS });
      expect(status).toBe(200);
      expect(columnNames(body)).toEqual(allColumns);
      expect(body[0]).toMatchObject({ column_name: 'Amount', disabled: true });
    });

    it('columns: filtered by name pattern and paged', async () => {
      const get = async (query: string) => columnNames((await call(app, { method: 'GET', url: `${COLUMNS}?${query}` })).body);
      expect(await get('filter=amount')).toEqual(['Amount']);
      expect(await get('filter=c_1*')).toEqual(allColumns.filter((c) => c.startsWith('c_1')));
      expect(await get('page=2&limit=10')).toEqual(allColumns.slice(10, 20));
      expect(await get('page=4&limit=10')).toEqual(allColumns.slice(30));
      expect(await get('page=5&limit=10')).toEqual([]);
      expect((await call(app, { method: 'GET', url: `${COLUMNS}?limit=0` })).status).toBe(400);
    });

    it('connections: without parameters all of them as before; filtered and paged', async () => {
      const all = (await call(app, { method: 'GET', url: '/api/connections' })).body.map((c: { connection_name: string }) => c.connection_name);
      expect(all).toEqual([...all].sort(byCodePoint));
      expect(all).toContain('paged');
      const get = async (query: string) => (await call(app, { method: 'GET', url: `/api/connections?${query}` })).body.map((c: { connection_name: string }) => c.connection_name);
      expect(await get('filter=PAGED')).toEqual(['paged']);
      expect(await get('filter=*a*')).toEqual(all.filter((c: string) => c.toLowerCase().includes('a')));
      expect(await get('limit=1&page=2')).toEqual(all.slice(1, 2));
      expect(await get(`page=${all.length + 1}&limit=1`)).toEqual([]);
      expect((await call(app, { method: 'GET', url: '/api/connections?page=0' })).status).toBe(400);
    });
  });

  describe('GET /api/objects', () => {
    const objects = async (query: string) => {
      const { status, body } = await call(app, { method: 'GET', url: `/api/objects${query ? `?${query}` : ''}` });
      expect(status, query).toBe(200);
      return body;
    };

    it('without parameters: every object, as before paging, with the totals and the connections', async () => {
      const body = await objects('');
      expect(body.page).toBeNull();
      expect(body.limit).toBeNull();
      expect(body.total).toBe(body.objects.length);
      expect(body.total_objects).toBe(body.objects.length);
      expect(body.objects.filter((o: { name: string }) => o.name.startsWith('paged/'))).toHaveLength(NAMED.length + NUMBERED.length + 3);
      expect(body.connections).toContain('paged');
      expect(body.connections).toEqual([...body.connections].sort(byCodePoint));
    });

    it('pages the sorted list: each page is the next slice, a page past the end is empty, the total stays', async () => {
      const all = (await objects('')).objects.map((o: { kind: string; name: string }) => `${o.kind}:${o.name}`);
      const seen: string[] = [];
      for (let page = 1; ; page++) {
        const body = await objects(`page=${page}&limit=40`);
        expect(body).toMatchObject({ page, limit: 40, total: all.length, total_objects: all.length });
        if (body.objects.length === 0) break;
        expect(body.objects.length).toBeLessThanOrEqual(40);
        seen.push(...body.objects.map((o: { kind: string; name: string }) => `${o.kind}:${o.name}`));
      }
      expect(seen).toEqual(all);
    });

    it('searches every word (case ignored) in the name or the file, and filters by kind, connection, owner, sync and quality', async () => {
      const search = await objects(`search=${e('SALES.T_01 paged')}&limit=5`);
      expect(search.total).toBe(10); // t_010 … t_019 (the objects list shows disabled tables too)
      expect(search.total_objects).toBeGreaterThan(130);
      expect(search.objects.map((o: { name: string }) => o.name)).toEqual(['paged/sales.t_010', 'paged/sales.t_011', 'paged/sales.t_012', 'paged/sales.t_013', 'paged/sales.t_014']);
      expect((await objects('search=sales%20orders')).objects.map((o: { name: string }) => o.name)).toEqual(NAMED.map((t) => `paged/sales.${t}`).sort(byCodePoint));
      const kind = await objects('kind=source');
      expect(kind.objects.every((o: { kind: string }) => o.kind === 'source')).toBe(true);
      expect(kind.total).toBe(kind.connections.length);
      const connection = await objects('connection=paged&kind=table&limit=1');
      expect(connection.total).toBe(NAMED.length + NUMBERED.length + 3);
      const api = await objects('owner=api&connection=paged');
      expect(api.total).toBe(NAMED.length + NUMBERED.length + 4);
      expect(api.objects.every((o: { sync_status: string }) => o.sync_status === 'Extraneous')).toBe(true);
      expect((await objects('owner=api&sync_status=Synced&connection=paged')).total).toBe(0);
      expect((await objects('owner=git&sync_status=Synced')).total).toBeGreaterThan(0);
      expect((await objects('quality_status=not_run&connection=paged')).total).toBe(NAMED.length + NUMBERED.length + 4);
      expect((await objects('quality_status=error&connection=paged')).total).toBe(0);
    });

    it('joins each object of a page with the newest results of its table (its connection: the worst of its tables), as the quality filter does', async () => {
      const result = (table: string, severity: 0 | 1 | 2) => ({
        connectionName: 'paged',
        schemaName: 'sales',
        tableName: table,
        checkType: 'monitoring' as const,
        timeGradient: 'day' as const,
        checkCategory: 'volume',
        checkName: 'daily_row_count',
        checkHash: 1,
        timePeriod: '2026-11-20T00:00:00.000Z',
        actualValue: 1,
        severity,
        executedAt: '2026-11-20T06:00:00.000Z',
      });
      await fx.store.insertCheckResults([result('t_000', 2), result('t_001', 1), result('t_002', 0)]);
      const page = await objects(`search=${e('paged/sales.t_00')}&limit=4`);
      expect(page.objects.map((o: { name: string; quality_status: string }) => `${o.name}:${o.quality_status}`)).toEqual([
        'paged/sales.t_000:error',
        'paged/sales.t_001:warning',
        'paged/sales.t_002:valid',
        'paged/sales.t_003:not_run',
      ]);
      expect((await objects('kind=source&search=paged')).objects).toEqual([expect.objectContaining({ name: 'paged', quality_status: 'error' })]);
      const warnings = await objects('quality_status=warning&connection=paged');
      expect(warnings.objects.map((o: { name: string }) => o.name)).toEqual(['paged/sales.t_001']);
      expect((await objects('quality_status=error&connection=paged')).objects.map((o: { name: string }) => o.name)).toEqual(['paged', 'paged/sales.t_000']);
    });

    it('refuses unknown filter values and bad paging (400)', async () => {
      for (const query of ['kind=nope', 'owner=someone', 'sync_status=synced', 'quality_status=bad', 'page=0', 'limit=abc']) {
        expect((await call(app, { method: 'GET', url: `/api/objects?${query}` })).status, query).toBe(400);
      }
    });
  });
});
