import { access, mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { acquireStateDirLock, type StateDirLock } from './stateDirLock.js';
import { storeUnreachable } from './storeUnreachable.js';
import {
  INT8_OID,
  parseInt8,
  type AdvisoryKey,
  type CopyData,
  type SqlClient,
  type SqlParam,
  type SqlQueryable,
  type SqlSession,
} from './sqlClient.js';

/**
 * The embedded engine: PGlite (PostgreSQL in WASM) in `<stateDir>/pglite`, held exclusively through the
 * `<stateDir>/lock` file. PGlite has a single connection: a transaction makes every other query of the process
 * wait until it ends (so nobody reads uncommitted rows), and session-level advisory locks are replaced by an
 * in-process lock, which is enough because no other process can open the folder.
 */
export interface PgliteClientOptions {
  stateDir: string;
  /** How long to wait for another process that has the folder open. */
  openTimeoutMs: number;
  /** Written in the lock file for whoever waits on it. */
  operation: string;
  /** A folder lock from another host untouched this long is taken over (default 15 min). */
  lockTtlMs?: number;
  /**
   * Fills a data folder that holds no cluster yet (a new store), under the folder lock; false leaves it to PGlite's
   * initdb. The store's template (src/store/pgliteTemplate.ts); without it every new store runs initdb.
   */
  seedNewDatabase?: (dataDir: string) => Promise<boolean>;
}

export async function openPgliteClient(options: PgliteClientOptions): Promise<SqlClient> {
  const stateDir = resolve(options.stateDir);
  const dataDir = join(stateDir, 'pglite');
  const description = `pglite:${dataDir}`;

  try {
    await mkdir(stateDir, { recursive: true });
  } catch (error) {
    throw storeUnreachable(description, error, 'cannot create the store folder for');
  }

  let fileLock: StateDirLock;
  try {
    fileLock = await acquireStateDirLock(stateDir, { timeoutMs: options.openTimeoutMs, operation: options.operation, ttlMs: options.lockTtlMs });
  } catch (error) {
    throw storeUnreachable(description, error, 'cannot lock the store folder for');
  }

  let db: PGlite;
  try {
    if (options.seedNewDatabase && !(await hasCluster(dataDir))) await options.seedNewDatabase(dataDir);
    db = await PGlite.create(dataDir, { parsers: { [INT8_OID]: parseInt8 } });
  } catch (error) {
    await fileLock.release();
    throw storeUnreachable(description, error);
  }

  /** Advisory keys held in this process, and by which session. */
  const heldBy = new Map<string, object>();
  const keyId = (key: AdvisoryKey): string => `${key.namespace}:${key.id}`;

  const client: SqlClient = {
    engine: 'pglite',
    description,
    ...wrap(db),
    async session(): Promise<SqlSession> {
      const owner = {};
      const unlisten: Array<() => Promise<void>> = [];
      return {
        ...wrap(db),
        async listen(channel: string, onPayload: (payload: string) => void): Promise<void> {
          unlisten.push(await db.listen(channel, onPayload));
        },
        async tryAdvisoryLock(key: AdvisoryKey): Promise<boolean> {
          if (heldBy.has(keyId(key))) return false;
          heldBy.set(keyId(key), owner);
          return true;
        },
        async advisoryUnlock(key: AdvisoryKey): Promise<void> {
          if (heldBy.get(keyId(key)) === owner) heldBy.delete(keyId(key));
        },
        async transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
          return db.transaction((tx) => work(wrap(tx)));
        },
        async release(): Promise<void> {
          // Like a closed connection: the session's locks and its LISTENs go with it.
          for (const [key, holder] of heldBy) if (holder === owner) heldBy.delete(key);
          for (const stop of unlisten.splice(0)) await stop().catch(() => {});
        },
      };
    },
    async holdsAdvisoryLock(key: AdvisoryKey): Promise<boolean> {
      // Every session shares one backend here, so the in-process state is the truth.
      return heldBy.has(keyId(key));
    },
    async close(): Promise<void> {
      try {
        if (!db.closed) await db.close();
      } finally {
        await fileLock.release();
      }
    },
  };
  return client;
}

async function hasCluster(dataDir: string): Promise<boolean> {
  return access(join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

function wrap(target: PGlite | Transaction): SqlQueryable {
  return {
    async query<R extends object>(text: string, params: readonly SqlParam[] = []): Promise<R[]> {
      return (await target.query<R>(text, params as SqlParam[])).rows;
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
    },
    async copyFrom(statement: string, data: CopyData): Promise<void> {
      // PGlite reads a COPY's input from the blob given with the query, named /dev/blob
      const fromBlob = statement.replace(/\bfrom\s+stdin\b/i, "from '/dev/blob'");
      if (fromBlob === statement) throw new Error(`not a COPY … FROM STDIN statement: ${statement.slice(0, 80)}`);
      if (typeof data === 'string' || 'file' in data) {
        await target.query(fromBlob, [], { blob: new Blob([typeof data === 'string' ? data : await readFile(data.file)]) });
        return;
      }
      // no stream into PGlite: one COPY per piece, so that only one piece is held at a time
      for (const piece of data.pieces) await target.query(fromBlob, [], { blob: new Blob([piece]) });
    },
  };
}
