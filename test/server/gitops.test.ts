import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toGitopsRequest, type GitopsRequest } from '../../src/app/gitopsRequest.js';
import { planRepository } from '../../src/app/planRepository.js';
import { desiredFingerprint, loadRepository } from '../../src/manifest/loadRepository.js';
import { toPlanDocument } from '../../src/plan/planDocument.js';
import { parseTokens } from '../../src/server/tokens.js';
import { EXAMPLE } from '../helpers/cli.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** POST /api/gitops/plan and /apply: the desired state sent by `plan|apply --server`, checked, planned, applied. */
describe.each(STORE_ENGINES)('gitops plan/apply routes on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let request: GitopsRequest;

  beforeAll(async () => {
    fx = await setup();
    app = await serverOn(fx.store);
    request = toGitopsRequest(await loadRepository(EXAMPLE), {});
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });
  beforeEach(() => fx.reset());

  const post = (route: 'plan' | 'apply', payload: unknown, headers: Record<string, string> = {}) =>
    call(app, { method: 'POST', url: `/api/gitops/${route}`, payload: payload as object, headers });

  it('plans exactly what a local plan shows (same document, same fingerprint)', async () => {
    const remote = await post('plan', request);
    expect(remote.status).toBe(200);
    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    const local = toPlanDocument(plan);
    expect({ ...remote.body, created_at: 'x' }).toEqual({ ...local, created_at: 'x' });
    expect(remote.body.summary).toMatchObject({ add: 22, change: 0, destroy: 0 });
  });

  it('applies, answering {plan, applied} like apply --format json; then the plan is empty and apply a no-op', async () => {
    const applied = await post('apply', { ...request, actor: 'alice@laptop' });
    expect(applied.status).toBe(200);
    expect(applied.body.plan.summary).toMatchObject({ add: 22 });
    expect(applied.body.applied).toMatchObject({ applied: { add: 22, change: 0, destroy: 0 }, storeRevision: 1 });
    expect(applied.body.applied.record).toMatchObject({ appliedBy: 'api:anonymous for alice@laptop', repository: request.repository.description });
    const again = await post('plan', request);
    expect(again.body.changes).toEqual([]);
    const noop = await post('apply', request);
    expect(noop.body.applied).toBeNull();
    expect((await fx.store.listSummaries()).every((o) => o.managedBy === 'git' && o.owner === 'shop')).toBe(true);
  });

  it('accepts a gzip body, and refuses broken gzip and unknown encodings', async () => {
    const zipped = await call(app, {
      method: 'POST',
      url: '/api/gitops/plan',
      payload: gzipSync(JSON.stringify(request)),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(zipped.status).toBe(200);
    expect(zipped.body.summary.add).toBe(22);
    const broken = await call(app, {
      method: 'POST',
      url: '/api/gitops/plan',
      payload: Buffer.from('not gzip at all'),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('BODY_INVALID');
    const brotli = await call(app, {
      method: 'POST',
      url: '/api/gitops/plan',
      payload: JSON.stringify(request),
      headers: { 'content-type': 'application/json', 'content-encoding': 'br' },
    });
    expect(brotli.status).toBe(400);
  });

  it('refuses with 409 STALE_PLAN an apply whose expected fingerprint no longer matches, and writes nothing', async () => {
    const planned = await post('plan', request);
    await post('apply', request);
    const stale = await post('apply', { ...request, expected_fingerprint: planned.body.fingerprint });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('STALE_PLAN');
    expect(stale.body.message).toContain('revision 0 then, 1 now');
  });

  it('trusts nothing: a wrong hash, an invalid spec, a name its file does not give, a wrong fingerprint are 400 with violations', async () => {
    const table = request.objects.findIndex((o) => o.kind === 'table');
    const tampered = structuredClone(request);
    tampered.objects[table].spec = { ...tampered.objects[table].spec, stage: 'forged' };
    const wrongHash = await post('plan', tampered);
    expect(wrongHash.status).toBe(400);
    expect(wrongHash.body.code).toBe('BODY_INVALID');
    expect(wrongHash.body.details.violations[0]).toMatchObject({ path: `/objects/${table}/hash` });

    const invalid = structuredClone(request);
    invalid.objects[table].spec = { ...invalid.objects[table].spec, not_a_key: 1 };
    const schema = await post('plan', invalid);
    expect(schema.status).toBe(400);
    expect(schema.body.details.violations[0].path).toBe(`/objects/${table}/spec/not_a_key`);
    expect(schema.body.details.violations[0].message).toContain('not_a_key');

    const renamed = structuredClone(request);
    renamed.objects[table].name = 'shop_oltp/public.someone_elses';
    expect((await post('plan', renamed)).body.details.violations[0].path).toBe(`/objects/${table}/origin/file`);

    const wrongFingerprint = { ...request, fingerprint: '0'.repeat(64) };
    const fp = await post('plan', wrongFingerprint);
    expect(fp.status).toBe(400);
    expect(fp.body.details.violations).toEqual([{ path: '/fingerprint', message: expect.stringContaining('fingerprint') }]);

    const attachment = structuredClone(request);
    attachment.objects[table].attachments = { python_module: 'import os' };
    expect((await post('plan', attachment)).body.details.violations[0].path).toBe(`/objects/${table}/attachments`);

    expect((await post('plan', { ...request, objects: 'no' })).status).toBe(400);
    expect(await fx.store.revision()).toBe(0);
  });

  it('keeps the repository settings: a mass delete is refused (409) unless allow_mass_delete; protected objects stay', async () => {
    await post('apply', request);
    const loaded = await loadRepository(EXAMPLE);
    const emptied = toGitopsRequest({ ...loaded, objects: [], fingerprint: desiredFingerprint([], loaded.settings) }, {});
    const refused = await post('apply', emptied);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('MASS_DELETE_REFUSED');
    const plan = await post('plan', emptied);
    expect(plan.body.findings[0]).toMatchObject({ code: 'MASS_DELETE', severity: 'error' });
    const allowed = await post('apply', { ...emptied, options: { allow_mass_delete: true } });
    expect(allowed.status).toBe(200);
    expect((await fx.store.listSummaries()).map((o) => `${o.kind}:${o.name}`)).toEqual(['source:shop_oltp']);
  });
});

describe('gitops routes: roles and limits', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let request: GitopsRequest;
  const tokens = parseTokens('- {name: reader, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n', 'test');

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    app = await serverOn(fx.store, { tokens, gitopsBodyLimit: 64 * 1024 });
    request = toGitopsRequest(await loadRepository(EXAMPLE), {});
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  const post = (route: string, token: string | null, payload: Buffer | string, encoding?: string) =>
    call(app, {
      method: 'POST',
      url: `/api/gitops/${route}`,
      payload,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...(encoding ? { 'content-encoding': encoding } : {}) },
    });

  it('plan needs a viewer, apply an operator', async () => {
    const body = gzipSync(JSON.stringify(request));
    expect((await post('plan', null, body, 'gzip')).status).toBe(401);
    expect((await post('plan', 'viewer-token', body, 'gzip')).status).toBe(200);
    const forbidden = await post('apply', 'viewer-token', body, 'gzip');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    const applied = await post('apply', 'operator-token', body, 'gzip');
    expect(applied.status).toBe(200);
    expect(applied.body.applied.record.appliedBy).toBe('api:ci');
  });

  it('has its own body limit, counted after decompression: a gzip bomb is cut off with 413', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const answer = await post('plan', 'viewer-token', bomb, 'gzip');
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('PAYLOAD_TOO_LARGE');
    const plain = await post('plan', 'viewer-token', ' '.repeat(65 * 1024) + '{}');
    expect(plain.status).toBe(413);
  });
});
