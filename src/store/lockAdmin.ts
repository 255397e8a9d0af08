import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { DqError, formatAge } from '../model/index.js';
import { openPostgresClient } from './sql/postgresClient.js';
import {
  DEFAULT_STATE_DIR_LOCK_TTL_MS,
  inspectStateDirLock,
  removeStateDirLock,
  serveUrlOf,
  type StateDirLockState,
} from './sql/stateDirLock.js';
import type { OpenStoreOptions } from './store.js';
import { inspectStoreLock, judgeStoreLock, terminateStoreLockHolder, type StoreLockState } from './storeLock.js';

/**
 * `dqctl lock list` and `dqctl lock release`: the locks that can keep dqctl waiting, without opening the store
 * (so that listing never waits on the lock it lists).
 *
 * - `store` (PostgreSQL): the store-wide lock, a session advisory lock plus the `dqctl.lock` row naming its
 *   holder. Releasing it ends the holder's database session (pg_terminate_backend): its transaction rolls back,
 *   the store stays as it was before, and the lock is free.
 * - `state-dir` (embedded store): `<state dir>/lock`, held by the one process that has the PGlite folder open
 *   (its store lock lives inside that process and dies with it). Releasing it removes the file; it is allowed only
 *   when the holder is dead, since two processes writing one PGlite folder would corrupt it.
 *
 * A lock is released only when its holder is dead, or (store lock) older than the TTL; otherwise LOCK_HELD
 * explains who holds it.
 */
export type LockId = 'store' | 'state-dir';

export interface LockEntry {
  id: LockId;
  /** What the lock guards, for people. */
  what: string;
  holder: string;
  operation: string;
  since: string | null;
  ageMs: number | null;
  pid: number | null;
  host: string | null;
  /** true / false when it can be known, null when not. */
  alive: boolean | null;
  expired: boolean;
  releasable: boolean;
  /** Why it may or may not be released. */
  reason: string;
  /** The URL a `dqctl serve` holding the embedded store serves at. */
  server?: string;
  /** Identity of the holder, to release only the lock that was listed. */
  identity: string;
}

export interface LockListing {
  engine: 'pglite' | 'postgres';
  location: string;
  ttlMs: number;
  locks: LockEntry[];
}

export async function listLocks(options: OpenStoreOptions, ttlMs = DEFAULT_STATE_DIR_LOCK_TTL_MS): Promise<LockListing> {
  if (options.databaseUrl) {
    const client = await openPostgresClient(options.databaseUrl, { maxConnections: 1 });
    try {
      const state = await inspectStoreLock(client);
      return { engine: 'postgres', location: client.description, ttlMs, locks: state ? [storeEntry(state, ttlMs)] : [] };
    } finally {
      await client.close();
    }
  }
  const stateDir = stateDirOf(options);
  const state = await inspectStateDirLock(stateDir, ttlMs);
  return { engine: 'pglite', location: `pglite:${join(stateDir, 'pglite')}`, ttlMs, locks: state ? [stateDirEntry(state, ttlMs)] : [] };
}

/**
 * Releases the lock `id`, if it is still the one `seen` (when given) and may be released. Returns the lock as it
 * was released. NOT_FOUND when it is not held, LOCK_HELD when its holder may still be working.
 */
export async function releaseLock(options: OpenStoreOptions, id: string, ttlMs: number, seen?: LockEntry): Promise<LockEntry> {
  const listing = await listLocks(options, ttlMs);
  if (id !== 'store' && id !== 'state-dir') {
    throw new DqError('NOT_FOUND', `no lock ${JSON.stringify(id)}: the locks are "store" (PostgreSQL) and "state-dir" (embedded store)`);
  }
  const entry = listing.locks.find((l) => l.id === id);
  if (!entry) {
    const hint =
      listing.engine === 'pglite' && id === 'store'
        ? '; on the embedded store the store lock lives inside the process that has the folder open: see "state-dir"'
        : '';
    throw new DqError('NOT_FOUND', `the lock ${id} of ${listing.location} is not held${hint}`);
  }
  if (seen && seen.identity !== entry.identity) {
    throw new DqError('LOCK_HELD', `the lock ${id} changed hands since it was listed (now ${entry.holder}, ${entry.operation}); nothing was released`);
  }
  if (!entry.releasable) throw new DqError('LOCK_HELD', `not releasing the lock ${id}: ${entry.reason}`, { ...entry });

  if (entry.id === 'store') {
    const client = await openPostgresClient(options.databaseUrl!, { maxConnections: 1 });
    try {
      const backendPid = Number(entry.identity.split(':')[0]);
      if (!(await terminateStoreLockHolder(client, backendPid))) {
        throw new DqError('LOCK_HELD', `could not end the session ${backendPid} that holds the store lock (is this database user allowed to? it needs the holder's role or pg_signal_backend)`);
      }
    } finally {
      await client.close();
    }
    return entry;
  }
  const stateDir = stateDirOf(options);
  const state = await inspectStateDirLock(stateDir, ttlMs);
  if (!state || !(await removeStateDirLock(stateDir, state))) {
    throw new DqError('LOCK_HELD', `the lock file of ${stateDir} changed while it was being released; nothing was removed`);
  }
  return entry;
}

function stateDirOf(options: OpenStoreOptions): string {
  return resolve(options.stateDir ?? join(process.cwd(), '.dqctl'));
}

function storeEntry(state: StoreLockState, ttlMs: number): LockEntry {
  const verdict = judgeStoreLock(state, ttlMs);
  const age = formatAge(Math.round(state.ageMs));
  const ttl = formatAge(ttlMs);
  const releasable = verdict.alive === false || verdict.expired;
  const reason =
    verdict.alive === false
      ? `the holder is dead: ${verdict.reason}`
      : verdict.expired
        ? `held for ${age}, longer than the TTL of ${ttl} (${verdict.reason}); releasing ends its session, which rolls its transaction back`
        : `the holder may still be working (${verdict.reason}) and the lock is ${age} old, younger than the TTL of ${ttl}; wait, or stop the holder`;
  const info = state.info;
  return {
    id: 'store',
    what: 'the store-wide lock (applies and API writes)',
    holder: info?.holder ?? `database session ${state.backendPid}${state.session.applicationName ? ` (${state.session.applicationName})` : ''}`,
    operation: info?.operation ?? 'unknown',
    since: info?.since ?? null,
    ageMs: Math.round(state.ageMs),
    pid: info?.pid ?? null,
    host: info?.host ?? state.session.clientAddress,
    alive: verdict.alive,
    expired: verdict.expired,
    releasable,
    reason,
    identity: `${state.backendPid}:${info?.since ?? ''}`,
  };
}

function stateDirEntry(state: StateDirLockState, ttlMs: number): LockEntry {
  const holder = state.holder;
  const ageMs = holder && !Number.isNaN(Date.parse(holder.since)) ? Math.max(0, Date.now() - Date.parse(holder.since)) : null;
  const silentMs = state.touchedAt ? Math.max(0, Date.now() - Date.parse(state.touchedAt)) : null;
  const expired = silentMs !== null && silentMs > ttlMs;
  let reason: string;
  let releasable: boolean;
  if (!holder) {
    releasable = true;
    reason = 'the lock file cannot be read (its writer was killed while writing it)';
  } else if (state.alive === true) {
    releasable = false;
    reason = `process ${holder.pid} on this host is running and has the embedded store open; stop it instead (two processes must never open one PGlite folder)`;
  } else if (state.alive === false) {
    releasable = true;
    reason =
      holder.host !== hostname()
        ? `its holder on ${holder.host} has not touched it for ${formatAge(silentMs ?? 0)}, longer than the TTL of ${formatAge(ttlMs)}`
        : `process ${holder.pid} on this host is gone`;
  } else {
    releasable = false;
    reason = `its holder runs on ${holder.host}, where it cannot be checked, and touched the file ${formatAge(silentMs ?? 0)} ago (TTL ${formatAge(ttlMs)}); stop it there, or wait for the TTL`;
  }
  const server = holder ? serveUrlOf(holder.operation) : undefined;
  return {
    id: 'state-dir',
    what: `the embedded store's folder (${state.path})`,
    holder: holder ? `pid ${holder.pid} on ${holder.host}` : 'unknown',
    operation: holder?.operation ?? 'unknown',
    since: holder?.since ?? null,
    ageMs,
    pid: holder?.pid ?? null,
    host: holder?.host ?? null,
    alive: state.alive,
    expired,
    releasable,
    reason,
    ...(server ? { server } : {}),
    identity: holder ? `${holder.pid}:${holder.since}:${holder.token ?? ''}` : 'unreadable',
  };
}
