import { openStore as openLiveStore } from '../store/openStore.js';
import { recordStateDirOperation } from '../store/index.js';
import type { OpenStoreOptions, Store } from '../store/store.js';

/**
 * Opening the live store, for the CLI's commands and `serve`: PostgreSQL when `databaseUrl` is given, else the
 * embedded store in `stateDir`, its schema brought up to date. The callers choose the options (flags,
 * environment); the store's own rules (migrations, the folder lock) stay in `store`.
 */
export function openStore(options: OpenStoreOptions): Promise<Store> {
  return openLiveStore(options);
}

/** Runs `work` with the store open and closes it afterwards, whatever happens. */
export async function withOpenStore<T>(options: OpenStoreOptions, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(options);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Runs `work` at once with the store's opening (a promise), for work that has something to do before it needs the
 * store (a plan reads and hashes the repository's files meanwhile: the embedded store's open, 1-4 s, overlaps
 * them). The store is closed afterwards once opened, whatever happens; a failure to open is `work`'s to report
 * when it awaits the store (and is not reported when `work` failed first).
 */
export async function withOpeningStore<T>(options: OpenStoreOptions, work: (store: Promise<Store>) => Promise<T>): Promise<T> {
  const opening = openStore(options);
  opening.catch(() => undefined);
  try {
    return await work(opening);
  } finally {
    const store = await opening.catch(() => undefined);
    await store?.close();
  }
}

/** How old a lock with a dead holder must be before it is reclaimed, unless `lockTtlMs` says otherwise. */
export { DEFAULT_LOCK_TTL_MS } from '../store/storeLock.js';

/**
 * Tells other processes what holds an embedded store's folder (`serve http://…` once it listens): a command that
 * finds the folder locked names the server and suggests --server. False when this process holds no lock there.
 */
export function announceStateDirHolder(stateDir: string, operation: string): Promise<boolean> {
  return recordStateDirOperation(stateDir, operation);
}
