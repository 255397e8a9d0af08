import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toGitopsRequest, type GitopsRequest } from '../../src/app/gitopsRequest.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { EXAMPLE } from '../helpers/cli.js';
import { addEnvironments } from '../helpers/environments.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * `plan|apply --server --env`: the client loads with its environment and says which one; the server plans
 * against its store's environment, records it with the apply, and refuses another one (409) unless switch_env.
 */
describe.each(STORE_ENGINES)('gitops plan/apply with environments on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let dir: string;
  let prod: GitopsRequest;
  let dev: GitopsRequest;

  beforeAll(async () => {
    fx = await setup();
    app = await serverOn(fx.store);
    dir = await mkdtemp(join(tmpdir(), 'dqctl-gitops-envs-'));
    await cp(EXAMPLE, dir, { recursive: true });
    await addEnvironments(dir);
    prod = toGitopsRequest(await loadRepository(dir, { environment: 'prod' }), {});
    dev = toGitopsRequest(await loadRepository(dir, { environment: 'dev' }), {});
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => fx.reset());

  const post = (route: 'plan' | 'apply', payload: unknown) => call(app, { method: 'POST', url: `/api/gitops/${route}`, payload: payload as object });

  it('records the environment; another one is planned with the switch said, refused on apply, applied with switch_env', async () => {
    expect(prod.environment).toBe('prod');
    const applied = await post('apply', prod);
    expect(applied.status).toBe(200);
    expect(applied.body.applied.record).toMatchObject({ environment: 'prod' });

    const plan = await post('plan', dev);
    expect(plan.status).toBe(200);
    expect(plan.body.environment).toEqual({ name: 'dev', live: 'prod', switching: true });
    expect(plan.body.findings.map((f: { code: string }) => f.code)).toContain('ENVIRONMENT_SWITCH');

    const refused = await post('apply', dev);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('ENVIRONMENT_SWITCH_REFUSED');
    expect(await fx.store.appliedEnvironment('shop')).toMatchObject({ environment: 'prod' });

    const switched = await post('apply', { ...dev, options: { switch_env: true } });
    expect(switched.status).toBe(200);
    expect(switched.body.applied.applied).toEqual({ add: 0, change: 2, destroy: 0 });
    expect(await fx.store.appliedEnvironment('shop')).toMatchObject({ environment: 'dev' });
  });

  it('refuses a request whose environment does not match its fingerprint', async () => {
    const forged = await post('plan', { ...prod, environment: 'dev' });
    expect(forged.status).toBe(400);
    expect(JSON.stringify(forged.body)).toContain('the fingerprint does not match');
  });
});
