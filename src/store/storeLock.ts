import { setTimeout as sleep } from 'node:timers/promises';
import { DqError, type LockInfo } from '../model/index.js';
import { formatSeconds } from './formatSeconds.js';
import type { LockRequest } from './store.js';
import { STORE_LOCK_KEY, isoTimestamp, type SqlClient, type SqlQueryable, type SqlSession } from './sql/sqlClient.js';

/**
 * The store-wide lock. The truth is a session-level advisory lock, which PostgreSQL drops with its connection,
 * so a killed holder can never leave the store locked. The `dqctl.lock` row only says who holds it, for the
 * people waiting: a row whose session no longer holds the advisory lock is stale and reads as "free".
 */

/** Polls `pg_try_advisory_lock` until `timeoutMs`, then fails with LOCK_TIMEOUT naming the holder. */
export async function acquireStoreLock(
  session: SqlSession,
  request: LockRequest,
  currentHolder: () => Promise<LockInfo | null>,
): Promise<void> {
  const started = Date.now();
  const deadline = started + Math.max(0, request.timeoutMs);
  for (;;) {
    if (await session.tryAdvisoryLock(STORE_LOCK_KEY)) return;
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await sleep(Math.min(remaining, 100 + Math.floor(Math.random() * 100)));
  }
  throw lockTimeout(await currentHolder(), Date.now() - started);
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
