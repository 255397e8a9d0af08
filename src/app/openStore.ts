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

/** How old a lock with a dead holder must be before it is reclaimed, unless `lockTtlMs` says otherwise. */
export { DEFAULT_LOCK_TTL_MS } from '../store/storeLock.js';

/**
 * Tells other processes what holds an embedded store's folder (`serve http://…` once it listens): a command that
 * finds the folder locked names the server and suggests --server. False when this process holds no lock there.
 */
export function announceStateDirHolder(stateDir: string, operation: string): Promise<boolean> {
  return recordStateDirOperation(stateDir, operation);
}
