import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/openStore.js';
import { parseTokens } from '../../src/server/tokens.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES } from '../helpers/storeEngines.js';
import { createTestDatabase } from '../helpers/testDatabase.js';

const TOKENS = parseTokens('- {name: reader, role: viewer, token: viewer-token-123}\n', 'test');

/** GET /api/healthcheck: for probes, without a token; 200 while the live store answers, 503 when it does not. */
describe('health check', () => {
  it.each(STORE_ENGINES)('answers 200 without a token on a working $engine store; the rest of the API still needs one', async (engine) => {
    const fx = await engine.setup();
    const app = await serverOn(fx.store, { tokens: TOKENS });
    try {
      const health = await call(app, { method: 'GET', url: '/api/healthcheck' });
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok', store: engine.engine });
      expect(health.headers['cache-control']).toBe('no-store');
      expect((await call(app, { method: 'GET', url: '/api/connections' })).status).toBe(401);
      expect((await call(app, { method: 'GET', url: '/api/healthcheck?x=1' })).status).toBe(200);
    } finally {
      await app.close();
      await fx.dispose();
    }
  });

  it('answers 503 with the reason when the PostgreSQL store has gone away, and 200 again once it is back', async () => {
    const database = await createTestDatabase();
    const store = await openStore({ databaseUrl: database.url });
    const app = await serverOn(store, { tokens: TOKENS });
    try {
      expect((await call(app, { method: 'GET', url: '/api/healthcheck' })).status).toBe(200);
      // every session of the store's database is killed, and new ones are refused
      const admin = await createTestDatabase();
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: admin.url });
      await client.connect();
      const name = new URL(database.url).pathname.slice(1);
      await client.query(`alter database "${name}" allow_connections false`);
      await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      const down = await call(app, { method: 'GET', url: '/api/healthcheck' });
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'unavailable', store: 'postgres', reason: expect.any(String) });
      expect(down.body.reason).not.toContain('password');
      await client.query(`alter database "${name}" allow_connections true`);
      await client.end();
      await admin.drop();
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) status = (await call(app, { method: 'GET', url: '/api/healthcheck' })).status;
      expect(status).toBe(200);
    } finally {
      await app.close();
      await store.close().catch(() => {});
      await database.drop();
    }
  });
});
