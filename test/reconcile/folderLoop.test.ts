import { rm, writeFile, cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { Reconciler, type ReconcilerOptions } from '../../src/reconcile/reconciler.js';
import { FolderRevisions } from '../../src/reconcile/revisionSource.js';
import { EXAMPLE } from '../helpers/cli.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { exampleCopy, gate, idle, livePriority, ORDERS, ORDERS_FILE, setOrdersPriority, triggersOf, waitFor } from './helpers.js';

/**
 * The loop over a real folder with a real watcher (chokidar), on both store engines: a saved edit reaches the
 * live store within about a second; nothing is ever applied from a broken or emptied folder.
 */
describe.each(STORE_ENGINES)('$engine: serve --repo (the reconcile loop over a watched folder)', ({ setup }) => {
  let fx: StoreFixture;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let reconciler: Reconciler | undefined;

  const startLoop = async (options: Partial<ReconcilerOptions> = {}): Promise<Reconciler> => {
    reconciler = new Reconciler({ store: fx.store, source: new FolderRevisions(repo.dir), autoApply: true, intervalMs: 60_000, settleMs: 200, ...options });
    await reconciler.start();
    return reconciler;
  };
  const objectCount = async () => (await fx.store.listSummaries()).length;

  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
    repo = await exampleCopy();
  });
  afterEach(async () => {
    await reconciler?.stop();
    reconciler = undefined;
    await repo.cleanup();
  });

  it('applies the folder at start, then every saved edit within about a second', async () => {
    const loop = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(loop);
    const status = await loop.status();
    expect(status).toMatchObject({ sync: 'Synced', health: 'Healthy', replica: { leader: true }, repository: { type: 'folder', location: repo.dir } });
    expect(status.counts.Synced).toBe(await objectCount());
    expect(status.last_applied).toMatchObject({ applied_by: expect.any(String) });

    // about a second from the save (200 ms debounce + one pass); the budget here leaves room for a busy machine,
    // the figures are in BENCHMARKS.md (npm run bench:reconcile)
    for (const priority of [2, 3, 4]) {
      await setOrdersPriority(repo.dir, priority);
      await waitFor(async () => (await livePriority(fx.store)) === priority, 3_000, `priority ${priority} in the live store`);
    }
    await idle(loop);
    const after = await loop.status();
    expect(after).toMatchObject({ sync: 'Synced', health: 'Healthy', last_pass: { result: 'applied', triggers: ['watch'], applied: { add: 0, change: 1, destroy: 0 } } });
  });

  it('an edit during a pass is picked up by the next pass; triggers during the pass fold into exactly one more', async () => {
    const triggers = triggersOf();
    let loaded: (() => void) | undefined;
    const loop = await startLoop({ onTrigger: triggers.onTrigger, onLoaded: () => loaded?.() });
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(loop);
    const passesBefore = (await loop.status()).passes;

    // Hold the store lock: the pass started by the next edit cannot finish until the lock is released.
    const release = gate();
    const holding = gate();
    const held = fx.store.withLock({ holder: 'test', operation: 'hold', timeoutMs: 5_000 }, async () => {
      holding.open();
      await release.promise;
    });
    await holding.promise;
    const read = new Promise<void>((resolve) => (loaded = resolve));
    let watched = triggers.next('watch');
    await setOrdersPriority(repo.dir, 7);
    await watched; // the watch fired: a pass runs
    await read; // the loop's event: that pass has read the files, so the second edit falls after it
    watched = triggers.next('watch');
    await setOrdersPriority(repo.dir, 8); // edited while that pass runs
    const extra = Array.from({ length: 20 }, () => loop.trigger('test'));
    await watched; // the second watch event fired too
    release.open();
    await held;
    await Promise.all(extra);
    await waitFor(async () => (await livePriority(fx.store)) === 8, 10_000, 'the second edit in the live store');
    await idle(loop);
    const status = await loop.status();
    expect(status.passes - passesBefore).toBe(2);
    expect(status.last_pass).toMatchObject({ result: 'applied' });
    expect(status.last_pass!.triggers).toEqual(expect.arrayContaining(['watch', 'test']));
  });

  it('a folder emptied of every file is refused: Degraded, nothing deleted; putting the files back heals it', async () => {
    const loop = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    const before = await objectCount();

    // most files gone: the plan's mass-delete guard refuses it
    await rm(join(repo.dir, 'sources'), { recursive: true, force: true });
    await waitFor(async () => (await loop.status()).health === 'Degraded', 5_000, 'Degraded');
    let status = await loop.status();
    expect(status.last_pass).toMatchObject({ result: 'refused' });
    expect(status.message).toMatch(/refused, nothing was applied: this plan deletes \d+ of the 22 objects/);
    expect(status.sync).toBe('OutOfSync');
    expect(status.counts.OutOfSync).toBeGreaterThan(10);
    expect(await objectCount()).toBe(before);

    // every file gone, dqctl.yaml too (so not even the namespace is the store's): refused as well
    await Promise.all(['rules', 'patterns', 'dqctl.yaml'].map((d) => rm(join(repo.dir, d), { recursive: true, force: true })));
    await waitFor(async () => ((await loop.status()).message ?? '').includes('holds no objects'), 5_000, 'the empty revision refused');
    status = await loop.status();
    expect(status).toMatchObject({ health: 'Degraded', sync: 'Unknown', last_pass: { result: 'refused' } });
    expect(await objectCount()).toBe(before);

    await cp(EXAMPLE, repo.dir, { recursive: true });
    await waitFor(async () => (await loop.status()).health === 'Healthy', 5_000, 'Healthy again');
    await idle(loop);
    expect(await loop.status()).toMatchObject({ sync: 'Synced', message: null });
    expect(await objectCount()).toBe(before);
  });

  it('a revision with invalid YAML is not applied: the last good state stays, Degraded with the diagnostics', async () => {
    const loop = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await setOrdersPriority(repo.dir, 5);
    await waitFor(async () => (await livePriority(fx.store)) === 5, 5_000, 'priority 5');

    // a valid edit of one file and a broken second file in the same revision: neither is applied
    const customers = join(repo.dir, 'sources/shop_oltp/public.customers.dqotable.yaml');
    await writeFile(customers, 'apiVersion: dqo/v1\nkind: table\nspec:\n  columns: [unclosed\n');
    await setOrdersPriority(repo.dir, 6);
    await waitFor(async () => (await loop.status()).health === 'Degraded', 5_000, 'Degraded');
    const status = await loop.status();
    expect(status).toMatchObject({ sync: 'Unknown', last_pass: { result: 'invalid' } });
    expect(status.message).toContain('validation error');
    expect(status.message).toContain('public.customers.dqotable.yaml');
    expect(status.diagnostic_count.errors).toBeGreaterThan(0);
    expect(status.diagnostics[0]).toMatchObject({ severity: 'error', file: 'sources/shop_oltp/public.customers.dqotable.yaml', line: expect.any(Number) });
    expect(await livePriority(fx.store)).toBe(5);
    expect(await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.customers' }])).toHaveLength(1);

    await cp(join(EXAMPLE, 'sources/shop_oltp/public.customers.dqotable.yaml'), customers);
    await waitFor(async () => (await livePriority(fx.store)) === 6, 5_000, 'the fixed revision applied');
    await idle(loop);
    expect(await loop.status()).toMatchObject({ health: 'Healthy', sync: 'Synced', diagnostic_count: { errors: 0 } });
  });

  it('drift: without --self-heal an API change is reported (Drifted) and kept; with it the next pass restores the file', async () => {
    const loop = await startLoop();
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    await idle(loop);
    const api = new LiveObjects(fx.store);
    await api.update(ORDERS.kind, ORDERS.name, { caller: 'api:test' }, (current) => ({ spec: { ...current.spec, priority: 9 } }));

    await loop.trigger('timer'); // drift is checked on the timer even when the folder did not move
    let status = await loop.status();
    expect(status).toMatchObject({ sync: 'OutOfSync', health: 'Healthy', last_pass: { result: 'no_changes' } });
    expect(status.objects).toEqual([
      {
        kind: 'table',
        name: ORDERS.name,
        status: 'Drifted',
        reason: 'drift_kept',
        fields: ['spec.priority'],
        changes: [{ path: 'spec.priority', origin: 'api', kept: true }],
        drifted: true,
        file: ORDERS_FILE,
      },
    ]);
    expect(status.counts.Drifted).toBe(1);
    expect(status.message).toContain('--self-heal');
    expect(await livePriority(fx.store)).toBe(9);
    await loop.stop();

    const healing = await startLoop({ selfHeal: true });
    await waitFor(async () => (await livePriority(fx.store)) === 1, 5_000, 'the drift restored');
    await idle(healing);
    status = await healing.status();
    expect(status).toMatchObject({ sync: 'Synced', health: 'Healthy', counts: { Drifted: 0 }, settings: { self_heal: true } });
  });

  it('suspend stops passes (edits wait), resume runs one at once', async () => {
    const triggers = triggersOf();
    const loop = await startLoop({ onTrigger: triggers.onTrigger });
    await waitFor(async () => (await livePriority(fx.store)) === 1, 20_000, 'the first apply');
    loop.suspend('alice');
    const watched = triggers.next('watch');
    await setOrdersPriority(repo.dir, 6);
    await (await watched).covered; // the edit was seen, and the pass it asked for skipped
    expect(await livePriority(fx.store)).toBe(1);
    const status = await loop.status();
    expect(status).toMatchObject({ health: 'Suspended', suspended: { by: 'alice' } });
    expect(status.message).toContain('suspended by alice');
    loop.resume('alice');
    await waitFor(async () => (await livePriority(fx.store)) === 6, 5_000, 'the edit applied after resume');
    await idle(loop);
    expect(await loop.status()).toMatchObject({ health: 'Healthy', suspended: null, last_pass: { triggers: ['resume'] } });
  });

  it('without --auto-apply a pass only reports: OutOfSync, Missing objects and the pending plan', async () => {
    const loop = await startLoop({ autoApply: false });
    await idle(loop, 20_000);
    const status = await loop.status();
    expect(status).toMatchObject({ sync: 'OutOfSync', health: 'Healthy', last_pass: { result: 'out_of_sync' } });
    expect(status.counts.Missing).toBeGreaterThan(10);
    expect(status.message).toContain('without --auto-apply');
    expect(await loop.pendingPlan()).toMatchObject({ format_version: '1.0', summary: { add: status.counts.Missing, change: 0, destroy: 0 } });
    expect(await objectCount()).toBe(0);
  });
});
