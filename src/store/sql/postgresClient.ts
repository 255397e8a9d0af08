import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { describeDatabaseUrl } from './describeDatabaseUrl.js';
import { isConnectionError, storeUnreachable } from './storeUnreachable.js';
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
 * The PostgreSQL engine: a small `pg` pool. A dead server or a wrong host fails within
 * `connectionTimeoutMillis` as STORE_UNREACHABLE (URL shown without its password); an idle connection dropped
 * by the server is discarded by the pool instead of crashing the process.
 */
export interface PostgresClientOptions {
  /** Pool size; withLock holds one connection for its whole duration. */
  maxConnections?: number;
  connectionTimeoutMs?: number;
}

const typeParsers = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === INT8_OID) return parseInt8;
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as pg.CustomTypesConfig;

export async function openPostgresClient(databaseUrl: string, options: PostgresClientOptions = {}): Promise<SqlClient> {
  const description = describeDatabaseUrl(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: 'dqctl',
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    idleTimeoutMillis: 10_000,
    types: typeParsers,
  });
  // Errors on idle connections (server restart, network drop) are reported by the next query that needs one.
  pool.on('error', () => {});

  const translate = (error: unknown): unknown =>
    isConnectionError(error) ? storeUnreachable(description, error, 'lost the connection to the store') : error;

  const onPool = (): SqlQueryable => ({
    async query<R extends object>(text: string, params: readonly SqlParam[] = []): Promise<R[]> {
      try {
        return (await pool.query(text, params as SqlParam[])).rows as R[];
      } catch (error) {
        throw translate(error);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await pool.query(script);
      } catch (error) {
        throw translate(error);
      }
    },
    async copyFrom(statement: string, data: CopyData): Promise<void> {
      const connection = await pool.connect().catch((error: unknown) => {
        throw translate(error);
      });
      let broken = false;
      try {
        await copyOn(connection, statement, data);
      } catch (error) {
        broken = isConnectionError(error);
        throw translate(error);
      } finally {
        connection.release(broken || undefined);
      }
    },
  });

  const client: SqlClient = {
    engine: 'postgres',
    description,
    ...onPool(),
    async session(sessionOptions: { dedicated?: boolean } = {}): Promise<SqlSession> {
      if (sessionOptions.dedicated) return dedicatedSession();
      let connection: pg.PoolClient;
      try {
        connection = await pool.connect();
      } catch (error) {
        throw storeUnreachable(description, error, 'cannot connect to the store');
      }
      return postgresSession(connection, translate);
    },
    async holdsAdvisoryLock(key: AdvisoryKey, backendPid: number): Promise<boolean> {
      const rows = await client.query<{ held: boolean }>(
        `select exists (
           select 1 from pg_locks
            where locktype = 'advisory' and granted and pid = $1
              and classid = $2::oid and objid = $3::oid and objsubid = 2
              and database = (select oid from pg_database where datname = current_database())
         ) as held`,
        [backendPid, String(key.namespace), String(key.id)],
      );
      return rows[0]?.held === true;
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };

  /** A connection outside the pool, closed (not returned) on release. */
  async function dedicatedSession(): Promise<SqlSession> {
    const connection = new pg.Client({
      connectionString: databaseUrl,
      application_name: 'dqctl',
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
      types: typeParsers,
    });
    connection.on('error', () => {}); // a dead connection is reported by the next query on it
    try {
      await connection.connect();
    } catch (error) {
      await connection.end().catch(() => {});
      throw storeUnreachable(description, error, 'cannot connect to the store');
    }
    const release = () => void connection.end().catch(() => {});
    return postgresSession(Object.assign(connection, { release }) as unknown as pg.PoolClient, translate);
  }

  // Connect once now, so an unreachable server fails at open with a clear message rather than at first use.
  try {
    const probe = await pool.connect();
    probe.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw storeUnreachable(description, error, 'cannot connect to the store');
  }
  return client;
}

function postgresSession(connection: pg.PoolClient, translate: (error: unknown) => unknown): SqlSession {
  // A checked-out client with no listener would crash the process on a socket error.
  const onError = (): void => {};
  connection.on('error', onError);
  const queryable: SqlQueryable = {
    async query<R extends object>(text: string, params: readonly SqlParam[] = []): Promise<R[]> {
      try {
        return (await connection.query(text, params as SqlParam[])).rows as R[];
      } catch (error) {
        throw translate(error);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await connection.query(script);
      } catch (error) {
        throw translate(error);
      }
    },
    async copyFrom(statement: string, data: CopyData): Promise<void> {
      try {
        await copyOn(connection, statement, data);
      } catch (error) {
        throw translate(error);
      }
    },
  };
  let listening = false;
  return {
    ...queryable,
    async listen(channel: string, onPayload: (payload: string) => void): Promise<void> {
      listening = true;
      connection.on('notification', (message) => {
        if (message.channel === channel) onPayload(message.payload ?? '');
      });
      await queryable.exec(`listen "${channel.replaceAll('"', '""')}"`);
    },
    async tryAdvisoryLock(key: AdvisoryKey): Promise<boolean> {
      const rows = await queryable.query<{ locked: boolean }>('select pg_try_advisory_lock($1, $2) as locked', [
        key.namespace,
        key.id,
      ]);
      return rows[0]?.locked === true;
    },
    async advisoryUnlock(key: AdvisoryKey): Promise<void> {
      await queryable.query('select pg_advisory_unlock($1, $2)', [key.namespace, key.id]);
    },
    async transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      await queryable.query('begin');
      let result: T;
      try {
        result = await work(queryable);
      } catch (error) {
        await queryable.query('rollback').catch(() => {});
        throw error;
      }
      await queryable.query('commit');
      return result;
    },
    async release(broken = false): Promise<void> {
      connection.off('error', onError);
      connection.removeAllListeners('notification');
      // a connection that listened would go on receiving notifications in the pool: close it instead
      connection.release(broken || listening ? true : undefined);
    },
  };
}

/** Streams `data` (or a file) into `COPY … FROM STDIN` on one connection (pg-copy-streams speaks the COPY sub-protocol). */
async function copyOn(connection: pg.PoolClient | pg.Client, statement: string, data: CopyData): Promise<void> {
  const input =
    typeof data === 'string'
      ? Readable.from([Buffer.from(data, 'utf8')])
      : 'file' in data
        ? createReadStream(data.file)
        : Readable.from(data.pieces, { objectMode: false }); // made as the server takes them (backpressure)
  await pipeline(input, connection.query(copyFromStdin(statement)));
}
