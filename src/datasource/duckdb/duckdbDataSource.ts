/**
 * A DuckDB connection of the live store: one in-memory DuckDB database (the engine ships with
 * `@duckdb/node-api`, in this process) reading the connection's CSV, JSON or Parquet files through table
 * functions (fileRelation.ts). At most `parallel_jobs_limit` sessions run at once (Slots), each on a DuckDB
 * connection of its own; DuckDB runs one statement per connection, so a session's statements see the files as
 * they are when each runs (files have no snapshot). A statement longer than the statement timeout, or one whose
 * signal aborts, is interrupted.
 *
 * Extensions are loaded only when DuckDB already has them: nothing is downloaded at run time, so a remote path
 * (`s3://`, `gs://`, `az://`) without the httpfs extension installed fails that check with a clear message.
 * Every failure is a coded DqError (dataSourceErrors.ts) naming the connection, with resolved secrets redacted.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { DuckDBConnection, DuckDBInstance, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { DqError, type JsonObject } from '../../model/index.js';
import { DEFAULT_STATEMENT_TIMEOUT_MS, type DataSourceSession, type SessionOptions, type SqlTarget } from '../dataSource.js';
import type { SqlDialect } from '../dialects/dialect.js';
import { DUCKDB } from '../dialects/duckdb.js';
import { redactSecrets } from '../secretReferences.js';
import { SlottedDataSource } from '../slottedDataSource.js';
import { resolveDuckdbSettings, type DuckdbSettings } from './duckdbSettings.js';
import type { SourceCatalog } from '../sourceCatalog.js';
import { duckdbCatalog } from './duckdbCatalog.js';
import { fileRelation } from './fileRelation.js';

interface OpenDatabase {
  instance: DuckDBInstance;
  settings: DuckdbSettings;
}

export class DuckdbDataSource extends SlottedDataSource {
  readonly dialect: SqlDialect = DUCKDB;
  readonly catalog: SourceCatalog = duckdbCatalog(this.connectionName, async () => (await this.database()).settings);
  private opening: Promise<OpenDatabase> | undefined;

  /** The table's files as a table function in files mode; in in_memory mode the quoted table of the database. */
  async sqlTarget(schema: string, table: string, tableSpec?: JsonObject): Promise<SqlTarget> {
    const { settings } = await this.database();
    if (settings.readMode !== 'files') return { dialect: DUCKDB };
    const { relation } = fileRelation(this.connectionName, settings, schema, table, tableSpec);
    let types: Promise<Record<string, string> | undefined> | undefined;
    return {
      dialect: DUCKDB,
      relation,
      // the files' own column types (a Parquet file's schema, a CSV file's sniffed types), asked once per target
      describeColumns: () =>
        (types ??= this.query<{ column_name: string; column_type: string }>(`describe select * from ${relation}`).then(
          (rows) => Object.fromEntries(rows.map((row) => [row.column_name, row.column_type])),
          () => undefined,
        )),
      // a table named in a parameter reads its files as laid out in the connection's folders
      tableRelation: (otherSchema, otherTable) => fileRelation(this.connectionName, settings, otherSchema, otherTable).relation,
    };
  }

  protected async runSession<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions): Promise<T> {
    const { signal } = options;
    let connection: DuckDBConnection | undefined;
    try {
      const { instance, settings } = await this.database();
      connection = await instance.connect();
      const timeoutMs = Math.max(1, Math.round(options.statementTimeoutMs ?? this.options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS));
      const open = connection;
      const session: DataSourceSession = {
        catalog: this.catalog,
        query: async <R extends object>(text: string, params: readonly unknown[] = []) => {
          if (signal?.aborted) throw this.failure('cancelled');
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            open.interrupt();
          }, timeoutMs);
          const onAbort = () => open.interrupt();
          signal?.addEventListener('abort', onAbort, { once: true });
          try {
            const { values, types } = duckdbValues(await duckdbApi(), params);
            const reader = await open.runAndReadAll(text, values, types);
            return reader.getRowObjectsJS().map(plainRow) as R[];
          } catch (error) {
            if (signal?.aborted) throw this.failure('cancelled');
            if (timedOut) throw this.failure('statement_timeout');
            throw this.classify(error, settings.secrets);
          } finally {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
          }
        },
      };
      return await work(session);
    } finally {
      connection?.closeSync();
    }
  }

  protected open(): Promise<OpenDatabase> {
    return this.database();
  }

  private database(): Promise<OpenDatabase> {
    if (!this.opening) {
      const opening = (async (): Promise<OpenDatabase> => {
        const settings = await resolveDuckdbSettings(this.connectionName, this.spec, this.secretContext);
        let instance: DuckDBInstance;
        try {
          // never download an extension while checks run; load the ones DuckDB has (e.g. an installed httpfs)
          const { DuckDBInstance } = await duckdbApi();
          instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'true' });
        } catch (error) {
          throw this.classify(error, settings.secrets);
        }
        if (Object.keys(settings.properties).length > 0) {
          const connection = await instance.connect();
          try {
            for (const [name, value] of Object.entries(settings.properties)) {
              await connection.run(`set ${DUCKDB.quoteIdent(name)} = ${DUCKDB.literal(value)}`);
            }
          } catch (error) {
            instance.closeSync();
            throw this.classify(error, settings.secrets);
          } finally {
            connection.closeSync();
          }
        }
        return { instance, settings };
      })();
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
    }
    return this.opening;
  }

  /** DuckDB's message → a coded failure: a missing file or folder, a remote path without httpfs, anything else. */
  private classify(error: unknown, secrets: readonly string[]): DqError {
    if (error instanceof DqError) return error;
    const message = redactSecrets(String((error as Error)?.message ?? error).split('\n\nLINE ')[0]!.trim(), secrets);
    if (/No files found that match the pattern|No such file or directory|Cannot open file/i.test(message)) return this.failure('table_missing', message);
    // remote paths: s3://, gs://, https:// need httpfs, az:// and abfss:// need azure; nothing is downloaded at run time
    const extension = /required extension '(httpfs|azure)'/i.exec(message)?.[1]?.toLowerCase() ?? (/httpfs/i.test(message) ? 'httpfs' : undefined);
    if (extension !== undefined) {
      return this.failure('query_failed', `remote files need DuckDB's ${extension} extension, which is not installed here (install it with DuckDB's INSTALL ${extension}, or copy the files to a local folder): ${message.split('\n')[0]}`);
    }
    if (/Binder Error: Referenced column|not found in FROM clause/i.test(message)) return this.failure('column_missing', message);
    return this.failure('query_failed', message);
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    try {
      const { instance } = await opening;
      // sessions still running hold connections of their own; the instance closes when the last one does
      instance.closeSync();
    } catch {
      // a database that never opened has nothing to close
    }
  }
}

type DuckdbApi = typeof import('@duckdb/node-api');
let loadingApi: Promise<DuckdbApi> | undefined;

/**
 * DuckDB's engine, loaded on the first use of a DuckDB connection: loading it takes about a second, which every
 * command that opens the data sources (`run checks` on PostgreSQL only, too) would otherwise pay at start.
 * Loaded by `require`: the package is CommonJS of ~180 files re-exported from its index, and an ES `import`
 * first parses every one of them for its export names (Node's CommonJS lexer), which more than doubled the
 * loading's CPU time (bench:checks:dialects, whole process).
 */
function duckdbApi(): Promise<DuckdbApi> {
  // after one turn of the event loop: the loading blocks this thread, so the queries other work already started
  // (the store's reads of a run) are sent first and run meanwhile
  loadingApi ??= new Promise((resolve) => setImmediate(resolve)).then(() => {
    const require = createRequire(import.meta.url);
    return require(bundledApiPath(require) ?? '@duckdb/node-api') as DuckdbApi;
  });
  return loadingApi;
}

/**
 * The package's JavaScript bundled into one file by the build (scripts/bundle-cli.mjs; half the loading time of
 * its ~156 files), beside the bundled CLI's chunks (dist/bundle); undefined when there is none for the installed
 * version (dist/'s unbundled modules, src/, or the package updated since the build).
 */
function bundledApiPath(require: NodeRequire): string | undefined {
  try {
    const { version } = require('@duckdb/node-api/package.json') as { version: string };
    const path = fileURLToPath(new URL(`./duckdb-node-api-${version}.cjs`, import.meta.url));
    if (existsSync(path)) return path;
  } catch {
    // no package.json to read: the package itself decides
  }
  return undefined;
}

/** Bound values with their DuckDB types (the SQL casts them to the dialect's types): lists, texts, doubles. */
function duckdbValues(api: DuckdbApi, params: readonly unknown[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  const { BOOLEAN, DOUBLE, LIST, VARCHAR, listValue } = api;
  const values: DuckDBValue[] = [];
  const types: DuckDBType[] = [];
  for (const param of params) {
    if (Array.isArray(param)) {
      const numbers = param.length > 0 && param.every((item) => typeof item === 'number');
      values.push(listValue(param.map((item) => (numbers ? Number(item) : item === null ? null : String(item)))));
      types.push(LIST(numbers ? DOUBLE : VARCHAR));
    } else if (typeof param === 'number') {
      values.push(param);
      types.push(DOUBLE);
    } else if (typeof param === 'boolean') {
      values.push(param);
      types.push(BOOLEAN);
    } else if (param === null || param === undefined) {
      values.push(null);
      types.push(VARCHAR);
    } else {
      values.push(param instanceof Date ? param.toISOString() : String(param));
      types.push(VARCHAR);
    }
  }
  return { values, types };
}

/** A row as pg gives it: BIGINT as a number when it fits, else text; other values as DuckDB's JS conversion. */
function plainRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] = typeof value === 'bigint' ? (Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()) : value;
  }
  return out;
}
