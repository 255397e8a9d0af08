import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../src/store/migrate.js';
import { openSqlClient } from '../../src/store/sql/openSqlClient.js';
import type { SqlClient, SqlQueryable } from '../../src/store/sql/sqlClient.js';
import { createSqlStore } from '../../src/store/sqlStore.js';
import type { OpenStoreOptions, Store } from '../../src/store/store.js';
import { createTestDatabase } from './testDatabase.js';

/**
 * The two store engines as test fixtures, so one suite runs on both (`describe.each(STORE_ENGINES)`):
 * PGlite in a fresh temporary folder, PostgreSQL in a database of its own. Open one per test file (PGlite takes
 * seconds to initialise) and `reset()` between tests.
 */
export interface StoreFixture {
  readonly engine: 'pglite' | 'postgres';
  /** Opens this same store again: in a second Store instance (PostgreSQL) or a child process. */
  readonly options: OpenStoreOptions;
  /** The open store; replaced by `reopen()`. */
  readonly store: Store;
  /** Raw SQL on the store's database, for setup and assertions (on PGlite, not while a withLock runs). */
  readonly sql: SqlQueryable;
  /** Empties the tables and sets the revision back to 0. */
  reset(): Promise<void>;
  /** Closes the store, so another process may open it (PGlite allows one process per folder). */
  closeStore(): Promise<void>;
  /** Opens the store again (after closeStore, or to check what a fresh open sees). */
  reopen(): Promise<Store>;
  dispose(): Promise<void>;
}

export interface StoreEngine {
  engine: 'pglite' | 'postgres';
  setup(): Promise<StoreFixture>;
}

export const STORE_ENGINES: StoreEngine[] = [
  {
    engine: 'pglite',
    async setup() {
      const stateDir = await mkdtemp(join(tmpdir(), 'dqctl-store-'));
      return fixture('pglite', { stateDir, openTimeoutMs: 10_000 }, () => rm(stateDir, { recursive: true, force: true }));
    },
  },
  {
    engine: 'postgres',
    async setup() {
      const database = await createTestDatabase();
      return fixture('postgres', { databaseUrl: database.url }, () => database.drop());
    },
  },
];

async function fixture(
  engine: 'pglite' | 'postgres',
  options: OpenStoreOptions,
  cleanup: () => Promise<void>,
): Promise<StoreFixture> {
  let client: SqlClient | null = null;
  let store: Store | null = null;

  const open = async (): Promise<Store> => {
    const opened = await openSqlClient(options);
    try {
      await migrate(opened);
    } catch (error) {
      await opened.close();
      throw error;
    }
    client = opened;
    store = createSqlStore(opened);
    return store;
  };
  const closeStore = async (): Promise<void> => {
    const open = store;
    store = null;
    client = null;
    await open?.close();
  };
  await open();

  return {
    engine,
    options,
    get store(): Store {
      if (!store) throw new Error('the fixture store is closed; call reopen()');
      return store;
    },
    get sql(): SqlQueryable {
      if (!client) throw new Error('the fixture store is closed; call reopen()');
      return client;
    },
    async reset() {
      if (!client) await open();
      await client!.exec(`
        truncate dqctl.objects, dqctl.apply_history, dqctl.check_results, dqctl.error_samples, dqctl.jobs, dqctl.statistics, dqctl.incidents, dqctl.notification_outbox, dqctl.applied_inputs, dqctl.applied_environments, dqctl.table_status restart identity;
        delete from dqctl.lock;
        update dqctl.store_state set revision = 0;`);
    },
    closeStore,
    async reopen() {
      await closeStore();
      return open();
    },
    async dispose() {
      try {
        await closeStore();
      } finally {
        await cleanup();
      }
    },
  };
}
