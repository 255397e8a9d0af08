/**
 * A monitored data source as jobs and use cases see it, whatever its engine: sessions of read-only statements
 * with bound `$n` values, at most `parallel_jobs_limit` at a time, abortable, every failure a coded DqError
 * (dataSourceErrors.ts) with secrets redacted; and, per table, what its sensor queries read and in which SQL
 * dialect (`sqlTarget`). PostgreSQL (postgresDataSource.ts) and DuckDB over files (duckdb/duckdbDataSource.ts)
 * implement it; DataSources picks one by the connection's provider_type.
 */
import type { JsonObject } from '../model/index.js';
import type { SqlDialect } from './dialects/dialect.js';
import type { SourceCatalog } from './sourceCatalog.js';

export interface DataSourceOptions {
  /** Default statement timeout (5 minutes). */
  statementTimeoutMs?: number;
  /** Time to open a connection (10 s). */
  connectTimeoutMs?: number;
  /** Idle connections are closed after this (30 s). */
  idleTimeoutMs?: number;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const APPLICATION_NAME = 'dqctl';

export interface SessionOptions {
  signal?: AbortSignal;
  /** Statement timeout of this session's statements (default: the data source's). */
  statementTimeoutMs?: number;
  /** One snapshot for every statement of the session (REPEATABLE READ READ ONLY). */
  snapshot?: boolean;
  /** More transaction-local settings, e.g. `{ jit: 'off' }` (PostgreSQL; other sources ignore them). */
  settings?: Readonly<Record<string, string>>;
}

export interface DataSourceSession {
  /** One statement; `$1…` bind parameters. Refused once the signal is aborted. */
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** `pg_backend_pid()` of the connection the session runs on (PostgreSQL only). */
  readonly backendPid?: number;
  /** The source's catalog when it is not PostgreSQL's (introspect.ts reads pg_catalog otherwise). */
  readonly catalog?: SourceCatalog;
}


/** What the sensor queries of one table read, and in which dialect (TableQueryRequest's `dialect` and `relation`). */
export interface SqlTarget {
  dialect: SqlDialect;
  /** The FROM item in place of the quoted `"schema"."table"` (files on DuckDB); absent: the quoted name. */
  relation?: string;
  /**
   * The FROM item of another table of the source, named in a sensor parameter (foreign_table, referenced_table):
   * its files on DuckDB; absent: the quoted `"schema"."table"`.
   */
  tableRelation?: (schema: string, table: string) => string;
  /**
   * The table's column types as the source reports them (DuckDB's DESCRIBE of the files), asked for only when a
   * sensor can use them (sourceColumnTypesWanted); undefined when the source cannot tell.
   */
  describeColumns?: () => Promise<Readonly<Record<string, string>> | undefined>;
}

export interface DataSource {
  readonly connectionName: string;
  /** Sessions that may run at the same time (parallel_jobs_limit). */
  readonly maxConnections: number;
  /** Sessions running now. */
  readonly activeSessions: number;
  readonly dialect: SqlDialect;
  /** The source's catalog when it is not PostgreSQL's (introspect.ts reads pg_catalog otherwise). */
  readonly catalog?: SourceCatalog;
  /** One statement in its own read-only session. */
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[], options?: SessionOptions): Promise<R[]>;
  /** Several statements in one read-only session (one snapshot with `snapshot: true`). */
  session<T>(work: (session: DataSourceSession) => Promise<T>, options?: SessionOptions): Promise<T>;
  /** A session on a slot that is free now, or undefined without waiting (see SlottedDataSource.spareSession). */
  spareSession?<T>(work: (session: DataSourceSession) => Promise<T>, options?: SessionOptions): Promise<T> | undefined;
  /**
   * What the queries of a table read: `tableSpec` is the table's spec as the live store holds it (a DuckDB
   * table's `file_format`). Throws a coded DqError when the table cannot be read (no folder for its schema).
   */
  sqlTarget(schema: string, table: string, tableSpec?: JsonObject): Promise<SqlTarget>;
  /**
   * Starts opening what the first session needs (DuckDB's engine and database, a driver and its pool) without
   * waiting, so that it overlaps other work of the caller. A failure is not reported here: the first session
   * opens again and reports it.
   */
  prepare(): void;
  /** Closes the source; sessions still running finish first. */
  close(): Promise<void>;
}
