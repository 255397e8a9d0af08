import type { FastifyInstance } from 'fastify';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/server/console.js';
import { parseTokens } from '../../src/server/tokens.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * What the console reads, as any program reads it (on the embedded store; the browser tests use PostgreSQL):
 * the overview, the object list, the profile, a table's effective checks and result history, the job list, and
 * the console's own files with their CSP, outside the token check.
 */
describe('console API and serving', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await STORE_ENGINES.find((e) => e.engine === 'pglite')!.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    await fx.store.insertCheckResults([
      { connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders', checkType: 'monitoring', timeGradient: 'day', checkCategory: 'volume', checkName: 'daily_row_count', checkHash: 1, timePeriod: '2026-11-18T00:00:00.000Z', actualValue: 10, expectedValue: 5, severity: 0, executedAt: '2026-11-18T10:00:00.000Z' },
      { connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders', checkType: 'monitoring', timeGradient: 'day', checkCategory: 'volume', checkName: 'daily_row_count', checkHash: 1, timePeriod: '2026-11-19T00:00:00.000Z', actualValue: 3, expectedValue: 5, severity: 2, executedAt: '2026-11-19T10:00:00.000Z' },
      { connectionName: 'shop_oltp', schemaName: 'public', tableName: 'payments', checkType: 'profiling', timeGradient: 'day', checkCategory: 'volume', checkName: 'profile_row_count', checkHash: 2, timePeriod: '2026-11-19T00:00:00.000Z', severity: null, errorMessage: 'sensor failed', executedAt: '2026-11-19T10:00:00.000Z' },
    ]);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('GET /api/overview: sync from the store, objects by kind and owner, connections with their worst severity, quality counts', async () => {
    const { status, body } = await call(app, { method: 'GET', url: '/api/overview' });
    expect(status).toBe(200);
    expect(body.sync).toMatchObject({ sync: 'Unknown', loop: false, repository: null, last_applied: { applied_by: 'test' }, environment: { loaded: null, applied: null } });
    expect(body.sync.message).toMatch(/runs no reconcile loop/);
    expect(body.objects.by_kind.table).toEqual({ git: 12, api: 0 });
    expect(body.objects.total).toBe(22);
    const shop = body.connections.find((c: { name: string }) => c.name === 'shop_oltp');
    expect(shop).toMatchObject({ sync_status: 'Synced', tables: 6, quality_status: 'error', tables_by_quality: { error: 1, execution_error: 1, not_run: 4 } });
    expect(body.quality.tables_by_quality).toMatchObject({ error: 1, execution_error: 1, not_run: 10 });
    // only the newest run of a check counts: the valid readout of the 18th is superseded
    expect(body.quality.results).toEqual({ valid: 0, warnings: 0, errors: 1, fatals: 0, execution_errors: 1 });
    expect(body.quality.worst_tables.map((t: { table: string; quality_status: string }) => `${t.table}:${t.quality_status}`)).toEqual(['orders:error', 'payments:execution_error']);
    expect(body.jobs).toEqual({ queued: 0, running: 0, active: [] });
  });

  it('GET /api/objects: owner, sync and quality per object; drift after an API write; ?kind filters', async () => {
    const put = await call(app, { method: 'PUT', url: '/api/connections/shop_oltp/schemas/public/tables/orders/labels', payload: ['x'] });
    expect(put.status).toBe(204);
    const { body } = await call(app, { method: 'GET', url: '/api/objects?kind=table' });
    expect(body.objects).toHaveLength(12);
    const orders = body.objects.find((o: { name: string }) => o.name === 'shop_oltp/public.orders');
    expect(orders).toMatchObject({ kind: 'table', connection: 'shop_oltp', schema: 'public', table: 'orders', managed_by: 'git', sync_status: 'Drifted', quality_status: 'error' });
    expect(orders.origin_file).toMatch(/public\.orders\.dqotable\.yaml$/);
    const overview = (await call(app, { method: 'GET', url: '/api/overview' })).body;
    expect(overview.sync.sync).toBe('OutOfSync');
    expect(overview.not_synced).toEqual([expect.objectContaining({ kind: 'table', name: 'shop_oltp/public.orders', status: 'Drifted' })]);
    expect((await call(app, { method: 'GET', url: '/api/objects?kind=nope' })).status).toBe(400);
  });

  it('TABLE/effectivechecks names the origin; TABLE/checkresults gives the history with actual and expected values', async () => {
    const checks = (await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/customers/effectivechecks' })).body;
    const own = checks.find((c: { check_name: string; time_scale: string | null }) => c.check_name === 'daily_row_count' && c.time_scale === 'daily');
    expect(own).toMatchObject({ target: 'table', check_type: 'monitoring', origin: { source: 'table', policy_name: null }, rules: { error: { min_count: 100 } } });
    const fromPolicy = checks.find((c: { origin: { source: string } }) => c.origin.source === 'policy');
    expect(fromPolicy.origin.policy_name).toMatch(/\//);
    expect(typeof fromPolicy.origin.priority).toBe('number');

    const history = (await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/orders/checkresults?results_count=10' })).body;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ check_name: 'daily_row_count', check_type: 'monitoring', time_gradient: 'day', column_name: null });
    expect(history[0].results.map((r: { actual_value: number; expected_value: number; severity: string }) => [r.actual_value, r.expected_value, r.severity])).toEqual([
      [3, 5, 'error'],
      [10, 5, 'valid'],
    ]);
    expect((await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/nope/checkresults' })).status).toBe(404);
  });

  it('GET /api/jobs/jobs lists the newest jobs first; GET /api/environment/profile says who calls and what it may do', async () => {
    await fx.store.jobs.enqueue({ jobType: 'no_such_executor_type', parameters: {}, createdBy: 'alice' });
    const jobs = (await call(app, { method: 'GET', url: '/api/jobs/jobs?limit=5' })).body;
    expect(jobs.jobs[0]).toMatchObject({ jobType: 'no_such_executor_type', status: 'queued', createdBy: 'alice' });
    expect((await call(app, { method: 'GET', url: '/api/jobs/jobs?status=finished' })).body.jobs).toEqual([]);
    const profile = (await call(app, { method: 'GET', url: '/api/environment/profile' })).body;
    expect(profile).toMatchObject({ user: 'anonymous', account_role: 'admin', can_run_checks: true, features: { incidents: true } });
  });

  it('the console at / and its routes, with a CSP that forbids inline script; /api keeps its JSON 404', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dqctl-console-'));
    try {
      await writeFile(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/app.js"></script>');
      await writeFile(join(dir, 'app.js'), 'export {};');
      const served = await serverOn(fx.store, { console: dir, tokens: parseTokens('- {name: v, role: viewer, token: viewer-token-1}', 'test') });
      try {
        for (const url of ['/', '/tables/shop_oltp/public/orders', '/objects?q=x']) {
          const page = await call(served, { method: 'GET', url });
          expect(page.status).toBe(200);
          expect(page.raw).toContain('<title>console</title>');
          expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
        }
        expect(CONSOLE_CSP).toMatch(/script-src 'self'(;|$)/);
        expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
        const asset = await call(served, { method: 'GET', url: '/app.js' });
        expect(asset.status).toBe(200);
        expect(asset.headers['content-type']).toMatch(/javascript/);
        // the files need no token; the data does
        expect((await call(served, { method: 'GET', url: '/api/overview' })).status).toBe(401);
        const missing = await call(served, { method: 'GET', url: '/api/no/such/route', headers: { authorization: 'Bearer viewer-token-1' } });
        expect(missing.status).toBe(404);
        expect(missing.body.code).toBe('NOT_FOUND');
        expect(missing.headers['content-security-policy']).toBeUndefined();
      } finally {
        await served.close();
      }
      // a server whose console is not built says how to build it
      const unbuilt = await serverOn(fx.store, { console: join(dir, 'missing') });
      try {
        const page = await call(unbuilt, { method: 'GET', url: '/' });
        expect(page.status).toBe(503);
        expect(page.raw).toMatch(/npm run build/);
      } finally {
        await unbuilt.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
