import { resolve } from 'node:path';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/store.js';
import type { CliIo } from './io.js';

/** `--database URL` / DQCTL_DATABASE_URL picks PostgreSQL; otherwise the embedded store in `--state-dir`. */
export interface StoreFlags {
  database?: string;
  stateDir?: string;
}

/** How the command opens the store: what for, and how long to wait while another process has the embedded one. */
export interface OpenPurpose {
  operation: string;
  waitMs?: number;
}

export async function openStoreFromFlags(flags: StoreFlags, io: CliIo, purpose: OpenPurpose): Promise<Store> {
  const databaseUrl = flags.database || io.env.DQCTL_DATABASE_URL || undefined;
  const stateDir = resolve(io.cwd, flags.stateDir || io.env.DQCTL_STATE_DIR || '.dqctl');
  return openStore(
    databaseUrl
      ? { databaseUrl, operation: purpose.operation }
      : { stateDir, operation: purpose.operation, openTimeoutMs: purpose.waitMs },
  );
}

export async function withStore<T>(flags: StoreFlags, io: CliIo, purpose: OpenPurpose, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStoreFromFlags(flags, io, purpose);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
