import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listLocks, openStore, releaseLock } from '../../src/store/index.js';
import { acquireStateDirLock, recordStateDirOperation } from '../../src/store/sql/stateDirLock.js';
import type { Store } from '../../src/store/store.js';
import { ManualClock } from '../helpers/manualClock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

const STORE_LOCK = [0x64716374, 1];
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

/**
 * A holder of the store lock as a frozen or vanished client would leave it: a live database session holding the
 * advisory lock, with a lock row saying who it was and since when.
 */
async function ghostHolder(url: string, row: { pid: number | null; host: string; ageMinutes: number }): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {}); // terminated on purpose by the tests
  await client.connect();
  await client.query('select pg_advisory_lock($1, $2)', STORE_LOCK);
  await client.query(
    `insert into dqctl.lock (id, holder, operation, since, pid, host, backend_pid)
     values (true, 'ghost@elsewhere', 'apply', now() - make_interval(mins => $1), $2, $3, pg_backend_pid())
     on conflict (id) do update set holder = excluded.holder, operation = excluded.operation, since = excluded.since,
       pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid`,
    [row.ageMinutes, row.pid, row.host],
  );
  return client;
}

async function sessionAlive(client: pg.Client): Promise<boolean> {
  try {
    await client.query('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until PostgreSQL sees the session idle for longer than `ms`. The idle time is the server's own (now()
 * minus the session's last state change): no clock of ours can stand in for it, so the test asks the server.
 */
async function untilServerSeesIdle(url: string, client: pg.Client, ms: number): Promise<void> {
  const pid = (client as unknown as { processID: number }).processID;
  const deadline = Date.now() + 10_000 + ms;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (;;) {
      const {
        rows: [row],
      } = await admin.query<{ idle: boolean }>(
      `select coalesce(state = 'idle' and clock_timestamp() - state_change > make_interval(secs => $2::float8 / 1000), false) as idle
         from pg_stat_activity where pid = $1`,
        [pid, ms],
      );
      if (row?.idle) return;
      if (Date.now() > deadline) throw new Error(`the server never saw backend ${pid} idle for ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the poll's pace
    }
  } finally {
    await admin.end();
  }
}

describe('postgres store lock: TTL reclaim and lock release', () => {
  let database: TestDatabase;
  let store: Store;
  let ghost: pg.Client | undefined;
  const options = () => ({ databaseUrl: database.url });

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openStore({ databaseUrl: database.url });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });
  afterEach(async () => {
    await ghost?.end().catch(() => {});
    ghost = undefined;
  });

  const lockOnce = (ttlMs?: number) =>
    store.withLock({ holder: 'test', operation: 'apply', timeoutMs: 1_500, ttlMs }, async (tx) => tx.revision());

  it('lists nothing when free; release of a free lock is NOT_FOUND', async () => {
    expect((await listLocks(options())).locks).toEqual([]);
    await expect(releaseLock(options(), 'store', 60_000)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reclaims a lock older than its TTL whose holder process on this host is gone: the next withLock ends its session', async () => {
    ghost = await ghostHolder(database.url, { pid: deadPid(), host: hostname(), ageMinutes: 20 });
    const [listed] = (await listLocks(options())).locks;
    expect(listed).toMatchObject({ id: 'store', holder: 'ghost@elsewhere', operation: 'apply', alive: false, expired: true, releasable: true });
    expect(listed.ageMs).toBeGreaterThan(19 * 60_000);
    await expect(lockOnce()).resolves.toBeGreaterThan(0);
    expect(await sessionAlive(ghost)).toBe(false);
  });

  it('does not reclaim a dead holder younger than the TTL, nor a live holder older than it', async () => {
    ghost = await ghostHolder(database.url, { pid: deadPid(), host: hostname(), ageMinutes: 1 });
    await expect(lockOnce()).rejects.toMatchObject({ code: 'LOCK_TIMEOUT', message: expect.stringContaining('ghost@elsewhere') });
    // dead: a person may release it at once
    expect((await listLocks(options())).locks[0]).toMatchObject({ alive: false, expired: false, releasable: true });
    await ghost.end();

    ghost = await ghostHolder(database.url, { pid: process.pid, host: hostname(), ageMinutes: 20 });
    await expect(lockOnce()).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await sessionAlive(ghost)).toBe(true);
    const [listed] = (await listLocks(options())).locks;
    expect(listed).toMatchObject({ alive: true, expired: true, releasable: true });
    expect(listed.reason).toContain('longer than the TTL');
  });

  it('judges a holder on another host by its session: idle for longer than the TTL is dead', async () => {
    ghost = await ghostHolder(database.url, { pid: 12345, host: 'elsewhere', ageMinutes: 20 });
    // busy or recently active: unknown, not reclaimed with a long TTL
    expect((await listLocks(options(), 60_000)).locks[0]).toMatchObject({ alive: null, expired: true });
    await untilServerSeesIdle(database.url, ghost, 1_000);
    expect((await listLocks(options(), 1_000)).locks[0]).toMatchObject({ alive: false, releasable: true });
    await expect(lockOnce(1_000)).resolves.toBeGreaterThan(0);
    expect(await sessionAlive(ghost)).toBe(false);
  });

  it('lock release: refuses a live young holder with LOCK_HELD, ends the session of a dead one, and only the one listed', async () => {
    ghost = await ghostHolder(database.url, { pid: process.pid, host: hostname(), ageMinutes: 0 });
    await expect(releaseLock(options(), 'store', 60_000)).rejects.toMatchObject({
      code: 'LOCK_HELD',
      message: expect.stringMatching(/may still be working .*process \d+ on this host is running/),
    });
    await ghost.end();

    ghost = await ghostHolder(database.url, { pid: deadPid(), host: hostname(), ageMinutes: 0 });
    const [before] = (await listLocks(options())).locks;
    await ghost.end();
    ghost = await ghostHolder(database.url, { pid: deadPid(), host: hostname(), ageMinutes: 0 });
    await expect(releaseLock(options(), 'store', 60_000, before)).rejects.toMatchObject({ code: 'LOCK_HELD', message: expect.stringContaining('changed hands') });
    expect(await sessionAlive(ghost)).toBe(true);
    const [seen] = (await listLocks(options())).locks;
    const released = await releaseLock(options(), 'store', 60_000, seen);
    expect(released.holder).toBe('ghost@elsewhere');
    expect(await sessionAlive(ghost)).toBe(false);
    expect((await listLocks(options())).locks).toEqual([]);
    await expect(lockOnce()).resolves.toBeGreaterThan(0);
  });

  it('never touches a lock held by withLock of a live process within the TTL', async () => {
    let release!: () => void;
    let holds!: () => void;
    const held = new Promise<void>((resolve) => (holds = resolve));
    const holding = store.withLock({ holder: 'alice', operation: 'apply', timeoutMs: 1_000 }, () => {
      holds();
      return new Promise<void>((resolve) => (release = resolve));
    });
    await held;
    const [listed] = (await listLocks(options())).locks;
    expect(listed).toMatchObject({ holder: 'alice', pid: process.pid, host: hostname(), alive: true, releasable: false });
    await expect(releaseLock(options(), 'store', 60_000)).rejects.toMatchObject({ code: 'LOCK_HELD' });
    release();
    await holding;
  });
});

describe('embedded store folder lock: TTL, serve, lock release', () => {
  let stateDir: string;
  let child: ChildProcess | undefined;
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'dqctl-locks-'));
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await rm(stateDir, { recursive: true, force: true });
  });
  const lockPath = () => join(stateDir, 'lock');
  const options = () => ({ stateDir });
  const writeHolder = (holder: object) => writeFile(lockPath(), JSON.stringify({ since: new Date().toISOString(), ...holder }));

  /** A live process of this host that is not us. */
  const liveChild = async (): Promise<number> => {
    child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child!.once('spawn', resolve));
    return child.pid!;
  };

  it('lists the holder and releases a lock left by a dead process; refuses a live one', async () => {
    expect((await listLocks(options())).locks).toEqual([]);
    await writeHolder({ pid: deadPid(), host: hostname(), operation: 'apply by alice@laptop', token: 't' });
    const [dead] = (await listLocks(options())).locks;
    expect(dead).toMatchObject({ id: 'state-dir', operation: 'apply by alice@laptop', alive: false, releasable: true, host: hostname() });
    await releaseLock(options(), 'state-dir', 60_000, dead);
    expect(existsSync(lockPath())).toBe(false);

    await writeHolder({ pid: await liveChild(), host: hostname(), operation: 'plan', token: 'u' });
    const [live] = (await listLocks(options())).locks;
    expect(live).toMatchObject({ alive: true, releasable: false });
    await expect(releaseLock(options(), 'state-dir', 60_000)).rejects.toMatchObject({ code: 'LOCK_HELD', message: expect.stringContaining('stop it instead') });
    expect(existsSync(lockPath())).toBe(true);
    await expect(releaseLock(options(), 'store', 60_000)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('state-dir') });
  });

  it('a holder on another host: waited for while it beats, taken over once silent for longer than the TTL', async () => {
    await writeHolder({ pid: 1, host: 'elsewhere', operation: 'apply', token: 'x' });
    await expect(acquireStateDirLock(stateDir, { timeoutMs: 300, operation: 'plan', ttlMs: 60_000 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect((await listLocks(options(), 60_000)).locks[0]).toMatchObject({ alive: null, releasable: false });
    await expect(releaseLock(options(), 'state-dir', 60_000)).rejects.toMatchObject({ code: 'LOCK_HELD', message: expect.stringContaining('on elsewhere') });
    const old = new Date(Date.now() - 120_000);
    await utimes(lockPath(), old, old);
    expect((await listLocks(options(), 60_000)).locks[0]).toMatchObject({ alive: false, expired: true, releasable: true });
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'plan', ttlMs: 60_000 });
    expect(JSON.parse(await readFile(lockPath(), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('holders touch their lock file, so a live holder never looks silent', async () => {
    const clock = new ManualClock(new Date());
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'serve', ttlMs: 3_000, clock });
    const old = new Date(Date.now() - 600_000);
    await utimes(lockPath(), old, old);
    await clock.advance(1_300); // a heartbeat falls due (every ttl / 3, 1 s at least) and touches the file
    expect(Date.now() - (await stat(lockPath())).mtimeMs).toBeLessThan(1_500);
    await lock.release();
  });

  it('fails at once with STORE_IN_USE naming the serve URL when dqctl serve has the folder', async () => {
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'serve' });
    expect(await recordStateDirOperation(stateDir, 'serve http://127.0.0.1:4321')).toBe(true);
    expect(JSON.parse(await readFile(lockPath(), 'utf8')).operation).toBe('serve http://127.0.0.1:4321');
    const token = JSON.parse(await readFile(lockPath(), 'utf8')).token;
    await lock.release();
    expect(await recordStateDirOperation(stateDir, 'serve x')).toBe(false);

    await writeHolder({ pid: await liveChild(), host: hostname(), operation: 'serve http://127.0.0.1:4321', token });
    const started = Date.now();
    await expect(openStore({ stateDir, openTimeoutMs: 20_000 })).rejects.toMatchObject({
      code: 'STORE_IN_USE',
      message: expect.stringContaining('--server http://127.0.0.1:4321'),
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await listLocks(options())).locks[0]).toMatchObject({ server: 'http://127.0.0.1:4321', releasable: false });
  });
});
