import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Reconciler, type ReconcilerOptions } from '../../src/reconcile/reconciler.js';
import { FolderRevisions } from '../../src/reconcile/revisionSource.js';
import { statusFromStore } from '../../src/reconcile/storeStatus.js';
import { addEnvironments, replaceLine } from '../helpers/environments.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { exampleCopy, idle, ORDERS, waitFor } from './helpers.js';

/**
 * `serve --repo DIR --env NAME`: every pass loads the folder with that environment (a changed variable value
 * is applied like any edit), and a loop for another environment than the store's refuses to apply unless
 * --switch-env.
 */
describe.each(STORE_ENGINES)('$engine: the reconcile loop with --env', ({ setup }) => {
  let fx: StoreFixture;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let loops: Reconciler[] = [];

  const startLoop = async (options: Partial<ReconcilerOptions>): Promise<Reconciler> => {
    const loop = new Reconciler({ store: fx.store, source: new FolderRevisions(repo.dir), autoApply: true, intervalMs: 60_000, settleMs: 200, ...options });
    loops.push(loop);
    await loop.start();
    return loop;
  };
  const errorMinCount = async () => {
    const [orders] = await fx.store.getObjects([ORDERS]);
    return (orders?.spec as any)?.monitoring_checks?.daily?.volume?.daily_row_count?.error?.min_count;
  };

  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
    repo = await exampleCopy();
    await addEnvironments(repo.dir);
  });
  afterEach(async () => {
    for (const loop of loops) await loop.stop();
    loops = [];
    await repo.cleanup();
  });

  it('applies with its environment on every pass; a loop for another environment is refused, then allowed with switchEnvironment', async () => {
    const prod = await startLoop({ environment: 'prod' });
    await waitFor(async () => (await errorMinCount()) === 5000, 20_000, 'the first apply with prod');
    await idle(prod);
    expect((await prod.status()).sync).toBe('Synced');
    expect((await prod.status()).environment).toEqual({ loaded: 'prod', applied: 'prod' });
    expect(await fx.store.appliedEnvironment('shop')).toMatchObject({ environment: 'prod' });
    // dqctl status --repo DIR --env prod compares with prod's values
    expect((await statusFromStore(fx.store, { repository: repo.dir, environment: 'prod' })).sync).toBe('Synced');
    const devStatus = await statusFromStore(fx.store, { repository: repo.dir, environment: 'dev' });
    expect([devStatus.sync, devStatus.environment]).toEqual(['OutOfSync', { loaded: 'dev', applied: 'prod' }]);

    // a change made only in dqctl.yaml reaches the store on the next pass
    await replaceLine(repo.dir, 'dqctl.yaml', '        orders_min: 5000', '        orders_min: 6000');
    await waitFor(async () => (await errorMinCount()) === 6000, 10_000, 'the new value of orders_min');
    await prod.stop();

    const dev = await startLoop({ environment: 'dev' });
    await idle(dev, 20_000);
    const refused = await dev.status();
    expect(refused.environment).toEqual({ loaded: 'dev', applied: 'prod' });
    expect(refused.last_pass).toMatchObject({ result: 'refused' });
    expect((refused.last_pass as { error: string }).error).toContain(
      'the live store was applied with the environment prod (namespace shop); this plan is for the environment dev',
    );
    expect(await errorMinCount()).toBe(6000);
    await dev.stop();

    const switching = await startLoop({ environment: 'dev', switchEnvironment: true });
    await waitFor(async () => (await errorMinCount()) === 10, 20_000, 'the apply with dev');
    await idle(switching);
    expect(await fx.store.appliedEnvironment('shop')).toMatchObject({ environment: 'dev' });
  });
});
