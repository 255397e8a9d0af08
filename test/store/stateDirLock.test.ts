import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { acquireStateDirLock } from '../../src/store/sql/stateDirLock.js';
import { ManualClock } from '../helpers/manualClock.js';

/** The embedded store's folder lock: one process per PGlite data directory, stale holders taken over. */
describe('pglite store: the folder lock', () => {
  let stateDir: string;
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'dqctl-dirlock-'));
  });
  afterEach(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });

  const lockPath = () => join(stateDir, 'lock');
  const deadPid = (): number => {
    const exited = spawnSync(process.execPath, ['-e', '']);
    return exited.pid!;
  };

  it('writes who holds it and removes it on release', async () => {
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'plan' });
    const content = JSON.parse(await readFile(lockPath(), 'utf8'));
    expect(content).toMatchObject({ pid: process.pid, host: hostname(), operation: 'plan' });
    expect(content.since).toMatch(/^\d{4}-/);
    await lock.release();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('makes a second opener wait, then fail with LOCK_TIMEOUT naming the holder pid', async () => {
    const first = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'apply' });
    const started = Date.now();
    await expect(acquireStateDirLock(stateDir, { timeoutMs: 300, operation: 'plan' })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
      message: expect.stringMatching(new RegExp(`is in use by another dqctl process \\(pid ${process.pid} on .*, apply, since .*\\); waited 0\\.3s$`)),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await first.release();
    const second = await acquireStateDirLock(stateDir, { timeoutMs: 300, operation: 'plan' });
    await second.release();
  });

  it('gets the lock as soon as the holder releases it', async () => {
    const first = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'apply' });
    const clock = new ManualClock(new Date());
    const waiting = clock.nextWait();
    const acquiring = acquireStateDirLock(stateDir, { timeoutMs: 5_000, operation: 'plan', clock });
    await waiting; // it found the lock held and waits to try again
    await first.release();
    await clock.advance(150);
    const second = await acquiring;
    await second.release();
  });

  it('takes over a lock file whose process is dead on this host', async () => {
    const pid = deadPid();
    await writeFile(lockPath(), JSON.stringify({ pid, host: hostname(), since: '2026-01-01T00:00:00.000Z', operation: 'apply' }));
    const started = Date.now();
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 5_000, operation: 'plan' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(JSON.parse(await readFile(lockPath(), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock file naming its own pid that it does not hold (pid reused after a restart)', async () => {
    await writeFile(lockPath(), JSON.stringify({ pid: process.pid, host: hostname(), since: 'before restart', operation: 'apply' }));
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'plan' });
    expect(JSON.parse(await readFile(lockPath(), 'utf8')).since).not.toBe('before restart');
    await lock.release();
  });

  it('waits for a holder on another host, whose pid it cannot check', async () => {
    await writeFile(lockPath(), JSON.stringify({ pid: deadPid(), host: 'elsewhere', since: 'x', operation: 'apply' }));
    await expect(acquireStateDirLock(stateDir, { timeoutMs: 200, operation: 'plan' })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
      message: expect.stringContaining('on elsewhere'),
    });
  });

  it('takes over an unreadable lock file only once it is old', async () => {
    await writeFile(lockPath(), '');
    await expect(acquireStateDirLock(stateDir, { timeoutMs: 200, operation: 'plan' })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath(), old, old);
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'plan' });
    await lock.release();
  });

  it('does not remove a lock file that is no longer its own', async () => {
    const lock = await acquireStateDirLock(stateDir, { timeoutMs: 1_000, operation: 'plan' });
    await writeFile(lockPath(), JSON.stringify({ pid: 1, host: hostname(), since: 'later', operation: 'apply' }));
    await lock.release();
    expect(existsSync(lockPath())).toBe(true);
  });

  it('keeps a second openStore of the same folder out while the first is open', async () => {
    const store = await openStore({ stateDir, operation: 'apply' });
    try {
      await expect(openStore({ stateDir, openTimeoutMs: 300 })).rejects.toMatchObject({
        code: 'LOCK_TIMEOUT',
        message: expect.stringContaining(`(pid ${process.pid} on ${hostname()}, apply, since`),
      });
    } finally {
      await store.close();
    }
    expect(existsSync(lockPath())).toBe(false);
    const again = await openStore({ stateDir, openTimeoutMs: 1_000 });
    await again.close();
  });
});
