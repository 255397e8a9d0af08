import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GitRevisions } from '../../src/reconcile/gitRevisions.js';
import { Reconciler, type ReconcilerOptions } from '../../src/reconcile/reconciler.js';
import { signWebhookBody } from '../../src/reconcile/webhookSignature.js';
import { openStore } from '../../src/store/openStore.js';
import { parseTokens } from '../../src/server/tokens.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { idle, livePriority, setOrdersPriority, waitFor } from './helpers.js';

const SECRET = 'webhook-secret-0123';

/**
 * `serve --git`: a bare remote in a temp folder, a working copy that pushes to it, and the loop polling the
 * remote through its own clone (file:// URL). PostgreSQL only: the loop's engine behaviour is covered on both
 * engines by folderLoop.test.ts.
 */
describe('serve --git (the reconcile loop over a git remote)', () => {
  const engine = STORE_ENGINES.find((e) => e.engine === 'postgres')!;
  let fx: StoreFixture;
  let r: GitRepo;
  let remote: string;
  let cacheParent: string;
  let reconciler: Reconciler | undefined;
  let app: FastifyInstance | undefined;

  const push = async (priority: number): Promise<string> => {
    await setOrdersPriority(r.repo, priority);
    const commit = await r.commitAll(`priority ${priority}`);
    await git(r.repo, 'push', '-q', 'origin', 'main');
    return commit;
  };
  const startLoop = async (options: Partial<ReconcilerOptions> & { url?: string; path?: string } = {}): Promise<Reconciler> => {
    const { url, path, ...rest } = options;
    const source = new GitRevisions({ url: url ?? `file://${remote}`, branch: 'main', path, cacheDir: join(cacheParent, 'clone') });
    reconciler = new Reconciler({ store: fx.store, source, autoApply: true, intervalMs: 60_000, webhookSecret: SECRET, ...rest });
    await reconciler.start();
    return reconciler;
  };

  beforeAll(async () => {
    fx = await engine.setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
    r = await gitRepo();
    remote = join(r.dir, 'remote.git');
    await git(r.dir, 'clone', '-q', '--bare', r.repo, remote);
    await git(r.repo, 'remote', 'add', 'origin', remote);
    cacheParent = await mkdtemp(join(tmpdir(), 'dqctl-gitcache-'));
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await reconciler?.stop();
    reconciler = undefined;
    await r.cleanup();
    await rm(cacheParent, { recursive: true, force: true });
  });

  it('clones at start, then the poll on the interval picks up a push', async () => {
    const loop = await startLoop({ intervalMs: 400 });
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    const commit = await push(2);
    await waitFor(async () => (await livePriority(fx.store)) === 2, 10_000, 'the pushed change');
    await idle(loop);
    const status = await loop.status();
    expect(status).toMatchObject({
      sync: 'Synced',
      health: 'Healthy',
      repository: { type: 'git', location: `file://${remote}`, branch: 'main', revision: commit, reachable: true, fetch_error: null },
      last_applied: { revision: commit },
    });
    const [history] = await fx.store.history(1);
    expect(history.repository).toBe(`file://${remote}#main`);
  });

  it('a webhook with a valid signature triggers a fetch and a pass at once; bad or missing signatures are 401, a huge body 413', async () => {
    const loop = await startLoop();
    const tokens = parseTokens('- {name: reader, role: viewer, token: viewer-token-123}\n- {name: ops, role: operator, token: operator-token-456}\n', 'test');
    app = await serverOn(fx.store, { reconciler: loop, tokens });
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(loop);
    const commit = await push(3);

    const body = JSON.stringify({ ref: 'refs/heads/main', after: commit });
    const webhook = (headers: Record<string, string>, payload: string = body) =>
      call(app!, { method: 'POST', url: '/api/gitops/webhook', payload, headers: { 'content-type': 'application/json', ...headers } });
    expect((await webhook({})).status).toBe(401);
    expect((await webhook({ 'x-hub-signature-256': signWebhookBody('wrong-secret', body) })).status).toBe(401);
    expect((await webhook({ 'x-hub-signature-256': signWebhookBody(SECRET, body + ' ') })).status).toBe(401);
    expect((await webhook({ 'x-hub-signature-256': 'sha256=zz' })).status).toBe(401);
    const huge = 'x'.repeat(1024 * 1024 + 10);
    const tooLarge = await webhook({ 'x-hub-signature-256': signWebhookBody(SECRET, huge) }, huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(await livePriority(fx.store)).toBe(1); // none of those triggered anything

    const ping = await webhook({ 'x-hub-signature-256': signWebhookBody(SECRET, body), 'x-github-event': 'ping' });
    expect(ping.status).toBe(200);
    const sent = Date.now();
    const accepted = await webhook({ 'x-hub-signature-256': signWebhookBody(SECRET, body), 'x-github-event': 'push' });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ accepted: true, triggered: true });
    await waitFor(async () => (await livePriority(fx.store)) === 3, 10_000, 'the pushed change');
    expect(Date.now() - sent).toBeLessThan(10_000); // long before the 60 s poll
    await idle(loop);

    // the other gitops routes keep needing a token, with their roles
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await call(app, { method: 'GET', url: '/api/gitops/status' })).status).toBe(401);
    const status = await call(app, { method: 'GET', url: '/api/gitops/status', headers: auth('viewer-token-123') });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ sync: 'Synced', repository: { revision: commit }, last_pass: { triggers: ['webhook'], result: 'applied' } });
    expect((await call(app, { method: 'POST', url: '/api/gitops/suspend', headers: auth('viewer-token-123') })).status).toBe(403);
    expect((await call(app, { method: 'POST', url: '/api/gitops/suspend', headers: auth('operator-token-456') })).body).toMatchObject({ suspended: { by: 'ops' } });
    expect((await call(app, { method: 'POST', url: '/api/gitops/resume', headers: auth('operator-token-456') })).status).toBe(200);
  });

  it('a webhook that reaches a follower replica is handed to the leader, which applies the push at once', async () => {
    const leader = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(leader);
    // a second replica: its own store connection and clone, the same remote; it follows
    const otherStore = await openStore(fx.options);
    const follower = new Reconciler({
      store: otherStore,
      source: new GitRevisions({ url: `file://${remote}`, branch: 'main', cacheDir: join(cacheParent, 'follower-clone') }),
      autoApply: true,
      intervalMs: 60_000,
      webhookSecret: SECRET,
    });
    await follower.start();
    const followerApp = await serverOn(otherStore, { reconciler: follower });
    try {
      await idle(follower);
      expect(follower.isLeader).toBe(false);
      const commit = await push(4);
      const body = JSON.stringify({ ref: 'refs/heads/main', after: commit });
      const sent = Date.now();
      const accepted = await call(followerApp, {
        method: 'POST',
        url: '/api/gitops/webhook',
        payload: body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhookBody(SECRET, body), 'x-github-event': 'push' },
      });
      expect(accepted.status).toBe(202);
      await waitFor(async () => (await livePriority(fx.store)) === 4, 10_000, "the leader's apply of the push");
      expect(Date.now() - sent).toBeLessThan(10_000); // long before the leader's 60 s poll
      await idle(leader);
      const status = await leader.status();
      expect(status).toMatchObject({ sync: 'Synced', repository: { revision: commit }, last_pass: { result: 'applied' } });
      expect(status.last_pass!.triggers).toEqual([`webhook via ${follower.replicaId}`]);
    } finally {
      await followerApp.close();
      await follower.stop();
      await otherStore.close();
    }
  });

  it('an unreachable remote: the status says so, nothing changes, and the loop recovers when it is back', async () => {
    const loop = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(loop);
    const objects = (await fx.store.listSummaries()).length;

    await rename(remote, `${remote}.away`);
    await loop.trigger('timer');
    let status = await loop.status();
    expect(status).toMatchObject({ health: 'Degraded', sync: 'Unknown', repository: { reachable: false }, last_pass: { result: 'unreachable' } });
    expect(status.repository!.fetch_error).toContain('cannot fetch branch main');
    expect(status.message).toContain('the git remote is unreachable');
    expect((await fx.store.listSummaries()).length).toBe(objects);

    await rename(`${remote}.away`, remote);
    await push(4);
    await loop.trigger('timer');
    await waitFor(async () => (await livePriority(fx.store)) === 4, 10_000, 'the change after the remote came back');
    await idle(loop);
    status = await loop.status();
    expect(status).toMatchObject({ health: 'Healthy', sync: 'Synced', repository: { reachable: true, fetch_error: null } });
  });

  it('never shows credentials of the URL, and reads a DQOps home under --path', async () => {
    const secretUrl = 'https://deploy:ghp_TOPSECRET@127.0.0.1:1/org/repo.git';
    const loop = await startLoop({ url: secretUrl });
    await idle(loop);
    const status = await loop.status();
    expect(status.repository!.reachable).toBe(false);
    expect(JSON.stringify(status)).not.toContain('TOPSECRET');
    expect(status.repository!.location).toBe('https://127.0.0.1:1/org/repo.git');
    await loop.stop();

    // the same repository moved under dq/ in a second commit
    await rm(join(cacheParent, 'clone'), { recursive: true, force: true });
    const { mkdir, cp } = await import('node:fs/promises');
    await mkdir(join(r.repo, 'dq'));
    for (const entry of ['sources', 'rules', 'patterns', 'dqctl.yaml']) await cp(join(r.repo, entry), join(r.repo, 'dq', entry), { recursive: true });
    await setOrdersPriority(join(r.repo, 'dq'), 5);
    await r.commitAll('a copy under dq/');
    await git(r.repo, 'push', '-q', 'origin', 'main');
    const sub = await startLoop({ path: 'dq' });
    await waitFor(async () => (await livePriority(fx.store)) === 5, 20_000, 'the sub-folder applied');
    await idle(sub);
    expect(await sub.status()).toMatchObject({ repository: { path: 'dq' }, sync: 'Synced' });
  });
});
