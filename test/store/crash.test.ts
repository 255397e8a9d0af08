import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { objectWrite, tableWrites } from './support/objectWrites.js';
import { spawnStoreChild } from './support/spawnStoreChild.js';

/**
 * "A crash leaves the old state whole": a child process rewrites every object (and more) inside withLock,
 * is SIGKILLed before it commits, and the store that opens next sees exactly the state before it.
 */
describe.each(STORE_ENGINES)('$engine store: a process killed mid-transaction', ({ engine, setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it('leaves the previous state whole', async () => {
    await fx.reset();
    await fx.store.withLock({ holder: 'test@crash', operation: 'apply', timeoutMs: 5_000 }, async (tx) => {
      await tx.upsertObjects([objectWrite('source', 'shop', { provider_type: 'postgresql' }), ...tableWrites(500, 'old')]);
      await tx.recordApply({
        appliedBy: 'test@crash',
        commit: 'old',
        repository: null,
        planFingerprint: 'old',
        summary: { add: 501, change: 0, destroy: 0, objects: [] },
      });
    });
    const before = {
      objects: await fx.store.listObjects(),
      revision: await fx.store.revision(),
      history: await fx.store.history(),
    };
    expect(before.objects).toHaveLength(501);

    if (engine === 'pglite') await fx.closeStore();
    // 4,000 objects of ~2.5 KB: more than PGlite's and PostgreSQL's buffers keep, so pages of the
    // uncommitted transaction reach the files before the kill.
    const child = await spawnStoreChild({ options: fx.options, mode: 'half-write', tag: 'new', count: 4_000 });
    await child.kill();

    const store = await fx.reopen();
    expect(await store.revision()).toBe(before.revision);
    expect(await store.listObjects()).toEqual(before.objects);
    expect(await store.history()).toEqual(before.history);
    expect(await store.currentLock()).toBeNull();

    // And the store still works: the next transaction commits normally.
    await store.withLock({ holder: 'test@crash', operation: 'apply', timeoutMs: 5_000 }, (tx) =>
      tx.upsertObjects(tableWrites(10, 'after')),
    );
    expect(await store.revision()).toBe(before.revision + 1);
    expect(await store.listSummaries({ kind: 'table' })).toHaveLength(500);
  });
});
