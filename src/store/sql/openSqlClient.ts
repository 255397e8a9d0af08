import { join } from 'node:path';
import type { OpenStoreOptions } from '../store.js';
import { openPgliteClient } from './pgliteClient.js';
import { openPostgresClient } from './postgresClient.js';
import type { SqlClient } from './sqlClient.js';

/** A URL selects PostgreSQL; without one the embedded PGlite store in `stateDir` (default `./.dqctl`). */
export async function openSqlClient(options: OpenStoreOptions): Promise<SqlClient> {
  if (options.databaseUrl) return openPostgresClient(options.databaseUrl);
  return openPgliteClient({
    stateDir: options.stateDir ?? join(process.cwd(), '.dqctl'),
    openTimeoutMs: options.openTimeoutMs ?? 30_000,
    operation: options.operation ?? 'open',
    lockTtlMs: options.lockTtlMs,
  });
}
