import { listStoreLocks, releaseStoreLock } from '../../app/storeLocks.js';
import type { LockEntry, LockListing } from '../../app/types.js';
import { DqError, formatAge } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { renderColumns } from '../render/columns.js';
import { lockTtlOf, openOptionsFromFlags, type StoreFlags } from '../storeOptions.js';

export interface LockListOptions extends StoreFlags {
  format: 'text' | 'json';
}

export interface LockReleaseOptions extends StoreFlags {
  yes?: boolean;
}

/** `dqctl lock list`: who holds which lock, since when, and whether it could be released. Opens no store. */
export async function lockListCommand(options: LockListOptions, io: CliIo): Promise<number> {
  const ttlMs = lockTtlOf(options, io);
  const listing = await listStoreLocks(openOptionsFromFlags(options, io, { operation: 'lock list' }), ttlMs);
  if (options.format === 'json') {
    io.stdout(JSON.stringify(listingJson(listing), null, 2) + '\n');
    return 0;
  }
  io.stdout(`Locks of ${listing.location} (TTL ${formatAge(ttlMs)}):\n`);
  if (listing.locks.length === 0) {
    io.stdout('  none held.\n');
    return 0;
  }
  const rows = listing.locks.map((l) => [
    l.id,
    l.holder,
    l.operation,
    l.ageMs === null ? '-' : formatAge(l.ageMs),
    l.pid === null ? '-' : String(l.pid),
    l.host ?? '-',
    l.alive === true ? 'alive' : l.alive === false ? 'dead' : 'unknown',
  ]);
  const header = ['ID', 'HOLDER', 'OPERATION', 'AGE', 'PID', 'HOST', 'HOLDER STATE'];
  io.stdout(renderColumns(header, rows) + '\n');
  for (const l of listing.locks) {
    io.stdout(`${l.id}: ${l.what}\n  ${l.releasable ? 'can be released' : 'not releasable'}: ${l.reason}\n`);
    if (l.server) io.stdout(`  held by dqctl serve at ${l.server}: run plan, apply and run checks through it with --server ${l.server}\n`);
  }
  return 0;
}

/**
 * `dqctl lock release ID`: frees a lock left by a dead (or, for the store lock, expired) holder. Refuses a live
 * holder with LOCK_HELD and says who it is; asks on a terminal, and needs --yes elsewhere.
 */
export async function lockReleaseCommand(id: string, options: LockReleaseOptions, io: CliIo): Promise<number> {
  const ttlMs = lockTtlOf(options, io);
  const storeOptions = openOptionsFromFlags(options, io, { operation: 'lock release' });
  const outcome = await releaseStoreLock(storeOptions, id, ttlMs, async (entry, listing) => {
    if (options.yes) return true;
    if (!io.interactive) {
      throw new DqError('CONFIRMATION_REQUIRED', 'lock release needs confirmation: run it in a terminal, or pass --yes');
    }
    io.stdout(`The lock ${id} of ${listing.location} is held by ${entry.holder} (${entry.operation}${entry.ageMs === null ? '' : `, for ${formatAge(entry.ageMs)}`}).\n  ${entry.reason}\n`);
    const answer = await io.prompt("\nRelease it?\n  Only 'yes' will be accepted.\n\n  Enter a value: ");
    return answer.trim() === 'yes';
  });
  if (!outcome.released) {
    io.stderr('Lock release cancelled.\n');
    return 1;
  }
  io.stdout(`Released the lock ${id} held by ${outcome.lock.holder} (${outcome.lock.operation}).\n`);
  return 0;
}

function listingJson(listing: LockListing) {
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
