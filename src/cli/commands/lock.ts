import { releaseStoreLock, storeLocksDocument, type LockListingDocument } from '../../app/storeLocks.js';
import { DqError, formatAge } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { renderColumns } from '../render/columns.js';
import { lockTtlOf, openOptionsFromFlags, type StoreFlags } from '../storeOptions.js';

export interface LockListOptions extends StoreFlags, RemoteFlags {
  format: 'text' | 'json';
}

export interface LockReleaseOptions extends StoreFlags {
  yes?: boolean;
}

/**
 * `dqctl lock list`: who holds which lock, since when, and whether it could be released. Opens no store. With
 * --server, the locks of that server's store as it sees them (GET /api/gitops/locks, the same document), judged
 * with the server's own --lock-ttl.
 */
export async function lockListCommand(options: LockListOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  if (target && options.lockTtl) {
    throw new DqError('INVALID_ARGUMENT', "--lock-ttl has no effect with --server: the server judges its store's locks with its own --lock-ttl; drop it");
  }
  const listing = target
    ? await remoteLocks(target)
    : await storeLocksDocument(openOptionsFromFlags(options, io, { operation: 'lock list' }), lockTtlOf(options, io));
  if (options.format === 'json') {
    io.stdout(JSON.stringify(listing, null, 2) + '\n');
    return 0;
  }
  io.stdout(`Locks of ${listing.store.location} (TTL ${formatAge(listing.ttl_ms)}):\n`);
  if (listing.locks.length === 0) {
    io.stdout('  none held.\n');
    return 0;
  }
  const rows = listing.locks.map((l) => [
    l.id,
    l.holder,
    l.operation,
    l.age_ms === null ? '-' : formatAge(l.age_ms),
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

async function remoteLocks(target: RemoteTarget): Promise<LockListingDocument> {
  const listing = await callServer<LockListingDocument>(target, 'GET', '/api/gitops/locks');
  if (!listing) throw new DqError('SERVER_UNREACHABLE', `${target.url} answered GET /api/gitops/locks with no content; is it a dqctl server?`);
  return listing;
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
