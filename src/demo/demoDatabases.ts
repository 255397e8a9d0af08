import pg from 'pg';
import { quoteIdent } from '../datasource/index.js';
import { DqError } from '../model/index.js';
import { DEMO_CONNECTIONS, type DemoConnection } from './demoConnections.js';
import { bindNamed, DEFAULT_DEMO_DATA_SIZE, demoDataStatements, demoDataValues, GENERATOR_VERSION, type DemoDataSize } from './demoData.js';
import type { DemoServer } from './demoServer.js';
import { addPrimaryKeySql, createTableSql, demoTablesOf } from './demoTables.js';

/**
 * Creates the two demo databases on a PostgreSQL server, idempotently: a database whose marker (a comment on
 * the database, written last, after every row) names this generator version and today's date (UTC), and which
 * still has all its tables, is reused as it is; otherwise it is dropped and built again: when it is missing,
 * incomplete (a load that was interrupted never wrote its marker), made by another generator version, or
 * generated on an earlier day (its dates are relative to the day it was made, and the daily checks look at
 * today's and the last days' partitions). Two processes preparing the same databases take turns (an advisory
 * lock on the server).
 *
 * Database names are `<prefix>shop_oltp` and `<prefix>analytics_dwh`; the prefix (default `dqctl_demo_`) is
 * limited to lower-case letters, digits and underscores so a name never needs more than quoting.
 */
export const DEFAULT_DEMO_PREFIX = 'dqctl_demo_';
const PREFIX_PATTERN = /^[a-z_][a-z0-9_]{0,40}$/;
const MARKER = 'dqctl demo data ';

export type DemoDatabaseAction = 'created' | 'reused' | 'rebuilt';

export interface DemoDatabase {
  connection: DemoConnection['connection'];
  database: string;
  action: DemoDatabaseAction;
  /** Why it was rebuilt. */
  reason?: string;
  /** Rows per table ("schema.table" → rows). */
  rows: Record<string, number>;
}

export interface EnsureDemoOptions {
  prefix?: string;
  seed?: number;
  size?: DemoDataSize;
  /** "now" of the generated data (default: now). */
  anchor?: Date;
  /** Told about each step, e.g. for a progress line. */
  onStep?: (step: string) => void;
}

interface Marker {
  generator: number;
  day: string;
  seed: number;
}

export function demoDatabaseName(prefix: string, connection: DemoConnection['connection']): string {
  return `${prefix}${connection}`;
}

export function checkDemoPrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new DqError('INVALID_ARGUMENT', `the demo database prefix must be lower-case letters, digits and underscores (at most 41), not ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

/** A client of one database of the server, with the server's TLS settings. */
export function demoClient(server: DemoServer, database: string): pg.Client {
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
    ssl: server.sslmode === 'require' ? { rejectUnauthorized: false } : server.sslmode === 'verify-ca' || server.sslmode === 'verify-full' ? { rejectUnauthorized: true } : false,
    connectionTimeoutMillis: 5_000,
    application_name: 'dqctl demo',
  });
  client.on('error', () => {});
  return client;
}

/** Connects to the server's admin database, runs `work`, disconnects. */
export async function onDemoServer<T>(server: DemoServer, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = demoClient(server, adminDatabaseOf(server));
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end().catch(() => {});
  }
}

export async function ensureDemoDatabases(server: DemoServer, options: EnsureDemoOptions = {}): Promise<DemoDatabase[]> {
  const prefix = checkDemoPrefix(options.prefix ?? DEFAULT_DEMO_PREFIX);
  const seed = options.seed ?? 1;
  const anchor = options.anchor ?? new Date();
  const size = options.size ?? DEFAULT_DEMO_DATA_SIZE;
  const wanted: Marker = { generator: GENERATOR_VERSION, day: anchor.toISOString().slice(0, 10), seed };
  const step = options.onStep ?? (() => {});
  return onDemoServer(server, async (admin) => {
    await admin.query('select pg_advisory_lock(hashtext($1))', [`dqctl demo ${prefix}`]);
    try {
      const results: DemoDatabase[] = [];
      // the shop first: the warehouse is "loaded from" it (the same generated rows)
      for (const { connection } of DEMO_CONNECTIONS) {
        const database = demoDatabaseName(prefix, connection);
        const found = await inspect(admin, server, database, connection, wanted);
        if (found.state === 'complete') {
          results.push({ connection, database, action: 'reused', rows: found.rows });
          continue;
        }
        if (found.state !== 'missing') {
          step(`dropping ${database} (${found.reason})`);
          await admin.query(`drop database if exists ${quoteIdent(database)} with (force)`);
        }
        step(`creating ${database}`);
        await admin.query(`create database ${quoteIdent(database)} template template0 encoding 'UTF8'`);
        const rows = await fill(server, database, connection, { ...size, anchor, seed }, wanted, step);
        results.push({ connection, database, action: found.state === 'missing' ? 'created' : 'rebuilt', reason: found.state === 'missing' ? undefined : found.reason, rows });
      }
      return results;
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [`dqctl demo ${prefix}`]).catch(() => {});
    }
  });
}

/** Drops the demo databases of a prefix (tests; a user can drop them by hand as well). */
export async function dropDemoDatabases(server: DemoServer, prefix: string): Promise<void> {
  checkDemoPrefix(prefix);
  await onDemoServer(server, async (admin) => {
    for (const { connection } of DEMO_CONNECTIONS) {
      await admin.query(`drop database if exists ${quoteIdent(demoDatabaseName(prefix, connection))} with (force)`);
    }
  });
}

type Found = { state: 'missing' } | { state: 'stale'; reason: string } | { state: 'complete'; rows: Record<string, number> };

async function inspect(admin: pg.Client, server: DemoServer, database: string, connection: DemoConnection['connection'], wanted: Marker): Promise<Found> {
  const { rows } = await admin.query<{ comment: string | null }>(
    `select shobj_description(d.oid, 'pg_database') as comment from pg_database as d where d.datname = $1`,
    [database],
  );
  if (rows.length === 0) return { state: 'missing' };
  const marker = parseMarker(rows[0].comment);
  if (!marker) return { state: 'stale', reason: 'incomplete: an earlier load did not finish' };
  if (marker.generator !== wanted.generator) return { state: 'stale', reason: `made by generator version ${marker.generator}, this is version ${wanted.generator}` };
  if (marker.seed !== wanted.seed) return { state: 'stale', reason: `made with seed ${marker.seed}` };
  if (marker.day !== wanted.day) return { state: 'stale', reason: `generated on ${marker.day}; the dates are relative to the day of generation` };
  const counts = await countRows(server, database, connection);
  if (!counts) return { state: 'stale', reason: 'incomplete: a table is missing' };
  return { state: 'complete', rows: counts };
}

function parseMarker(comment: string | null): Marker | undefined {
  if (!comment || !comment.startsWith(MARKER)) return undefined;
  try {
    const value = JSON.parse(comment.slice(MARKER.length)) as Partial<Marker>;
    if (typeof value.generator === 'number' && typeof value.day === 'string' && typeof value.seed === 'number') return value as Marker;
  } catch {
    // not ours, or damaged: rebuilt
  }
  return undefined;
}

/** Rows of every table of the connection, or undefined when one is missing. */
async function countRows(server: DemoServer, database: string, connection: DemoConnection['connection']): Promise<Record<string, number> | undefined> {
  const client = demoClient(server, database);
  await client.connect();
  try {
    const rows: Record<string, number> = {};
    for (const table of demoTablesOf(connection)) {
      const exists = await client.query<{ found: boolean }>(
        `select exists (select 1 from pg_catalog.pg_class as c join pg_catalog.pg_namespace as n on n.oid = c.relnamespace where n.nspname = $1 and c.relname = $2) as found`,
        [table.schema, table.table],
      );
      if (!exists.rows[0].found) return undefined;
      const count = await client.query<{ n: string }>(`select count(*) as n from ${quoteIdent(table.schema)}.${quoteIdent(table.table)}`);
      rows[`${table.schema}.${table.table}`] = Number(count.rows[0].n);
    }
    return rows;
  } finally {
    await client.end().catch(() => {});
  }
}

async function fill(
  server: DemoServer,
  database: string,
  connection: DemoConnection['connection'],
  parameters: DemoDataSize & { anchor: Date; seed: number },
  marker: Marker,
  step: (step: string) => void,
): Promise<Record<string, number>> {
  const client = demoClient(server, database);
  await client.connect();
  try {
    // dates (::date, date_trunc('day', …)) in UTC, like the check runs
    await client.query(`select set_config('TimeZone', 'UTC', false)`);
    const tables = demoTablesOf(connection);
    for (const schema of new Set(tables.map((table) => table.schema))) {
      await client.query(`create schema if not exists ${quoteIdent(schema)}`);
    }
    for (const table of tables) await client.query(createTableSql(table));
    const values = demoDataValues(parameters);
    for (const statement of demoDataStatements(connection)) {
      step(`${database}: ${statement.what}`);
      const { text, params } = bindNamed(statement.sql, values);
      try {
        await client.query(text, params);
      } catch (error) {
        throw new DqError('INTERNAL', `generating the demo data (${statement.what}) failed: ${(error as Error).message}`);
      }
    }
    for (const table of tables) await client.query(addPrimaryKeySql(table));
    await client.query('analyze');
    // the marker goes last: a database without it is incomplete and gets rebuilt
    await client.query(`comment on database ${quoteIdent(database)} is ${literal(MARKER + JSON.stringify(marker))}`);
  } finally {
    await client.end().catch(() => {});
  }
  return (await countRows(server, database, connection))!;
}

/**
 * COMMENT ON takes no bind parameters: the comment is a string literal made here from our own JSON (digits,
 * a date, fixed keys), with quotes doubled all the same.
 */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function adminDatabaseOf(server: DemoServer): string {
  const path = new URL(server.url).pathname.replace(/^\//, '');
  return path ? decodeURIComponent(path) : 'postgres';
}
