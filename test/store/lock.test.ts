import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DqError } from '../../src/model/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import { ManualClock } from '../helpers/manualClock.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { spawnStoreChild } from './support/spawnStoreChild.js';

const ALICE = { holder: 'alice@laptop', operation: 'apply', timeoutMs: 5_000 };

/** A promise with its resolve function, to hold a withLock open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function rejection(promise: Promise<unknown>): Promise<DqError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DqError) return error;
    throw error;
  }
  throw new Error('expected a DqError, got success');
}

describe.each(STORE_ENGINES)('$engine store: the store lock', ({ engine, setup }) => {
  let fx: StoreFixture;
  let secondInstance: Store | null = null;
  /** The contender: another Store on the same database (PostgreSQL), the same Store (PGlite: one per process). */
  const other = (): Store => secondInstance ?? fx.store;

  beforeAll(async () => {
    fx = await setup();
    if (engine === 'postgres') secondInstance = await openStore(fx.options);
  });
  afterAll(async () => {
    await secondInstance?.close();
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
  });

  it('reports the holder while held and null once released', async () => {
    expect(await fx.store.currentLock()).toBeNull();
    const held = gate();
    const seenInside = gate();
    const running = fx.store.withLock(ALICE, async () => {
      seenInside.open();
      await held.promise;
    });
    await seenInside.promise;
    for (const store of [fx.store, other()]) {
      expect(await store.currentLock()).toMatchObject({ holder: 'alice@laptop', operation: 'apply', pid: process.pid });
    }
    held.open();
    await running;
    expect(await fx.store.currentLock()).toBeNull();
    expect(await other().currentLock()).toBeNull();
    expect(await fx.sql.query('select * from dqctl.lock')).toEqual([]);
  });

  it('fails the second holder with LOCK_TIMEOUT naming the first, without waiting for it to finish', async () => {
    const held = gate();
    const inside = gate();
    const first = fx.store.withLock(ALICE, async () => {
      inside.open();
      await held.promise;
      return 'first done';
    });
    await inside.promise;

    const started = Date.now();
    let secondRan = false;
    const error = await rejection(
      other().withLock({ holder: 'bob@ci', operation: 'apply', timeoutMs: 400 }, async () => {
        secondRan = true;
      }),
    );
    const waited = Date.now() - started;
    expect(error.code).toBe('LOCK_TIMEOUT');
    expect(error.message).toMatch(
      new RegExp(`^the store is locked by alice@laptop \\(apply, pid ${process.pid}, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\); waited 0\\.4s$`),
    );
    expect(error.details).toMatchObject({ holder: 'alice@laptop', operation: 'apply', pid: process.pid });
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(3_000);
    expect(secondRan).toBe(false);

    held.open();
    expect(await first).toBe('first done');
    expect(await fx.store.revision()).toBe(1);
  });

  it('lets the second holder wait and run after the first commits', async () => {
    const events: string[] = [];
    const inside = gate();
    // the second holder's clock: its waits between attempts are what the first holder waits for
    const clock = new ManualClock(new Date());
    const secondWaits = clock.nextWait();
    const first = fx.store.withLock(ALICE, async (tx) => {
      inside.open();
      events.push('first start');
      await secondWaits;
      events.push('first end');
      return tx.revision();
    });
    await inside.promise;
    const second = other().withLock({ holder: 'bob@ci', operation: 'apply', timeoutMs: 10_000, clock }, async (tx) => {
      events.push('second');
      return tx.revision();
    });
    await first;
    await clock.advance(200); // its next attempt (every 100-200 ms) finds the lock free
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(['first start', 'first end', 'second']);
  });

  it('treats a lock row whose session is gone as free', async () => {
    await fx.sql.query(
      `insert into dqctl.lock (id, holder, operation, since, pid, host, backend_pid)
       values (true, 'ghost@gone', 'apply', now(), 999999, 'nowhere', 999999)`,
    );
    expect(await fx.store.currentLock()).toBeNull();
    const started = Date.now();
    await fx.store.withLock({ ...ALICE, timeoutMs: 1_000 }, async () => {});
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await fx.sql.query('select * from dqctl.lock')).toEqual([]);
  });

  it('is not left behind by a process killed while holding it', async () => {
    // PGlite: one process per folder, so the test lets go of it for the child.
    if (engine === 'pglite') await fx.closeStore();
    const child = await spawnStoreChild({ options: fx.options, mode: 'hold-lock' });
    try {
      if (engine === 'postgres') {
        expect(await other().currentLock()).toMatchObject({ holder: 'child@test', operation: 'apply', pid: child.pid });
        const error = await rejection(fx.store.withLock({ ...ALICE, timeoutMs: 300 }, async () => {}));
        expect(error.code).toBe('LOCK_TIMEOUT');
        expect(error.message).toContain(`locked by child@test (apply, pid ${child.pid}, since `);
      } else {
        const lockFile = JSON.parse(readFileSync(join(fx.options.stateDir!, 'lock'), 'utf8')) as { pid: number };
        expect(lockFile.pid).toBe(child.pid);
      }
    } finally {
      await child.kill();
    }
    if (engine === 'postgres') {
      // the server ends the killed client's session when it notices the closed socket: a moment later on a busy machine
      await expect
        .poll(async () => (await fx.sql.query('select count(*)::int as n from pg_stat_activity where pid = (select backend_pid from dqctl.lock)'))[0], { interval: 20, timeout: 10_000 })
        .toEqual({ n: 0 });
    }

    const started = Date.now();
    if (engine === 'pglite') {
      // The child's lock file is left behind; opening takes it over because its pid is dead.
      expect(existsSync(join(fx.options.stateDir!, 'lock'))).toBe(true);
      await fx.reopen();
      // The child's lock row survived too (it was committed), but nobody in this process holds the lock.
      expect(await fx.sql.query('select holder from dqctl.lock')).toEqual([{ holder: 'child@test' }]);
    }
    expect(await fx.store.currentLock()).toBeNull();
    await fx.store.withLock({ ...ALICE, timeoutMs: 5_000 }, async () => {});
    expect(Date.now() - started).toBeLessThan(engine === 'pglite' ? 10_000 : 2_000);
    expect(await fx.store.currentLock()).toBeNull();
  });
});
