/**
 * A MySQL or MariaDB database (`provider_type: mysql | mariadb`) over the `mysql2` driver: a pool of at most
 * `parallel_jobs_limit` connections (Slots bound the sessions, so the pool never queues). Each session sets
 * the connection collation to a binary NO PAD one (texts compare exactly), `sql_mode` to ANSI_QUOTES,PIPES_AS_CONCAT (the dialect's double-quoted names, dialects/mysql.ts), the time
 * zone UTC, a read-only transaction mode and the statement timeout (`max_statement_time` on MariaDB,
 * `max_execution_time` on MySQL, which limits SELECTs only). With `snapshot: true` the session's statements run
 * in one `start transaction with consistent snapshot, read only`.
 *
 * Statements are written with `$n` placeholders like on the other sources; they become the driver's `?`
 * (client-side escaping; a list is expanded into `a, b, c`) outside string literals and quoted names. Aborting
 * the signal kills the running statement (`kill query` from a separate connection) and the connection is
 * dropped rather than reused. Every failure is a coded DqError naming the connection, secrets redacted.
 */
import type mysql from 'mysql2/promise';
import { DqError } from '../../model/index.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, type DataSourceSession, type SessionOptions, type SqlTarget } from '../dataSource.js';
import { classifyDataSourceError, type DataSourceFailure } from '../dataSourceErrors.js';
import type { SqlDialect } from '../dialects/dialect.js';
import { MYSQL, mysqlTableDialect } from '../dialects/mysql.js';
import { column } from '../sensors/rowSource.js';
import type { SourceCatalog } from '../sourceCatalog.js';
import { MYSQL_CATALOG } from './mysqlCatalog.js';
import { redactSecrets } from '../secretReferences.js';
import { SlottedDataSource } from '../slottedDataSource.js';
import { resolveMysqlSettings, type MysqlSettings } from './mysqlSettings.js';

interface OpenPool {
  pool: mysql.Pool;
  settings: MysqlSettings;
  mariadb: boolean;
}

/** The sessions' collation: binary and NO PAD, so texts compare exactly (case and trailing spaces), as on PostgreSQL. */
function sessionCollation(open: OpenPool): string {
  return open.mariadb ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

/** MySQL's and MariaDB's error numbers → the shared failure reasons. */
const ERRNO_REASONS: Record<number, DataSourceFailure> = {
  1044: 'permission_denied',
  1045: 'auth_failed',
  1049: 'database_missing',
  1040: 'too_many_connections',
  1146: 'table_missing',
  1054: 'column_missing',
  1142: 'permission_denied',
  1143: 'permission_denied',
  1792: 'read_only',
  1969: 'statement_timeout',
  3024: 'statement_timeout',
  1317: 'cancelled',
  2013: 'dropped',
};

let loadingDriver: Promise<typeof mysql> | undefined;

/** The mysql2 driver, loaded on the first use of a MySQL or MariaDB connection (not at every command's start). */
function mysqlDriver(): Promise<typeof mysql> {
  loadingDriver ??= import('mysql2/promise').then((module) => module.default);
  return loadingDriver;
}

export class MysqlDataSource extends SlottedDataSource {
  readonly dialect: SqlDialect = MYSQL;
  readonly catalog: SourceCatalog = MYSQL_CATALOG;
  private opening: Promise<OpenPool> | undefined;

  /**
   * MySQL reads the quoted `"database"."table"` itself (ANSI_QUOTES). The dialect is the table's own
   * (mysqlTableDialect): its CHAR, VARCHAR and TEXT columns in utf8mb4, as information_schema shows them now,
   * are read as texts without a copy of every value. When the catalog does not answer (or shows no such column),
   * the plain dialect: every text a cast, and the table's queries report what is wrong.
   */
  async sqlTarget(schema: string, table: string): Promise<SqlTarget> {
    let open: OpenPool;
    try {
      open = await this.pool();
    } catch {
      return { dialect: MYSQL };
    }
    try {
      const [rows] = await open.pool.query({
        sql: `select table_schema as s, table_name as t, column_name as c from information_schema.columns
where table_schema = ? and table_name = ? and character_set_name = 'utf8mb4' and data_type in ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext')`,
        values: [schema, table],
        timeout: this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      });
      // the catalog compares names without case: only this table's own columns
      const columns = (rows as Array<{ s: unknown; t: unknown; c: unknown }>).filter((row) => String(row.s) === schema && String(row.t) === table).map((row) => column(String(row.c)));
      return { dialect: mysqlTableDialect(sessionCollation(open), new Set(columns)) };
    } catch {
      return { dialect: MYSQL };
    }
  }

  protected async runSession<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions): Promise<T> {
    const { signal } = options;
    let connection: mysql.PoolConnection | undefined;
    let reusable = true;
    try {
      const open = await this.pool();
      try {
        connection = await open.pool.getConnection();
      } catch (error) {
        throw this.classify(error, 'connect', open.settings.secrets);
      }
      const held = connection;
      const timeoutMs = Math.max(1, Math.round(options.statementTimeoutMs ?? this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS));
      const timeout = open.mariadb ? `max_statement_time = ${timeoutMs / 1000}` : `max_execution_time = ${timeoutMs}`;
      const run = async (text: string, values: unknown[]): Promise<unknown[]> => {
        if (signal?.aborted) throw this.failure('cancelled');
        const onAbort = () => {
          reusable = false;
          void this.killQuery(open, held.threadId);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          const [rows] = await held.query({ sql: text, values });
          return Array.isArray(rows) ? rows : [];
        } catch (error) {
          if (signal?.aborted) throw this.failure('cancelled');
          const failure = this.classify(error, 'query', open.settings.secrets);
          if (failure.details?.reason === 'dropped') reusable = false;
          throw failure;
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
      };
      // texts as sensors read them (`cast(x as char)`, or a utf8mb4 column relabelled: mysqlTableDialect) compare exactly, case and trailing spaces included, as on PostgreSQL
      await run(`set names utf8mb4 collate ${sessionCollation(open)}`, []);
      await run(`set session sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT', time_zone = '+00:00', ${timeout}`, []);
      await run(options.snapshot ? 'start transaction with consistent snapshot, read only' : 'set session transaction read only', []);
      const session: DataSourceSession = {
        catalog: MYSQL_CATALOG,
        query: async <R extends object>(text: string, params: readonly unknown[] = []) => {
          const { sql, values } = positionalParameters(text, params);
          return (await run(sql, values)).map(plainRow) as R[];
        },
      };
      const result = await work(session);
      if (options.snapshot) await run('commit', []);
      return result;
    } catch (error) {
      reusable = false;
      throw error;
    } finally {
      if (connection !== undefined) {
        if (reusable) connection.release();
        else connection.destroy();
      }
    }
  }

  protected open(): Promise<OpenPool> {
    return this.pool();
  }

  private pool(): Promise<OpenPool> {
    if (!this.opening) {
      const opening = (async (): Promise<OpenPool> => {
        const settings = await resolveMysqlSettings(this.connectionName, this.spec, this.secretContext);
        const pool = (await mysqlDriver()).createPool({
          ...settings.config,
          connectionLimit: this.maxConnections,
          connectTimeout: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
          idleTimeout: this.options.idleTimeoutMs ?? 30_000,
          maxIdle: 0,
          timezone: 'Z',
          charset: 'utf8mb4',
          supportBigNumbers: true,
          decimalNumbers: true,
          dateStrings: false,
          multipleStatements: false,
        });
        let version: string;
        try {
          const [rows] = await pool.query('select version() as version');
          version = String((rows as Array<{ version: unknown }>)[0]?.version ?? '');
        } catch (error) {
          await pool.end().catch(() => undefined);
          throw this.classify(error, 'connect', settings.secrets);
        }
        return { pool, settings, mariadb: /mariadb/i.test(version) };
      })();
      this.opening = opening;
      // a failed open (server down, wrong password) is tried again on the next use, credentials read afresh
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
  }

  /** Stops the statement of `threadId` from a connection of its own (the pool's may all be busy). */
  private async killQuery(open: OpenPool, threadId: number): Promise<void> {
    try {
      const killer = await (await mysqlDriver()).createConnection({ ...open.settings.config, connectTimeout: this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });
      try {
        await killer.query(`kill query ${Number(threadId)}`);
      } finally {
        await killer.end();
      }
    } catch {
      // the statement may have ended already; the connection is dropped either way
    }
  }

  private classify(error: unknown, phase: 'connect' | 'query', secrets: readonly string[]): DqError {
    if (error instanceof DqError) return error;
    const errno = (error as { errno?: unknown })?.errno;
    const reason = typeof errno === 'number' ? ERRNO_REASONS[errno] : undefined;
    if (reason !== undefined) return this.failure(reason, redactSecrets(String((error as Error).message ?? error), secrets));
    return classifyDataSourceError(error, this.connectionName, phase, secrets);
  }

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

/**
 * `$n` placeholders → `?` with the values in the order they occur (a `$n` used twice is bound twice), outside
 * string literals, quoted names and comments. An empty list becomes `(null)`, which matches nothing.
 */
export function positionalParameters(text: string, params: readonly unknown[]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  let sql = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === "'" || char === '"' || char === '`') {
      let end = index + 1;
      while (end < text.length) {
        if (text[end] === '\\' && char === "'") end += 2;
        else if (text[end] === char && text[end + 1] === char) end += 2;
        else if (text[end] === char) break;
        else end += 1;
      }
      sql += text.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    if (char === '-' && text[index + 1] === '-') {
      const end = text.indexOf('\n', index);
      const stop = end < 0 ? text.length : end;
      sql += text.slice(index, stop);
      index = stop;
      continue;
    }
    const placeholder = char === '$' ? /^\$(\d+)/.exec(text.slice(index)) : null;
    if (placeholder !== null) {
      const position = Number(placeholder[1]);
      if (position < 1 || position > params.length) throw new DqError('INTERNAL', `the statement uses $${position} but binds ${params.length} values`);
      const value = params[position - 1];
      values.push(Array.isArray(value) ? (value.length === 0 ? [null] : value) : value === undefined ? null : value);
      sql += '?';
      index += placeholder[0].length;
      continue;
    }
    sql += char;
    index += 1;
  }
  return { sql, values };
}

/** A row as the other sources give it: BIGINT as a number when it fits, else text; buffers as text. */
function plainRow(row: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (typeof value === 'bigint') out[key] = Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    else if (typeof value === 'string' && /^-?\d{16,}$/.test(value)) out[key] = Number.isSafeInteger(Number(value)) ? Number(value) : value;
    else if (Buffer.isBuffer(value)) out[key] = value.toString('utf8');
    else out[key] = value;
  }
  return out;
}
