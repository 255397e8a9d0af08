import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DqError, formatAge, formatSeconds, systemClock, type LockInfo } from '../model/index.js';
import type { LockRequest } from './store.js';
import { processAlive } from './sql/stateDirLock.js';
import { STORE_LOCK_KEY, isoTimestamp, type SqlClient, type SqlQueryable, type SqlSession } from './sql/sqlClient.js';

/**
 * The store-wide lock. The truth is a session-level advisory lock, which PostgreSQL drops with its connection,
 * so a killed holder can never leave the store locked. The `dqctl.lock` row only says who holds it, for the
 * people waiting: a row whose session no longer holds the advisory lock is stale and reads as "free".
 *
 * What PostgreSQL cannot notice is a holder whose machine froze or whose network went away: its session, and so
 * the lock, lives on until TCP gives up (hours). So a lock older than its TTL (default 15 min) whose holder is
 * dead is reclaimed by the next withLock: its session is ended with pg_terminate_backend, which rolls back its
 * transaction (the store stays whole) and drops the lock. "Dead" is what can be known: the holder's process is
 * gone (holder on this host), or its session has run nothing for longer than the TTL (holder elsewhere).
 */
export const DEFAULT_LOCK_TTL_MS = 15 * 60_000;

/** How often a waiter looks for a dead holder to reclaim. */
const RECLAIM_CHECK_MS = 2_000;

/** Polls `pg_try_advisory_lock` until `timeoutMs`, then fails with LOCK_TIMEOUT naming the holder. */
export async function acquireStoreLock(
  session: SqlSession,
  request: LockRequest,
  currentHolder: () => Promise<LockInfo | null>,
  reclaim?: () => Promise<boolean>,
): Promise<void> {
  const clock = request.clock ?? systemClock;
  const now = () => clock.now().getTime();
  const started = now();
  const deadline = started + Math.max(0, request.timeoutMs);
  let nextReclaim = 0;
  for (;;) {
    if (await session.tryAdvisoryLock(STORE_LOCK_KEY)) return;
    if (reclaim && now() >= nextReclaim) {
      nextReclaim = now() + RECLAIM_CHECK_MS;
      // Best effort: a reclaim that fails (no permission to end the session) leaves the wait as it was.
      if (await reclaim().catch(() => false)) continue;
    }
    const remaining = deadline - now();
    if (remaining <= 0) break;
    const wait = Math.min(remaining, 100 + Math.floor(Math.random() * 100));
    await new Promise<void>((wake) => clock.at(new Date(now() + wait), wake));
  }
  throw lockTimeout(await currentHolder(), now() - started);
}

function lockTimeout(holder: LockInfo | null, waitedMs: number): DqError {
  const waited = `waited ${formatSeconds(Math.round(waitedMs / 100) * 100)}`;
  if (!holder) return new DqError('LOCK_TIMEOUT', `the store is locked by another session; ${waited}`, { waitedMs });
  const where = [holder.operation, holder.pid !== null ? `pid ${holder.pid}` : null, `since ${holder.since}`];
  return new DqError(
    'LOCK_TIMEOUT',
    `the store is locked by ${holder.holder} (${where.filter(Boolean).join(', ')}); ${waited}`,
    { ...holder, waitedMs },
  );
}

/** Written outside the transaction (autocommit), so that others can read it while the work runs. */
export async function writeLockRow(session: SqlQueryable, info: LockInfo): Promise<void> {
  await session.query(
    `insert into dqctl.lock (id, holder, operation, since, pid, host, backend_pid)
     values (true, $1, $2, $3::timestamptz, $4, $5, pg_backend_pid())
     on conflict (id) do update set holder = excluded.holder, operation = excluded.operation,
       since = excluded.since, pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid`,
    [info.holder, info.operation, info.since, info.pid, info.host],
  );
}

export async function clearLockRow(session: SqlQueryable): Promise<void> {
  await session.query('delete from dqctl.lock where backend_pid = pg_backend_pid()');
}

/** The holder named by the lock row, or null when there is none or its session no longer holds the lock. */
export async function readLockHolder(client: SqlClient): Promise<LockInfo | null> {
  const rows = await client.query<{
    holder: string;
    operation: string;
    since: string;
    pid: number | null;
    host: string | null;
    backend_pid: number;
  }>(`select holder, operation, ${isoTimestamp('since')} as since, pid, host, backend_pid from dqctl.lock`);
  const row = rows[0];
  if (!row) return null;
  if (!(await client.holdsAdvisoryLock(STORE_LOCK_KEY, row.backend_pid))) return null;
  return { holder: row.holder, operation: row.operation, since: row.since, pid: row.pid, host: row.host };
}

/** The store lock as PostgreSQL sees it: the session holding the advisory lock, its row, how that session is. */
export interface StoreLockState {
  backendPid: number;
  /** The lock row, when it belongs to the holding session. */
  info: LockInfo | null;
  /** Since the row's `since`, else since the session's transaction (or connection) began. */
  ageMs: number;
  session: { state: string | null; idleMs: number | null; applicationName: string | null; clientAddress: string | null };
}

/** null when nobody holds the lock, and always on PGlite (whose lock lives inside the process that has it open). */
export async function inspectStoreLock(client: SqlClient): Promise<StoreLockState | null> {
  if (client.engine !== 'postgres') return null;
  const holders = await client.query<{
    backend_pid: number;
    state: string | null;
    application_name: string | null;
    client_address: string | null;
    idle_ms: number | null;
    session_age_ms: number | null;
  }>(
    `select k.pid as backend_pid, a.state, a.application_name, host(a.client_addr) as client_address,
            (extract(epoch from (now() - a.state_change)) * 1000)::float8 as idle_ms,
            (extract(epoch from (now() - coalesce(a.xact_start, a.backend_start))) * 1000)::float8 as session_age_ms
       from pg_locks k left join pg_stat_activity a on a.pid = k.pid
      where k.locktype = 'advisory' and k.granted and k.classid = $1::oid and k.objid = $2::oid and k.objsubid = 2
        and k.database = (select oid from pg_database where datname = current_database())`,
    [String(STORE_LOCK_KEY.namespace), String(STORE_LOCK_KEY.id)],
  );
  const holder = holders[0];
  if (!holder) return null;
  let row: (LockInfo & { age_ms: number }) | undefined;
  try {
    [row] = await client.query<LockInfo & { age_ms: number }>(
      `select holder, operation, ${isoTimestamp('since')} as since, pid, host,
              (extract(epoch from (now() - since)) * 1000)::float8 as age_ms
         from dqctl.lock where backend_pid = $1`,
      [holder.backend_pid],
    );
  } catch (error) {
    if ((error as { code?: unknown }).code !== '42P01') throw error; // no dqctl.lock yet: a store not migrated
  }
  return {
    backendPid: holder.backend_pid,
    info: row ? { holder: row.holder, operation: row.operation, since: row.since, pid: row.pid, host: row.host } : null,
    ageMs: Math.max(0, row ? row.age_ms : (holder.session_age_ms ?? 0)),
    session: {
      state: holder.state,
      idleMs: holder.idle_ms,
      applicationName: holder.application_name,
      clientAddress: holder.client_address,
    },
  };
}

export interface LockVerdict {
  /** true / false when it can be known; null when the holder is on another host and its session is busy. */
  alive: boolean | null;
  /** Older than the TTL. */
  expired: boolean;
  /** One line: why it is considered alive, dead or unknown. */
  reason: string;
}

const IDLE_STATES = new Set(['idle', 'idle in transaction', 'idle in transaction (aborted)']);

export function judgeStoreLock(state: StoreLockState, ttlMs: number, thisHost: string = hostname()): LockVerdict {
  const expired = state.ageMs > ttlMs;
  const { info, session } = state;
  if (info && info.host === thisHost && info.pid !== null) {
    const alive = processAlive(info.pid);
    return { alive, expired, reason: alive ? `process ${info.pid} on this host is running` : `process ${info.pid} on this host is gone` };
  }
  if (session.state !== null && IDLE_STATES.has(session.state) && session.idleMs !== null && session.idleMs > ttlMs) {
    return { alive: false, expired, reason: `its database session has run nothing for ${formatAge(session.idleMs)}` };
  }
  const where = info?.host ? `on ${info.host}` : session.clientAddress ? `at ${session.clientAddress}` : 'elsewhere';
  return { alive: null, expired, reason: `the holder runs ${where}, where its process cannot be checked; its session is ${session.state ?? 'not visible to this user'}` };
}

/** Ends the holder's session (rolling its transaction back) and waits until the lock is free. */
export async function terminateStoreLockHolder(client: SqlClient, backendPid: number): Promise<boolean> {
  const [result] = await client.query<{ done: boolean }>('select pg_terminate_backend($1) as done', [backendPid]);
  if (!result?.done) return false;
  for (let waited = 0; waited < 5_000; waited += 50) {
    if (!(await client.holdsAdvisoryLock(STORE_LOCK_KEY, backendPid))) break;
    await sleep(50);
  }
  await client.query('delete from dqctl.lock where backend_pid = $1', [backendPid]).catch(() => {});
  return !(await client.holdsAdvisoryLock(STORE_LOCK_KEY, backendPid));
}

/** The automatic reclaim of withLock: a lock older than its TTL whose holder is dead. true when it freed one. */
export async function reclaimStaleStoreLock(client: SqlClient, ttlMs: number): Promise<boolean> {
  const state = await inspectStoreLock(client);
  if (!state) return false;
  const verdict = judgeStoreLock(state, ttlMs);
  if (!(verdict.expired && verdict.alive === false)) return false;
  return terminateStoreLockHolder(client, state.backendPid);
}
