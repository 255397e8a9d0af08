import { toInt64, type Int64 } from '../../model/int64.js';

/**
 * The one seam between the store and its two engines (PostgreSQL through `pg`, embedded PGlite).
 * Everything above it sends the same SQL and receives the same JS values from both:
 * int8 as number (a bigint beyond 2^53, model/int64.ts), jsonb parsed, text as string. Timestamps are formatted in SQL (see `isoTimestamp`),
 * so no engine-specific Date handling leaks out.
 */

export type SqlParam = string | number | boolean | null;

export interface SqlQueryable {
  /** One statement with bind parameters ($1, $2 …); never concatenate values into `text`. */
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly SqlParam[]): Promise<R[]>;
  /** A script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * `COPY <table> (<columns>) FROM STDIN <options>` with `data` as the input (PostgreSQL's bulk load: the
   * fastest way in, no statement per row and no parameter to parse). `statement` names the table and columns,
   * constants of the caller; `data` is text in the statement's format, `{ file }`: the file holding it
   * (streamed to PostgreSQL; PGlite reads it whole, so keep such files small), or pieces of that text made as they
   * are sent (`CopyPieces`: PostgreSQL streams them into one COPY, PGlite runs one COPY per piece, so each piece
   * must end at the end of a row). Call it inside a transaction, where a failure leaves none of the rows.
   */
  copyFrom(statement: string, data: CopyData): Promise<void>;
}

/** COPY's input: the text, a file of it, or pieces of it made as they are sent (each ending at a row's end). */
export type CopyData = string | { file: string } | CopyPieces;

export interface CopyPieces {
  pieces: Iterable<string>;
}

/**
 * One database session, held until `release()`: the locked transaction runs on it so that the session-level
 * lock, the lock row and the transaction all belong to the same connection.
 */
export interface SqlSession extends SqlQueryable {
  /**
   * `pg_try_advisory_lock(namespace, key)` on this session. Session-level: it dies with the connection, so a
   * killed process never leaves it behind. On PGlite every session of the process shares one backend (where
   * advisory locks are re-entrant), so the adapter keeps an in-process lock instead; the data-directory file
   * lock keeps other processes out.
   */
  tryAdvisoryLock(key: AdvisoryKey): Promise<boolean>;
  advisoryUnlock(key: AdvisoryKey): Promise<void>;
  /**
   * BEGIN, `work`, COMMIT; ROLLBACK and rethrow when `work` throws. While it runs, queries of other sessions
   * neither see nor join it (on PGlite they wait for it to end).
   */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on this session: `onPayload` gets the payload of every NOTIFY on `channel`, from any session of any
   * process on the database, until the session is released (a listening connection is closed, not pooled).
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  /** Give the connection back; `broken` closes it instead (after an error that may have left it dirty). */
  release(broken?: boolean): Promise<void>;
}

export interface SqlClient extends SqlQueryable {
  readonly engine: 'pglite' | 'postgres';
  /** Human description without secrets. */
  readonly description: string;
  /**
   * A session from the pool; `dedicated`: a connection of its own, outside the pool, for a session held for the
   * life of the process (the reconcile leadership), so that it never takes a connection from the API's pool.
   */
  session(options?: { dedicated?: boolean }): Promise<SqlSession>;
  /** Whether the session whose `pg_backend_pid()` is `backendPid` still holds the advisory lock `key`. */
  holdsAdvisoryLock(key: AdvisoryKey, backendPid: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The two-int4 form of an advisory lock key (shows in pg_locks as classid, objid, objsubid = 2). */
export interface AdvisoryKey {
  namespace: number;
  id: number;
}

/** Every advisory lock dqctl takes lives in this namespace ("dqct" as an int4). */
const DQCTL_LOCK_NAMESPACE = 0x64716374;

export const STORE_LOCK_KEY: AdvisoryKey = { namespace: DQCTL_LOCK_NAMESPACE, id: 1 };
export const MIGRATION_LOCK_KEY: AdvisoryKey = { namespace: DQCTL_LOCK_NAMESPACE, id: 2 };
/** Leadership of the reconcile loop among `serve` replicas (src/store/leadership.ts); apart from the store lock. */
export const RECONCILE_LEADER_KEY: AdvisoryKey = { namespace: DQCTL_LOCK_NAMESPACE, id: 3 };

/**
 * int8 → a number while it is a safe integer, a bigint beyond (DQOps's 64-bit hashes), for both engines' type
 * parsers (pg gives strings, PGlite too with this parser). Ids and counts stay numbers; see model/int64.ts.
 */
export function parseInt8(text: string): Int64 {
  return toInt64(text);
}

export const INT8_OID = 20;

/** A timestamptz column as an ISO-8601 UTC string with milliseconds, the same text on both engines. */
export function isoTimestamp(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
