import pg from 'pg';
import { DqError } from '../model/index.js';
import { resolveConnection, type ResolvedConnection } from './connectionConfig.js';
import { classifyDataSourceError, failureReason } from './dataSourceErrors.js';
import { APPLICATION_NAME, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, type DataSourceSession, type SessionOptions, type SqlTarget } from './dataSource.js';
import type { SqlDialect } from './dialects/dialect.js';
import { POSTGRESQL } from './dialects/postgresql.js';
import { SlottedDataSource } from './slottedDataSource.js';

/**
 * One monitored PostgreSQL database (one connection of the live store): a `pg` pool of at most
 * `parallel_jobs_limit` connections (default 2) named `application_name = dqctl`. Work waits for a free slot
 * (FIFO, no time limit, abortable) before it takes a connection, so the pool never queues and the connect
 * timeout (default 10 s) measures only the data source.
 *
 * Every statement runs inside a READ ONLY transaction with a statement timeout (default 5 minutes) and the
 * time zone UTC, set with `set_config(…, true)` (local to the transaction, quoted literals sent with the `begin` in
 * one round trip; no startup parameters, so poolers that refuse them work too). A session that ends well returns
 * its connection with the read-only transaction still open and its `commit` owed: the next session on that
 * connection sends it in the same round trip as its `begin` (a check run's tables, one after the other: 2 round
 * trips per table instead of 3), and a connection nobody takes before the event loop's next turn sends it alone,
 * so no snapshot stays open while idle. Aborting the signal cancels the running statement with
 * `pg_cancel_backend(pid)` from a separate connection, then the connection is closed rather than reused, so a
 * late cancel can never hit someone else's statement.
 *
 * Secrets are resolved when the pool is created (first use); an authentication failure drops the pool, so a
 * rotated credential is read again on the next use. Every failure is a coded DqError (dataSourceErrors.ts).
 */
/** int8 as a JS number when it fits, else as text; everything else as the driver parses it. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 && format !== 'binary') {
      return (text: string) => {
        const value = Number(text);
        return Number.isSafeInteger(value) ? value : text;
      };
    }
    return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
  },
} as pg.CustomTypesConfig;

interface OpenPool {
  pool: pg.Pool;
  resolved: ResolvedConnection;
}

export class PostgresDataSource extends SlottedDataSource {
  readonly dialect: SqlDialect = POSTGRESQL;
  private opening: Promise<OpenPool> | undefined;
  /** Connections back in the pool whose last session's read-only transaction is not committed yet. */
  private readonly owingCommit = new WeakSet<pg.PoolClient>();

  /** PostgreSQL reads the quoted table itself. */
  async sqlTarget(): Promise<SqlTarget> {
    return { dialect: this.dialect };
  }

  /** A read-only transaction on one connection of the pool (one snapshot with `snapshot: true`). */
  protected async runSession<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions): Promise<T> {
    const { pool, resolved } = await this.pool();
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        const failure = classifyDataSourceError(error, this.connectionName, 'connect', resolved.secrets);
        if (failureReason(failure) === 'auth_failed') this.dropPool();
        throw failure;
      }
      try {
        return await this.run(client, resolved, work, options);
      } catch (error) {
        // an idle connection of the pool that the server ended (a restart, pg_terminate_backend) before the driver
        // saw it go: nothing ran on it, so the session starts again once on a new one
        if (error instanceof DroppedBeforeWork && attempt === 1) continue;
        throw error instanceof DroppedBeforeWork ? error.failure : error;
      }
    }
  }

  private async run<T>(client: pg.PoolClient, resolved: ResolvedConnection, work: (session: DataSourceSession) => Promise<T>, options: SessionOptions): Promise<T> {
    const { signal } = options;
    let lost: unknown;
    const onError = (error: unknown) => {
      lost ??= error;
    };
    client.on('error', onError);
    const pid = (client as unknown as { processID: number }).processID;
    let cancelling: Promise<void> | undefined;
    const onAbort = () => {
      cancelling ??= this.cancelBackend(pid, resolved);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let reusable = false;
    let owesCommit = false;
    try {
      const settings: [string, string][] = [
        ['statement_timeout', String(Math.max(1, Math.round(options.statementTimeoutMs ?? this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS)))],
        ['TimeZone', 'UTC'],
        ...Object.entries(options.settings ?? {}),
      ];
      // the transaction and its settings in one round trip: one simple-query string (no bound values, so the
      // names and values are quoted literals)
      // the commit the connection's previous session owes, if any, in the same round trip
      const owed = this.owingCommit.delete(client);
      try {
        await client.query(
          `${owed ? 'commit; ' : ''}${options.snapshot ? 'begin isolation level repeatable read read only' : 'begin read only'}; ` +
            `select ${settings.map(([name, value]) => `set_config(${pg.escapeLiteral(name)}, ${pg.escapeLiteral(value)}, true)`).join(', ')}`,
        );
      } catch (error) {
        const failure = signal?.aborted ? undefined : classifyDataSourceError(lost ?? error, this.connectionName, 'query', resolved.secrets);
        if (failure && failureReason(failure) === 'dropped') throw new DroppedBeforeWork(failure);
        throw error;
      }
      const session: DataSourceSession = {
        backendPid: pid,
        query: async <R extends object>(text: string, params: readonly unknown[] = []) => {
          if (signal?.aborted) throw this.cancelled();
          try {
            const result = await client.query<R>(text, params as unknown[]);
            return result.rows;
          } catch (error) {
            if (signal?.aborted) throw this.cancelled();
            // coded at once (table gone, timeout, connection lost), so a caller that goes on knows what failed
            throw lost !== undefined || isDriverError(error) ? classifyDataSourceError(lost ?? error, this.connectionName, 'query', resolved.secrets) : error;
          }
        },
      };
      const value = await work(session);
      // read only: what it read stands whether or not the commit is sent yet; it is owed (see the class's comment)
      reusable = !signal?.aborted && lost === undefined;
      owesCommit = reusable;
      return value;
    } catch (error) {
      if (error instanceof DroppedBeforeWork) throw error;
      if (signal?.aborted) throw this.cancelled();
      let failure: unknown = error;
      if (lost !== undefined || (!(error instanceof DqError) && isDriverError(error))) {
        failure = classifyDataSourceError(lost ?? error, this.connectionName, 'query', resolved.secrets);
      }
      // an SQL error (a table that is gone, a timeout) leaves a healthy connection: roll back and keep it
      if (lost === undefined && failureReason(failure) !== 'dropped') {
        reusable = await client.query('rollback').then(
          () => lost === undefined && !signal?.aborted,
          () => false,
        );
      }
      throw failure;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (cancelling) {
        await cancelling;
        reusable = false;
      }
      client.off('error', onError);
      if (reusable && owesCommit) this.owe(client);
      // A connection that failed, was cancelled or lost is closed, never handed to the next session.
      client.release(reusable ? undefined : true);
    }
  }

  /**
   * The connection goes back to the pool with its read-only transaction open: the next session on it commits it
   * with its `begin`; if none took it by the event loop's next turn, the commit is sent alone (a failure is the
   * pool's to see: a lost idle connection is dropped from it).
   */
  private owe(client: pg.PoolClient): void {
    this.owingCommit.add(client);
    setImmediate(() => {
      if (!this.owingCommit.delete(client)) return;
      client.query('commit').catch(() => undefined);
    });
  }

  private cancelled(): DqError {
    return this.failure('cancelled');
  }

  /** pg_cancel_backend(pid) from a connection of its own (the pool may be full); failures are ignored. */
  private async cancelBackend(pid: number, resolved: ResolvedConnection): Promise<void> {
    const client = new pg.Client({
      ...resolved.config,
      application_name: `${APPLICATION_NAME} (cancel)`,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select pg_cancel_backend($1)', [pid]);
    } catch {
      // the connection is closed after the cancel anyway, which ends the statement at the latest then
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  protected open(): Promise<OpenPool> {
    return this.pool();
  }

  private pool(): Promise<OpenPool> {
    if (!this.opening) {
      const opening = (async (): Promise<OpenPool> => {
        const resolved = await resolveConnection(this.connectionName, this.spec, this.secretContext);
        const pool = new pg.Pool({
          ...resolved.config,
          max: this.maxConnections,
          application_name: APPLICATION_NAME,
          connectionTimeoutMillis: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
          idleTimeoutMillis: this.options.idleTimeoutMs ?? 30_000,
          allowExitOnIdle: true,
          keepAlive: true,
          types: TYPES,
        });
        // an idle connection that dies (server restart) is dropped by the pool; never an unhandled 'error'
        pool.on('error', () => undefined);
        return { pool, resolved };
      })();
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
  }

  /** Forget the pool (after an authentication failure): the next session resolves the secrets again. */
  private dropPool(): void {
    const opening = this.opening;
    this.opening = undefined;
    void opening?.then(({ pool }) => pool.end()).catch(() => undefined);
  }

  /** Closes the pool; sessions still running finish first (their connections close when released). */
  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    try {
      const { pool } = await opening;
      await pool.end();
    } catch {
      // a pool that never opened has nothing to close
    }
  }
}

function isDriverError(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return true;
  return typeof message === 'string' && /connection|terminated|timeout/i.test(message);
}

/** The session's connection was found gone at its first statement, before any of its work ran (runSession). */
class DroppedBeforeWork extends Error {
  constructor(readonly failure: DqError) {
    super(failure.message);
  }
}
