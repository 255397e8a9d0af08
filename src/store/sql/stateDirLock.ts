import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DqError } from '../../model/index.js';
import { formatSeconds } from '../formatSeconds.js';

/**
 * PGlite must never be opened by two processes at once: both would write the same data directory and corrupt
 * it. So the embedded store holds `<stateDir>/lock` (created with O_EXCL) while it is open. A lock file left by
 * a process that died on this host is taken over; a live holder is waited for, then named in LOCK_TIMEOUT.
 * Released by `release()` and, best effort, when the process exits normally.
 */
export interface StateDirLockOptions {
  timeoutMs: number;
  operation: string;
  pollMs?: number;
}

export interface StateDirLockHolder {
  pid: number;
  host: string;
  since: string;
  operation: string;
  /** Tells our own lock file apart from a later holder's that reused the pid. */
  token?: string;
}

export interface StateDirLock {
  readonly path: string;
  release(): Promise<void>;
}

/**
 * Tokens of the lock files this process holds. A lock file naming our own pid but not one of these tokens was
 * left by an earlier process that had the same pid (containers reuse small pids after a restart): stale.
 */
const heldByThisProcess = new Set<string>();

/** A lock file this old that still cannot be parsed was left by a process killed between create and write. */
const UNREADABLE_STALE_AFTER_MS = 5_000;

export async function acquireStateDirLock(stateDir: string, options: StateDirLockOptions): Promise<StateDirLock> {
  const path = join(stateDir, 'lock');
  const mine: StateDirLockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    operation: options.operation,
    token: randomUUID(),
  };
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 150;
  let lastHolder: StateDirLockHolder | null = null;

  for (;;) {
    if (await tryCreate(path, mine)) break;
    const current = await readHolder(path);
    if (current === 'missing') continue;
    if (current === 'unreadable') {
      if (await isOlderThan(path, UNREADABLE_STALE_AFTER_MS)) await removeIfUnchanged(path, 'unreadable');
    } else if (isStale(current)) {
      await removeIfUnchanged(path, current);
      continue;
    } else {
      lastHolder = current;
    }
    if (Date.now() >= deadline) throw lockTimeout(stateDir, lastHolder, options.timeoutMs);
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }

  heldByThisProcess.add(mine.token!);
  const releaseOnExit = (): void => {
    try {
      if (readFileSync(path, 'utf8').includes(mine.token!)) unlinkSync(path);
    } catch {
      // Already gone or unreadable: nothing of ours to remove.
    }
  };
  process.on('exit', releaseOnExit);
  let released = false;
  return {
    path,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      process.off('exit', releaseOnExit);
      heldByThisProcess.delete(mine.token!);
      const current = await readHolder(path);
      if (typeof current === 'object' && current.token === mine.token) await unlink(path).catch(() => {});
    },
  };
}

async function tryCreate(path: string, holder: StateDirLockHolder): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(holder)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

async function readHolder(path: string): Promise<StateDirLockHolder | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<StateDirLockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return 'unreadable';
    return {
      pid: parsed.pid,
      host: parsed.host,
      since: String(parsed.since ?? ''),
      operation: String(parsed.operation ?? ''),
      token: typeof parsed.token === 'string' ? parsed.token : undefined,
    };
  } catch {
    return 'unreadable';
  }
}

/** Only a holder on this host can be checked; a process that no longer exists (ESRCH) is stale. */
function isStale(holder: StateDirLockHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return holder.token === undefined || !heldByThisProcess.has(holder.token);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function isOlderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return false;
  }
}

/**
 * Removes the stale lock file without removing a fresh one that another process created meanwhile: move it
 * aside atomically, check that what was moved is the stale file, and put it back otherwise.
 */
async function removeIfUnchanged(path: string, seen: StateDirLockHolder | 'unreadable'): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch {
    return; // someone else moved it first
  }
  const moved = await readHolder(aside);
  const same =
    seen === 'unreadable'
      ? moved === 'unreadable'
      : typeof moved === 'object' && moved.pid === seen.pid && moved.since === seen.since && moved.token === seen.token;
  if (!same) await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

function lockTimeout(stateDir: string, holder: StateDirLockHolder | null, timeoutMs: number): DqError {
  const waited = `waited ${formatSeconds(timeoutMs)}`;
  if (!holder) {
    return new DqError('LOCK_TIMEOUT', `the store folder ${stateDir} is in use by another dqctl process; ${waited}`, {
      stateDir,
    });
  }
  return new DqError(
    'LOCK_TIMEOUT',
    `the store folder ${stateDir} is in use by another dqctl process (pid ${holder.pid} on ${holder.host}, ` +
      `${holder.operation || 'open'}, since ${holder.since}); ${waited}`,
    { stateDir, pid: holder.pid, host: holder.host, operation: holder.operation, since: holder.since },
  );
}
