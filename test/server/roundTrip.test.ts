import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { EXAMPLE } from '../helpers/cli.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** The API and git share one store: API objects are unmanaged, API edits of git objects are drift. */
describe.each(STORE_ENGINES)('API writes and the plan, on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('create through the API → plan shows it as unmanaged; change a git object → drift; apply restores it', async () => {
    const created = await call(app, { method: 'POST', url: '/api/rules/ui%2Fmade_here', payload: { type: 'python', mode: 'current_value' } });
    expect(created.status).toBe(201);
    const changed = await call(app, { method: 'PUT', url: '/api/rules/volume%2Forder_volume_band', payload: { mode: 'previous_readouts' } });
    expect(changed.status).toBe(204);

    const { plan } = await planRepository({ repository: EXAMPLE, store: fx.store });
    expect(plan.kept).toEqual([expect.objectContaining({ key: { kind: 'rule', name: 'ui/made_here' }, reason: 'unmanaged' })]);
    expect(plan.drift).toEqual([expect.objectContaining({ key: { kind: 'rule', name: 'volume/order_volume_band' }, restored: true })]);
    expect(plan.changes).toEqual([expect.objectContaining({ action: 'update', reason: 'restore_drift' })]);

    await applyPlan(plan, fx.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 5000 });
    const restored = await call(app, { method: 'GET', url: '/api/rules/volume%2Forder_volume_band' });
    expect(restored.body.mode).toBe('current_value');
    const again = (await planRepository({ repository: EXAMPLE, store: fx.store })).plan;
    expect(again.changes).toEqual([]);
    expect(again.drift).toEqual([]);
  });

  it('with --read-only-managed, writes to git-managed objects are refused naming their file', async () => {
    const strict = await serverOn(fx.store, { readOnlyManaged: true });
    const refused = await call(strict, { method: 'PUT', url: '/api/rules/volume%2Forder_volume_band', payload: { mode: 'previous_readouts' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'READ_ONLY_MANAGED' });
    expect(refused.body.message).toContain('rules/volume/order_volume_band.dqorule.yaml');
    const listed = await call(strict, { method: 'GET', url: '/api/rules/volume%2Forder_volume_band' });
    expect(listed.body.can_edit).toBe(false);
    await strict.close();
  });

  it('concurrent updates of one object lose nothing: every write lands whole, in some order', async () => {
    await call(app, { method: 'POST', url: '/api/rules/race%2Frule', payload: { type: 'python', mode: 'current_value' } });
    const writes = Array.from({ length: 12 }, (_, i) =>
      call(app, { method: 'PUT', url: '/api/rules/race%2Frule', payload: { parameters: { [`writer_${i}`]: String(i) } } }),
    );
    const statuses = (await Promise.all(writes)).map((w) => w.status);
    expect(statuses.every((s) => s === 204)).toBe(true);
    const final = await call(app, { method: 'GET', url: '/api/rules/race%2Frule' });
    // each PUT replaces parameters whole: the final object is exactly one writer's version, never a mix
    expect(Object.keys(final.body.parameters)).toHaveLength(1);
    expect(final.body.type).toBe('python');
  });
});
