import { migrate } from './migrate.js';
import { seedFromTemplate } from './pgliteTemplate.js';
import { openSqlClient } from './sql/openSqlClient.js';
import { createSqlStore } from './sqlStore.js';
import type { OpenStoreOptions, Store } from './store.js';

/**
 * Opens the live store and brings its schema up to date: PostgreSQL when `databaseUrl` is given, else the
 * embedded PGlite store in `stateDir` (a new one copied from the template, pgliteTemplate.ts). Fails with
 * STORE_UNREACHABLE (cannot connect or create the folder), LOCK_TIMEOUT (another process has the embedded store
 * open) or STORE_INCOMPATIBLE (a newer dqctl wrote it).
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const client = await openSqlClient(options, { seedNewDatabase: (dataDir) => seedFromTemplate(dataDir) });
  try {
    await migrate(client);
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return createSqlStore(client, { lockTtlMs: options.lockTtlMs });
}
