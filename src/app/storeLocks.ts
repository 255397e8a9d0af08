import { DqError } from '../model/index.js';
import { listLocks, releaseLock, type LockEntry, type LockListing } from '../store/lockAdmin.js';
import type { OpenStoreOptions } from '../store/store.js';

/**
 * The store's locks for `dqctl lock list|release`: who holds which, and freeing one its holder left behind (a
 * dead holder, or for the store lock an expired one). Neither opens the store: a held store is what they are for.
 * A live holder is refused with LOCK_HELD naming it; anything else is released only when `confirm` says so.
 */
export function listStoreLocks(options: OpenStoreOptions, ttlMs: number): Promise<LockListing> {
  return listLocks(options, ttlMs);
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
