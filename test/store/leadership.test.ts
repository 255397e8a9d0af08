import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { tryLeadership } from '../../src/store/leadership.js';
import { openPostgresClient } from '../../src/store/sql/postgresClient.js';
import { RECONCILE_LEADER_KEY } from '../../src/store/sql/sqlClient.js';
import type { Store } from '../../src/store/store.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/** The leader's backend on PostgreSQL: the session holding advisory lock (dqct, 3). */
async function leaderBackend(fx: StoreFixture): Promise<number | undefined> {
  const rows = await fx.sql.query<{ pid: number }>(
    `select pid from pg_locks where locktype = 'advisory' and granted and classid = $1::oid and objid = 3 and objsubid = 2
       and database = (select oid from pg_database where datname = current_database())`,
    [String(0x64716374)],
  );
  return rows[0]?.pid;
}

/** The payloads a leader heard, and a promise for the moment it has heard `count` of them. */
function inbox(): { heard: string[]; hear(payload: string): void; until(count: number): Promise<void> } {
  const heard: string[] = [];
  let waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    heard,
    hear(payload) {
      heard.push(payload);
      for (const waiter of waiting.filter((w) => heard.length >= w.count)) waiter.resolve();
      waiting = waiting.filter((w) => heard.length < w.count);
    },
    until(count) {
      return heard.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }));
    },
  };
}

describe.each(STORE_ENGINES)('$engine store: leadership of the reconcile loop', ({ engine, setup }) => {
  let fx: StoreFixture;
  let secondInstance: Store | null = null;
  /** Another replica: a second Store on the same database (PostgreSQL), the same Store (PGlite: one per process). */
  const other = (): Store => secondInstance ?? fx.store;

  beforeAll(async () => {
    fx = await setup();
    if (engine === 'postgres') secondInstance = await openStore(fx.options);
  });
  afterAll(async () => {
    await secondInstance?.close();
    await fx?.dispose();
  });

  it('one leader at a time; released leadership is taken by the next caller', async () => {
    const first = await fx.store.tryLeadership('reconcile');
    expect(first).not.toBeNull();
    expect(await other().tryLeadership('reconcile')).toBeNull();
    expect(await fx.store.tryLeadership('reconcile')).toBeNull();
    await first!.release();
    await first!.release(); // twice is harmless
    const second = await other().tryLeadership('reconcile');
    expect(second).not.toBeNull();
    await second!.release();
  });

  it("a request from another replica reaches the leader's onRequest, and nobody once it released", async () => {
    const first = inbox();
    const heard = first.heard;
    const leader = await fx.store.tryLeadership('reconcile', { onRequest: first.hear });
    expect(leader).not.toBeNull();
    await other().requestLeader('reconcile', 'replica-b:42 "quoted" ü');
    await other().requestLeader('reconcile', '');
    await first.until(2);
    expect(heard).toEqual(['replica-b:42 "quoted" ü', '']);
    await leader!.release();
    await other().requestLeader('reconcile', 'after release');
    expect(heard).toHaveLength(2);
    // the next leader hears its own requests only (and, by the time it heard one sent later, the released
    // leader would have heard 'after release' were it still listening)
    const nextInbox = inbox();
    const next = nextInbox.heard;
    const second = await other().tryLeadership('reconcile', { onRequest: nextInbox.hear });
    await fx.store.requestLeader('reconcile', 'to the second');
    await nextInbox.until(1);
    expect(next).toEqual(['to the second']);
    expect(heard).toHaveLength(2);
    await second!.release();
  });

  it('is apart from the store lock: the leader can apply, and others can lock the store while it leads', async () => {
    const leader = await fx.store.tryLeadership('reconcile');
    expect(leader).not.toBeNull();
    expect(await other().withLock({ holder: 'ci', operation: 'apply', timeoutMs: 2_000 }, async () => 'done')).toBe('done');
    expect(await fx.store.withLock({ holder: 'leader', operation: 'apply', timeoutMs: 2_000 }, async () => 'done')).toBe('done');
    await leader!.release();
  });

  // The next two need a pool and other sessions: PGlite has one in-process backend and no pool, so they are
  // PostgreSQL-only (on PGlite the process is always the leader, tested above).
  it.runIf(engine === 'postgres')('holds a connection of its own: it never takes one from the pool the API uses', async () => {
    const client = await openPostgresClient(fx.options.databaseUrl!, { maxConnections: 1, connectionTimeoutMs: 1_000 });
    try {
      const held = await client.session(); // the whole pool
      const leader = await tryLeadership(client, RECONCILE_LEADER_KEY);
      expect(leader).not.toBeNull();
      await held.release();
      expect(await client.query('select 1 as one')).toEqual([{ one: 1 }]);
      await leader!.release();
    } finally {
      await client.close();
    }
  });

  it.runIf(engine === 'postgres')('when the leader session dies, `lost` resolves and another replica takes over', async () => {
    const leader = await fx.store.tryLeadership('reconcile', { probeMs: 100 });
    expect(leader).not.toBeNull();
    let lost = false;
    void leader!.lost.then(() => (lost = true));
    const pid = await leaderBackend(fx);
    expect(pid).toBeTypeOf('number');
    // with a timeout, pg_terminate_backend returns once the backend has exited, its session locks released
    await fx.sql.query('select pg_terminate_backend($1, 10000)', [pid!]);
    const takenOver = await other().tryLeadership('reconcile');
    expect(takenOver).not.toBeNull();
    await leader!.lost;
    expect(lost).toBe(true);
    await leader!.release(); // after loss: nothing to do, no throw
    await takenOver!.release();
    // the store itself still works after losing one of its connections
    expect(await fx.store.revision()).toBeTypeOf('number');
  });
});
