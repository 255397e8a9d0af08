import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Reconciler } from '../../src/reconcile/reconciler.js';
import { FolderRevisions } from '../../src/reconcile/revisionSource.js';
import { signWebhookBody, verifyWebhookSignature } from '../../src/reconcile/webhookSignature.js';
import { parseTokens } from '../../src/server/tokens.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { exampleCopy, idle, setOrdersPriority, triggersOf, waitFor } from './helpers.js';

describe('webhook signatures (GitHub format)', () => {
  it('accepts sha256=<HMAC of the raw body> only', () => {
    const body = Buffer.from('{"ref":"refs/heads/main"}');
    const good = signWebhookBody('s3cret', body);
    expect(good).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('s3cret', body, good)).toBe(true);
    expect(verifyWebhookSignature('s3cret', body, good.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
    expect(verifyWebhookSignature('other', body, good)).toBe(false);
    expect(verifyWebhookSignature('s3cret', Buffer.from('{"ref":"refs/heads/evil"}'), good)).toBe(false);
    expect(verifyWebhookSignature('s3cret', body, undefined)).toBe(false);
    expect(verifyWebhookSignature('s3cret', body, [good, good])).toBe(false);
    expect(verifyWebhookSignature('s3cret', body, good.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifyWebhookSignature('s3cret', body, good.slice(0, -2))).toBe(false);
  });
});

describe('GET /api/gitops/status, plan, history; POST suspend, resume (a folder loop, PGlite)', () => {
  const engine = STORE_ENGINES.find((e) => e.engine === 'pglite')!;
  let fx: StoreFixture;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let loop: Reconciler;
  let app: FastifyInstance;

  beforeAll(async () => {
    fx = await engine.setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
    repo = await exampleCopy();
  });
  afterEach(async () => {
    await app?.close();
    await loop?.stop();
    await repo.cleanup();
  });

  it('without --auto-apply: status OutOfSync with Missing objects, the pending plan, then history after a manual apply', async () => {
    loop = new Reconciler({ store: fx.store, source: new FolderRevisions(repo.dir), intervalMs: 60_000 });
    await loop.start();
    app = await serverOn(fx.store, { reconciler: loop });
    await idle(loop);

    const status = await call(app, { method: 'GET', url: '/api/gitops/status' });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      sync: 'OutOfSync',
      health: 'Healthy',
      repository: { type: 'folder', location: repo.dir, reachable: null },
      settings: { auto_apply: false, self_heal: false, interval_ms: 60_000 },
      replica: { leader: true },
      last_applied: null,
      lock: null,
      last_pass: { result: 'out_of_sync', triggers: ['start'] },
    });
    expect(status.body.objects.every((o: { status: string }) => o.status === 'Missing')).toBe(true);
    const all = await call(app, { method: 'GET', url: '/api/gitops/status?all=true' });
    expect(all.body.objects.length).toBe(status.body.objects.length);

    const plan = await call(app, { method: 'GET', url: '/api/gitops/plan' });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({ format_version: '1.0', summary: { add: status.body.counts.Missing } });

    expect((await call(app, { method: 'GET', url: '/api/gitops/history' })).body).toEqual([]);
    const { applyPlan } = await import('../../src/apply/applyPlan.js');
    const { planRepository } = await import('../../src/app/planRepository.js');
    const { plan: manual } = await planRepository({ repository: repo.dir, store: fx.store });
    await applyPlan(manual, fx.store, { holder: 'test', appliedBy: 'alice', lockTimeoutMs: 5_000 });
    const history = await call(app, { method: 'GET', url: '/api/gitops/history?limit=5' });
    expect(history.body).toEqual([
      expect.objectContaining({ id: 1, applied_by: 'alice', store_revision: expect.any(Number), summary: expect.objectContaining({ add: manual.summary.add }) }),
    ]);

    await loop.trigger('timer');
    const synced = await call(app, { method: 'GET', url: '/api/gitops/status' });
    expect(synced.body).toMatchObject({ sync: 'Synced', objects: [], last_applied: { applied_by: 'alice' } });
    expect(synced.body.counts.Synced).toBe(manual.summary.add);
  });

  it('suspend and resume (operator), the webhook off without a secret, 404 without a loop', async () => {
    const triggers = triggersOf();
    loop = new Reconciler({ store: fx.store, source: new FolderRevisions(repo.dir), autoApply: true, intervalMs: 60_000, onTrigger: triggers.onTrigger });
    await loop.start();
    const tokens = parseTokens('- {name: reader, role: viewer, token: viewer-token-123}\n- {name: ops, role: operator, token: operator-token-456}\n', 'test');
    app = await serverOn(fx.store, { reconciler: loop, tokens });
    await idle(loop);
    const as = (token: string) => ({ authorization: `Bearer ${token}` });

    expect((await call(app, { method: 'POST', url: '/api/gitops/suspend', headers: as('viewer-token-123') })).status).toBe(403);
    const suspended = await call(app, { method: 'POST', url: '/api/gitops/suspend', headers: as('operator-token-456') });
    expect(suspended.body).toMatchObject({ suspended: { by: 'ops', since: expect.any(String) }, leader: true });
    const watched = triggers.next('watch');
    await setOrdersPriority(repo.dir, 4);
    await (await watched).covered; // the edit was seen, and the pass it asked for skipped
    const status = await call(app, { method: 'GET', url: '/api/gitops/status', headers: as('viewer-token-123') });
    expect(status.body).toMatchObject({ health: 'Suspended', suspended: { by: 'ops' } });
    expect((await call(app, { method: 'POST', url: '/api/gitops/resume', headers: as('operator-token-456') })).status).toBe(200);
    await waitFor(async () => (await call(app, { method: 'GET', url: '/api/gitops/status', headers: as('viewer-token-123') })).body.last_pass?.triggers?.includes('resume'), 10_000, 'the pass after resume');

    // no secret: the webhook is not open to the world, and says it is off to token holders
    const body = '{}';
    const noToken = await call(app, { method: 'POST', url: '/api/gitops/webhook', payload: body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhookBody('x', body) } });
    expect(noToken.status).toBe(401);
    const off = await call(app, { method: 'POST', url: '/api/gitops/webhook', payload: body, headers: { ...as('viewer-token-123'), 'content-type': 'application/json' } });
    expect(off.status).toBe(404);
    expect(off.body.message).toContain('--webhook-secret');

    await app.close();
    app = await serverOn(fx.store);
    const none = await call(app, { method: 'GET', url: '/api/gitops/status' });
    expect(none.status).toBe(404);
    expect(none.body.message).toContain('--repo');
    expect((await call(app, { method: 'GET', url: '/api/gitops/history' })).status).toBe(200);
  });
});
