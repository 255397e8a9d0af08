import { hostname } from 'node:os';
import type {
  ApplyRecord,
  ApplyRecordInput,
  LiveObject,
  LiveSummary,
  LockInfo,
  ObjectKey,
  ObjectKind,
  ObjectWrite,
} from '../model/index.js';
import { listHistory, recordApply } from './applyHistory.js';
import { getObjects, listObjects, listSummaries, readRevision } from './readObjects.js';
import { STORE_LOCK_KEY, type SqlClient, type SqlQueryable } from './sql/sqlClient.js';
import type { LockRequest, Store, StoreTransaction } from './store.js';
import { acquireStoreLock, clearLockRow, readLockHolder, writeLockRow } from './storeLock.js';
import { deleteObjects, upsertObjects } from './writeObjects.js';

/**
 * The Store over any SqlClient: the same code and SQL for PostgreSQL and PGlite. Writes happen only inside
 * `withLock`, in one transaction on the session that holds the lock; a throw or a crash rolls all of it back.
 * The caller must have run `migrate(client)`; `openStore` does both.
 */
export function createSqlStore(client: SqlClient): Store {
  return new SqlStore(client);
}

class SqlStore implements Store {
  readonly engine: 'pglite' | 'postgres';
  readonly description: string;
  /** The lock as held by a withLock of this instance, answered without SQL (on PGlite SQL waits for it). */
  #held: LockInfo | null = null;
  #closed = false;

  constructor(private readonly client: SqlClient) {
    this.engine = client.engine;
    this.description = client.description;
  }

  revision(): Promise<number> {
    return readRevision(this.client);
  }

  listSummaries(filter?: { kind?: ObjectKind }): Promise<LiveSummary[]> {
    return listSummaries(this.client, filter);
  }

  listObjects(filter?: { kind?: ObjectKind }): Promise<LiveObject[]> {
    return listObjects(this.client, filter);
  }

  getObjects(keys: ObjectKey[]): Promise<LiveObject[]> {
    return getObjects(this.client, keys);
  }

  history(limit?: number): Promise<ApplyRecord[]> {
    return listHistory(this.client, limit);
  }

  async currentLock(): Promise<LockInfo | null> {
    return this.#held ?? (await readLockHolder(this.client));
  }

  async withLock<T>(request: LockRequest, work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const session = await this.client.session();
    let broken = false;
    const markBroken = (): void => {
      broken = true;
    };
    try {
      await acquireStoreLock(session, request, () => this.currentLock());
      const info: LockInfo = {
        holder: request.holder,
        operation: request.operation,
        since: new Date().toISOString(),
        pid: process.pid,
        host: hostname(),
      };
      this.#held = info;
      try {
        await writeLockRow(session, info);
        return await session.transaction(async (tx) => {
          const [{ revision }] = await tx.query<{ revision: number }>(
            'update dqctl.store_state set revision = revision + 1 returning revision',
          );
          return work(new SqlTransaction(tx, revision));
        });
      } finally {
        // If the connection is gone these fail, and the server has already dropped the lock with it.
        await clearLockRow(session).catch(markBroken);
        await session.advisoryUnlock(STORE_LOCK_KEY).catch(markBroken);
        this.#held = null;
      }
    } finally {
      await session.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.client.close();
  }
}

class SqlTransaction implements StoreTransaction {
  constructor(
    private readonly sql: SqlQueryable,
    private readonly storeRevision: number,
  ) {}

  async revision(): Promise<number> {
    return this.storeRevision;
  }

  listSummaries(filter?: { kind?: ObjectKind }): Promise<LiveSummary[]> {
    return listSummaries(this.sql, filter);
  }

  listObjects(filter?: { kind?: ObjectKind }): Promise<LiveObject[]> {
    return listObjects(this.sql, filter);
  }

  getObjects(keys: ObjectKey[]): Promise<LiveObject[]> {
    return getObjects(this.sql, keys);
  }

  upsertObjects(objects: ObjectWrite[]): Promise<void> {
    return upsertObjects(this.sql, objects, this.storeRevision);
  }

  deleteObjects(keys: ObjectKey[]): Promise<void> {
    return deleteObjects(this.sql, keys);
  }

  recordApply(record: ApplyRecordInput): Promise<ApplyRecord> {
    return recordApply(this.sql, record, this.storeRevision);
  }
}
