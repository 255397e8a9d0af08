import { join } from 'node:path';
import type { OpenStoreOptions } from '../store.js';
import type { PgliteClientOptions } from './pgliteClient.js';
import { openPostgresClient } from './postgresClient.js';
import type { SqlClient } from './sqlClient.js';

/**
 * A URL selects PostgreSQL; without one the embedded PGlite store in `stateDir` (default `./.dqctl`), a new one
 * filled by `seedNewDatabase` when given (see PgliteClientOptions). PGlite is loaded only when it is the store: a
 * command on a PostgreSQL store does not pay its loading (~0.15 s of CPU).
 */
export async function openSqlClient(
  options: OpenStoreOptions,
  newStore: Pick<PgliteClientOptions, 'seedNewDatabase'> = {},
): Promise<SqlClient> {
  if (options.databaseUrl) return openPostgresClient(options.databaseUrl);
  const { openPgliteClient } = await import('./pgliteClient.js');
  return openPgliteClient({
    stateDir: options.stateDir ?? join(process.cwd(), '.dqctl'),
    openTimeoutMs: options.openTimeoutMs ?? 30_000,
    operation: options.operation ?? 'open',
    lockTtlMs: options.lockTtlMs,
    seedNewDatabase: newStore.seedNewDatabase,
  });
}
