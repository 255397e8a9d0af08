import { join } from 'node:path';
import type { OpenStoreOptions } from '../store.js';
import { openPgliteClient, type PgliteClientOptions } from './pgliteClient.js';
import { openPostgresClient } from './postgresClient.js';
import type { SqlClient } from './sqlClient.js';

/**
 * A URL selects PostgreSQL; without one the embedded PGlite store in `stateDir` (default `./.dqctl`), a new one
 * filled by `seedNewDatabase` when given (see PgliteClientOptions).
 */
export async function openSqlClient(
  options: OpenStoreOptions,
  newStore: Pick<PgliteClientOptions, 'seedNewDatabase'> = {},
): Promise<SqlClient> {
  if (options.databaseUrl) return openPostgresClient(options.databaseUrl);
  return openPgliteClient({
    stateDir: options.stateDir ?? join(process.cwd(), '.dqctl'),
    openTimeoutMs: options.openTimeoutMs ?? 30_000,
    operation: options.operation ?? 'open',
    lockTtlMs: options.lockTtlMs,
    seedNewDatabase: newStore.seedNewDatabase,
  });
}
