import { DqError } from '../model/index.js';
import { listLocks, releaseLock, type LockEntry, type LockListing } from '../store/lockAdmin.js';
import { DEFAULT_LOCK_TTL_MS } from '../store/storeLock.js';
import type { OpenStoreOptions } from '../store/store.js';

/**
 * The store's locks for `dqctl lock list|release`: who holds which, and freeing one its holder left behind (a
 * dead holder, or for the store lock an expired one). Neither opens the store: a held store is what they are for.
 * A live holder is refused with LOCK_HELD naming it; anything else is released only when `confirm` says so.
 *
 * `dqctl lock list --format json`, and GET /api/gitops/locks (`lock list --server`: the server lists the locks of
 * the store it opened, judged with its own --lock-ttl). The holder's identity stays out: it serves release only.
 */
export interface LockListingDocument {
  store: { engine: 'pglite' | 'postgres'; location: string };
  ttl_ms: number;
  locks: Array<{
    id: string;
    what: string;
    holder: string;
    operation: string;
    since: string | null;
    age_ms: number | null;
    pid: number | null;
    host: string | null;
    alive: boolean | null;
    expired: boolean;
    releasable: boolean;
    reason: string;
    server?: string;
  }>;
}

export async function storeLocksDocument(options: OpenStoreOptions, ttlMs = options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS): Promise<LockListingDocument> {
  const listing = await listLocks(options, ttlMs);
  return {
    store: { engine: listing.engine, location: listing.location },
    ttl_ms: listing.ttlMs,
    locks: listing.locks.map((l: LockEntry) => ({
      id: l.id,
      what: l.what,
      holder: l.holder,
      operation: l.operation,
      since: l.since,
      age_ms: l.ageMs,
      pid: l.pid,
      host: l.host,
      alive: l.alive,
      expired: l.expired,
      releasable: l.releasable,
      reason: l.reason,
      ...(l.server ? { server: l.server } : {}),
    })),
  };
}

/** Asked before a held lock is released, with the lock as listed: true releases it. */
export type ConfirmLockRelease = (entry: LockEntry, listing: LockListing) => Promise<boolean>;

export type LockReleaseOutcome = { released: true; lock: LockEntry } | { released: false; lock: LockEntry };

export async function releaseStoreLock(options: OpenStoreOptions, id: string, ttlMs: number, confirm: ConfirmLockRelease): Promise<LockReleaseOutcome> {
  const listing = await listLocks(options, ttlMs);
  const entry = listing.locks.find((l) => l.id === id);
  if (entry && !entry.releasable) throw new DqError('LOCK_HELD', `not releasing the lock ${id}: held by ${entry.holder} (${entry.operation}); ${entry.reason}`);
  if (entry && !(await confirm(entry, listing))) return { released: false, lock: entry };
  // releaseLock says NOT_FOUND when the lock is not held (entry undefined), and refuses one that changed hands
  return { released: true, lock: await releaseLock(options, id, ttlMs, entry) };
}
