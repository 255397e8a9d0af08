import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { DqError, formatSeconds, systemClock, type Clock } from '../../model/index.js';

/**
 * PGlite must never be opened by two processes at once: both would write the same data directory and corrupt
 * it. So the embedded store holds `<stateDir>/lock` (created with O_EXCL) while it is open. A lock file left by
 * a process that died on this host is taken over; a live holder is waited for, then named in LOCK_TIMEOUT.
 * Released by `release()` and, best effort, when the process exits normally.
 *
 * A holder on another host (a shared volume) cannot be asked whether it lives, so every holder touches the file
 * (its mtime) at least once a minute: a file from another host untouched for longer than the TTL (default
 * 15 min) was left by a dead holder and is taken over. `dqctl serve` keeps the folder for its whole life and
 * records its URL in the operation (`serve http://127.0.0.1:8888`); an opener finding it fails at once with
 * STORE_IN_USE, suggesting `--server`, instead of waiting for a holder that will not leave.
 */
export interface StateDirLockOptions {
  timeoutMs: number;
  operation: string;
  pollMs?: number;
  /** A lock file from another host untouched this long is stale (default 15 min). */
  ttlMs?: number;
  /** The clock of the waits between attempts and of the heartbeat (default: the system's; tests drive one). */
  clock?: Clock;
}

export const DEFAULT_STATE_DIR_LOCK_TTL_MS = 15 * 60_000;
/** How often a holder touches its lock file; well under any TTL, so a live holder never looks dead. */
const HEARTBEAT_MS = 60_000;

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

/** The lock files this process holds, by path, with what they say: for `recordStateDirOperation`. */
const heldFiles = new Map<string, StateDirLockHolder>();

/** A lock file this old that still cannot be parsed was left by a process killed between create and write. */
const UNREADABLE_STALE_AFTER_MS = 5_000;

export async function acquireStateDirLock(stateDir: string, options: StateDirLockOptions): Promise<StateDirLock> {
  const path = join(resolve(stateDir), 'lock');
  const ttlMs = options.ttlMs ?? DEFAULT_STATE_DIR_LOCK_TTL_MS;
  const mine: StateDirLockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    operation: options.operation,
    token: randomUUID(),
  };
  const clock = options.clock ?? systemClock;
  const deadline = clock.now().getTime() + options.timeoutMs;
  const pollMs = options.pollMs ?? 150;
  let lastHolder: StateDirLockHolder | null = null;

  for (;;) {
    if (await tryCreate(path, mine)) break;
    const current = await readHolder(path);
    if (current === 'missing') continue;
    if (current === 'unreadable') {
      if (await isOlderThan(path, UNREADABLE_STALE_AFTER_MS)) await removeIfUnchanged(path, 'unreadable');
    } else if (isStale(current) || (await isAbandoned(path, current, ttlMs))) {
      await removeIfUnchanged(path, current);
      continue;
    } else if (isServe(current)) {
      throw ownedByServe(stateDir, current, options.operation);
    } else {
      lastHolder = current;
    }
    const now = clock.now().getTime();
    if (now >= deadline) throw lockTimeout(stateDir, lastHolder, options.timeoutMs);
    await new Promise<void>((wake) => clock.at(new Date(now + Math.min(pollMs, Math.max(1, deadline - now))), wake));
  }

  heldByThisProcess.add(mine.token!);
  heldFiles.set(path, mine);
  const beatMs = Math.min(HEARTBEAT_MS, Math.max(1_000, ttlMs / 3));
  let stopHeartbeat = (): void => {};
  const heartbeat = (): void => {
    stopHeartbeat = clock.at(new Date(clock.now().getTime() + beatMs), () => {
      heartbeat();
      return touchIfMine(path, mine.token!);
    }, { background: true });
  };
  heartbeat();
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
      stopHeartbeat();
      process.off('exit', releaseOnExit);
      heldByThisProcess.delete(mine.token!);
      heldFiles.delete(path);
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
  return !processAlive(holder.pid);
}

/** Whether a process of this host exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** A holder on another host whose heartbeat stopped for longer than the TTL. */
async function isAbandoned(path: string, holder: StateDirLockHolder, ttlMs: number): Promise<boolean> {
  return holder.host !== hostname() && (await isOlderThan(path, ttlMs));
}

async function touchIfMine(path: string, token: string): Promise<void> {
  try {
    const current = await readHolder(path);
    if (typeof current === 'object' && current.token === token) {
      const now = new Date();
      await utimes(path, now, now);
    }
  } catch {
    // The next beat tries again; a lock file we cannot touch is reported by whoever inspects it.
  }
}

const SERVE_OPERATION = /^serve(?:\s+(https?:\/\/\S+))?/;

function isServe(holder: StateDirLockHolder): boolean {
  return SERVE_OPERATION.test(holder.operation);
}

/** The URL a `dqctl serve` holder recorded, if it did. */
export function serveUrlOf(operation: string): string | undefined {
  return SERVE_OPERATION.exec(operation)?.[1];
}

/** Commands that can run through a server (`--server`); the others read or write the store itself. */
const THROUGH_SERVER = new Set([
  'plan',
  'apply',
  'run checks',
  'preview',
  'status',
  'history',
  'state list',
  'results',
  'statistics',
  'incidents list',
  'incidents acknowledge',
  'incidents resolve',
  'incidents mute',
  'incidents reopen',
  'notifications list',
]);

function ownedByServe(stateDir: string, holder: StateDirLockHolder, requested: string): DqError {
  const url = serveUrlOf(holder.operation);
  const who = `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
  const server = url ?? '<its URL>';
  const command = requested.startsWith('apply by ') ? 'apply' : requested;
  const through = THROUGH_SERVER.has(command)
    ? `use \`dqctl ${command} --server ${server}\``
    : `read it through the server's API (${server}/api/docs); plan, apply, run checks, preview and the reads (state list, results, statistics, incidents, history, status) take --server ${server}`;
  const advice = `${url ? '' : 'it is still starting; '}${through}, or stop the server to use the store directly`;
  return new DqError(
    'STORE_IN_USE',
    `the embedded store ${stateDir} is open in \`dqctl serve\`${url ? ` at ${url}` : ''} (${who}); ${advice}`,
    { stateDir, pid: holder.pid, host: holder.host, since: holder.since, operation: holder.operation, ...(url ? { server: url } : {}) },
  );
}

/**
 * Rewrites the operation of a lock file this process holds (atomically: write beside, rename over), e.g. `serve`
 * once it knows its URL. false when this process holds no lock on that folder.
 */
export async function recordStateDirOperation(stateDir: string, operation: string): Promise<boolean> {
  const path = join(resolve(stateDir), 'lock');
  const mine = heldFiles.get(path);
  if (!mine) return false;
  const current = await readHolder(path);
  if (typeof current !== 'object' || current.token !== mine.token) return false;
  mine.operation = operation;
  const beside = `${path}.update-${process.pid}-${randomUUID()}`;
  await writeFile(beside, `${JSON.stringify(mine)}\n`);
  await rename(beside, path);
  return true;
}

/** What `dqctl lock list` shows of the folder lock: its holder and when it last beat, or null when free. */
export interface StateDirLockState {
  path: string;
  holder: StateDirLockHolder | null;
  /** Time of the last heartbeat (the file's mtime). */
  touchedAt: string | null;
  /** true / false for a holder on this host; false for another host's holder silent past the TTL; else null. */
  alive: boolean | null;
  unreadable: boolean;
}

export async function inspectStateDirLock(stateDir: string, ttlMs = DEFAULT_STATE_DIR_LOCK_TTL_MS): Promise<StateDirLockState | null> {
  const path = join(resolve(stateDir), 'lock');
  const current = await readHolder(path);
  if (current === 'missing') return null;
  let touchedAt: string | null = null;
  try {
    touchedAt = (await stat(path)).mtime.toISOString();
  } catch {
    return null;
  }
  if (current === 'unreadable') return { path, holder: null, touchedAt, alive: null, unreadable: true };
  const alive = current.host === hostname() ? !isStale(current) : (await isOlderThan(path, ttlMs)) ? false : null;
  return { path, holder: current, touchedAt, alive, unreadable: false };
}

/**
 * Removes the folder lock for `lock release`, only if it is still the one inspected (same pid, since, token):
 * never a lock a new holder took in the meantime.
 */
export async function removeStateDirLock(stateDir: string, seen: StateDirLockState): Promise<boolean> {
  const path = join(resolve(stateDir), 'lock');
  if (!sameHolder(await readHolder(path), seen.holder)) return false;
  await removeIfUnchanged(path, seen.holder ?? 'unreadable');
  return !sameHolder(await readHolder(path), seen.holder);
}

function sameHolder(a: StateDirLockHolder | 'missing' | 'unreadable', b: StateDirLockHolder | null): boolean {
  if (b === null) return a === 'unreadable';
  return typeof a === 'object' && a.pid === b.pid && a.since === b.since && a.token === b.token;
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
