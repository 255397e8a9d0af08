import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectKey, ObjectWrite } from '../../src/model/index.js';
import { listSummaries } from '../../src/store/readObjects.js';
import { openSqlClient } from '../../src/store/sql/openSqlClient.js';
import { createSqlStore } from '../../src/store/sqlStore.js';
import type { Store } from '../../src/store/store.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { objectWrite } from './support/objectWrites.js';

const LOCK = { holder: 'test@summaries', operation: 'apply', timeoutMs: 5_000 };

/** A small deterministic random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe.each(STORE_ENGINES)('$engine store: listSummaries kept between reads', ({ engine, setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
  });

  const write = (store: Store, upserts: ObjectWrite[], deletes: ObjectKey[] = []) =>
    store.withLock(LOCK, async (tx) => {
      if (deletes.length > 0) await tx.deleteObjects(deletes);
      if (upserts.length > 0) await tx.upsertObjects(upserts);
    });
  /** What a read without any cache returns. */
  const uncached = () => listSummaries(fx.sql);

  it('equals an uncached read after every one of 60 random writes: edits, new objects, deletions, delete-and-recreate', async () => {
    const next = random(7);
    const names = Array.from({ length: 40 }, (_, i) => `shop/public.t${i} "q" ü`);
    await write(fx.store, names.slice(0, 20).map((name) => objectWrite('table', name, { v: 0 })));
    expect(await fx.store.listSummaries()).toEqual(await uncached());
    for (let step = 1; step <= 60; step++) {
      const upserts = new Map<string, ObjectWrite>();
      const deletes: ObjectKey[] = [];
      for (let n = 0; n < 1 + Math.floor(next() * 3); n++) {
        const name = names[Math.floor(next() * names.length)];
        if (next() < 0.25) deletes.push({ kind: 'table', name });
        else upserts.set(name, objectWrite('table', name, { v: step }, { contentHash: `step ${step}`, managedBy: next() < 0.5 ? 'git' : 'api' }));
      }
      await write(fx.store, [...upserts.values()], deletes);
      const cached = await fx.store.listSummaries();
      expect(cached, `after step ${step}`).toEqual(await uncached());
      expect(await fx.store.listSummaries({ kind: 'table' })).toEqual(cached);
      expect(await fx.store.listSummaries({ kind: 'source' })).toEqual([]);
    }
  });

  // one process per PGlite folder: there is no other writer there
  it.runIf(engine === 'postgres')('sees what another Store instance wrote', async () => {
    await write(fx.store, [objectWrite('table', 'a/public.x', { v: 1 })]);
    expect((await fx.store.listSummaries()).map((s) => s.contentHash)).toHaveLength(1);
    const client = await openSqlClient(fx.options);
    const other = createSqlStore(client);
    try {
      await write(other, [objectWrite('table', 'a/public.x', { v: 2 }, { contentHash: 'from the other' }), objectWrite('source', 'a', {})]);
      expect(await fx.store.listSummaries()).toEqual(await uncached());
      expect((await fx.store.listSummaries()).map((s) => s.contentHash)).toContain('from the other');
      await write(other, [], [{ kind: 'source', name: 'a' }]);
      expect(await fx.store.listSummaries()).toEqual(await uncached());
    } finally {
      await other.close();
    }
  });

  it('reads everything again when the table was emptied and the revision went back, even to the same revision', async () => {
    await write(fx.store, [objectWrite('table', 'a/public.x', { v: 1 }, { contentHash: 'before' })]);
    expect((await fx.store.listSummaries())[0].contentHash).toBe('before');
    // what a restore or a truncate does: the same key at the same revision, other content
    await fx.reset();
    await write(fx.store, [objectWrite('table', 'a/public.x', { v: 2 }, { contentHash: 'after' })]);
    expect((await fx.store.listSummaries()).map((s) => s.contentHash)).toEqual(['after']);
    await fx.reset();
    await write(fx.store, [objectWrite('table', 'a/public.x', { v: 3 }, { contentHash: 'third' })]);
    await write(fx.store, [objectWrite('table', 'a/public.y', { v: 3 })]);
    expect(await fx.store.listSummaries()).toEqual(await uncached());
  });

  it('hands out frozen summaries in a new array each time, so no reader can change what the next one reads', async () => {
    await write(fx.store, [objectWrite('table', 'a/public.x', { v: 1 })]);
    const first = await fx.store.listSummaries();
    expect(Object.isFrozen(first[0])).toBe(true);
    first.pop();
    expect(await fx.store.listSummaries()).toHaveLength(1);
  });
});
