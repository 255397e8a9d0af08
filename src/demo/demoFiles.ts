import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DUCKDB } from '../datasource/index.js';
import { DqError } from '../model/index.js';
import { DEMO_CONNECTIONS, type DemoConnection } from './demoConnections.js';
import { bindNamed, DEFAULT_DEMO_DATA_SIZE, demoDataStatements, demoDataValues, GENERATOR_VERSION, type DemoDataSize } from './demoData.js';
import { DUCKDB_GENERATOR } from './generatorSql.js';
import { createTableSql, demoTablesOf, type DemoTable } from './demoTables.js';

/**
 * The demo data as files, for a machine without a PostgreSQL server: the rows of the demo databases (the same
 * statements and seed, demoData.ts, run by an in-memory DuckDB) written with DuckDB's COPY, the shop's tables
 * as Parquet and the warehouse's as CSV, one folder per connection and schema and one per table, as a DuckDB
 * connection reads them (`<folder>/<connection>/<schema>/<table>/<table>.parquet`). Idempotent like the
 * databases: a marker file, written last, names the generator version, the seed and the day (UTC); files of
 * another version, seed or day are made again.
 */
export type DemoFilesFormat = 'parquet' | 'csv';

export const DEMO_FILES_FORMATS: Record<DemoConnection['connection'], DemoFilesFormat> = { shop_oltp: 'parquet', analytics_dwh: 'csv' };

export interface DemoFilesConnection {
  connection: DemoConnection['connection'];
  format: DemoFilesFormat;
  /** Schema → folder of its tables. */
  directories: Record<string, string>;
  action: 'created' | 'reused' | 'rebuilt';
  reason?: string;
  /** Rows per table ("schema.table" → rows). */
  rows: Record<string, number>;
}

export interface EnsureDemoFilesOptions {
  seed?: number;
  size?: DemoDataSize;
  anchor?: Date;
  onStep?: (step: string) => void;
}

interface Marker {
  generator: number;
  day: string;
  seed: number;
  rows: Record<string, Record<string, number>>;
}

const MARKER_FILE = 'demo-files.json';

export function demoFilePath(folder: string, table: DemoTable): string {
  return join(folder, table.connection, table.schema, table.table, `${table.table}.${DEMO_FILES_FORMATS[table.connection]}`);
}

export async function ensureDemoFiles(folder: string, options: EnsureDemoFilesOptions = {}): Promise<DemoFilesConnection[]> {
  const seed = options.seed ?? 1;
  const anchor = options.anchor ?? new Date();
  const size = options.size ?? DEFAULT_DEMO_DATA_SIZE;
  const wanted = { generator: GENERATOR_VERSION, day: anchor.toISOString().slice(0, 10), seed };
  const found = await readMarker(folder);
  const stale =
    found === undefined ? undefined
    : found.generator !== wanted.generator ? `made by generator version ${found.generator}, this is version ${wanted.generator}`
    : found.seed !== wanted.seed ? `made with seed ${found.seed}`
    : found.day !== wanted.day ? `generated on ${found.day}; the dates are relative to the day of generation`
    : undefined;
  const directoriesOf = (connection: DemoConnection['connection']) =>
    Object.fromEntries([...new Set(demoTablesOf(connection).map((t) => t.schema))].map((schema) => [schema, join(folder, connection, schema)]));
  if (found && stale === undefined) {
    return DEMO_CONNECTIONS.map(({ connection }) => ({ connection, format: DEMO_FILES_FORMATS[connection], directories: directoriesOf(connection), action: 'reused', rows: found.rows[connection] ?? {} }));
  }
  await rm(join(folder, MARKER_FILE), { force: true });
  for (const { connection } of DEMO_CONNECTIONS) await rm(join(folder, connection), { recursive: true, force: true });
  const rows = await writeFiles(folder, { ...size, anchor, seed }, options.onStep ?? (() => {}));
  // the marker goes last: files without it are incomplete and made again
  await writeFile(join(folder, MARKER_FILE), `${JSON.stringify({ ...wanted, rows } satisfies Marker)}\n`);
  return DEMO_CONNECTIONS.map(({ connection }) => ({
    connection,
    format: DEMO_FILES_FORMATS[connection],
    directories: directoriesOf(connection),
    action: found ? 'rebuilt' : 'created',
    reason: stale,
    rows: rows[connection],
  }));
}

async function readMarker(folder: string): Promise<Marker | undefined> {
  try {
    const value = JSON.parse(await readFile(join(folder, MARKER_FILE), 'utf8')) as Partial<Marker>;
    if (typeof value.generator === 'number' && typeof value.day === 'string' && typeof value.seed === 'number' && typeof value.rows === 'object' && value.rows) return value as Marker;
  } catch {
    // missing or damaged: made again
  }
  return undefined;
}

async function writeFiles(folder: string, parameters: DemoDataSize & { anchor: Date; seed: number }, step: (step: string) => void): Promise<Marker['rows']> {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  try {
    // dates (::date, date_trunc('day', …)) in UTC, like the check runs
    await db.run(`set TimeZone = 'UTC'`);
    const values = demoDataValues(parameters);
    const rows: Marker['rows'] = {};
    // the shop first: the warehouse is "loaded from" it (the same generated rows)
    for (const { connection } of DEMO_CONNECTIONS) {
      const tables = demoTablesOf(connection);
      for (const schema of new Set(tables.map((table) => table.schema))) await db.run(`create schema if not exists ${DUCKDB.quoteIdent(schema)}`);
      for (const table of tables) await db.run(createTableSql(table, (type) => (type === 'inet' ? 'varchar' : type)));
      for (const statement of demoDataStatements(connection, DUCKDB_GENERATOR)) {
        step(`${connection}: ${statement.what}`);
        const { text, params } = bindNamed(statement.sql, values);
        await run(db, text, params, statement.what);
      }
      rows[connection] = {};
      for (const table of tables) {
        const path = demoFilePath(folder, table);
        step(`writing ${path}`);
        await mkdir(join(path, '..'), { recursive: true });
        const format = DEMO_FILES_FORMATS[connection] === 'parquet' ? '(format parquet)' : '(format csv, header true)';
        const relation = `${DUCKDB.quoteIdent(table.schema)}.${DUCKDB.quoteIdent(table.table)}`;
        await run(db, `copy ${relation} to ${DUCKDB.literal(path)} ${format}`, [], `writing ${path}`);
        const counted = await db.runAndReadAll(`select count(*)::integer as n from ${relation}`);
        rows[connection][`${table.schema}.${table.table}`] = Number(counted.getRowObjects()[0]!.n);
      }
    }
    return rows;
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

async function run(db: DuckDBConnection, text: string, params: unknown[], what: string): Promise<void> {
  try {
    await db.run(text, params as never);
  } catch (error) {
    throw new DqError('INTERNAL', `generating the demo files (${what}) failed: ${(error as Error).message}`);
  }
}
