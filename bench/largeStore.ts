/**
 * A PostgreSQL store holding a generated DQOps home (bench/generateRepository.ts) applied once, with check results
 * on every fifth table (a fifth of those failing), for the benches that read a large store (bench/console.ts).
 * Applying 100,000 tables takes minutes, so a bench run creates the database once and every measure reuses it;
 * `keep` leaves it on the server and a later run passing the same name reuses it when it already holds the
 * requested number of tables (for profiling; a normal run creates and drops its own).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { applyPlan } from '../src/apply/applyPlan.js';
import { planRepository } from '../src/app/planRepository.js';
import { openStore } from '../src/store/openStore.js';
import type { CheckResultInput } from '../src/store/readResults.js';
import type { Store } from '../src/store/store.js';
import { generateRepository } from './generateRepository.js';

export interface LargeStoreOptions {
  tables: number;
  connections: number;
  /** Called with the repository folder before it is planned (e.g. to add more files). */
  extend?: (repo: string) => Promise<void>;
  /** A database name to create (or reuse when it already holds `tables` tables) and keep after the run. */
  keep?: string;
  /** Table names matching this get check results too (besides every fifth table). */
  withResults?: (name: string) => boolean;
}

export interface LargeStore {
  store: Store;
  /** The database's URL: a second process (dqctl serve) opens the same store with it. */
  databaseUrl: string;
  /** How many tables have check results. */
  tablesWithResults: number;
  /** Whether this run generated and applied the repository (false when a kept database was reused). */
  generated: boolean;
  /** Seconds the plan and apply took (0 when reused). */
  applySeconds: number;
  close(): Promise<void>;
}

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function adminQuery<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    return (await admin.query<T>(sql, values)).rows;
  } finally {
    await admin.end();
  }
}

/** The check results the benches read: on every fifth table (every 25th fatal-free error, every 10th a warning). */
function resultRows(tables: readonly string[], withResults: (name: string) => boolean): CheckResultInput[] {
  const rows: CheckResultInput[] = [];
  tables.forEach((name, i) => {
    if (i % 5 !== 0 && !withResults(name)) return;
    const slash = name.indexOf('/');
    const dot = name.indexOf('.', slash + 1);
    rows.push({
      connectionName: name.slice(0, slash),
      schemaName: name.slice(slash + 1, dot),
      tableName: name.slice(dot + 1),
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'volume',
      checkName: 'daily_row_count',
      checkHash: 1,
      timePeriod: '2026-11-20T00:00:00.000Z',
      actualValue: i,
      severity: i % 25 === 0 ? 2 : i % 10 === 0 ? 1 : 0,
      executedAt: '2026-11-20T06:00:00.000Z',
    });
  });
  return rows;
}

export async function openLargeStore(options: LargeStoreOptions): Promise<LargeStore> {
  const name = options.keep ?? `dqctl_bench_large_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const exists = (await adminQuery('select 1 from pg_database where datname = $1', [name])).length > 0;
  const url = databaseUrl(name);
  const drop = async () => {
    if (!options.keep) await adminQuery(`drop database if exists ${name} with (force)`);
  };
  if (exists && options.keep) {
    const store = await openStore({ databaseUrl: url });
    const tables = (await store.listSummaries({ kind: 'table' })).length;
    if (tables >= options.tables) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const [{ count }] = (await client.query<{ count: string }>('select count(distinct (connection_name, schema_name, table_name)) as count from dqctl.check_results')).rows;
      await client.end();
      console.error(`reusing the database ${name}: ${tables} tables, results on ${count}`);
      return { store, databaseUrl: url, tablesWithResults: Number(count), generated: false, applySeconds: 0, close: () => store.close() };
    }
    await store.close();
    await adminQuery(`drop database if exists ${name} with (force)`);
  }
  await adminQuery(`create database ${name} template template0`);
  const root = await mkdtemp(join(tmpdir(), 'dqctl-bench-large-'));
  let store: Store | undefined;
  try {
    store = await openStore({ databaseUrl: url });
    const repo = join(root, 'repo');
    console.error(`generating ${options.tables} tables in ${options.connections} connections`);
    await generateRepository(repo, { tables: options.tables, connections: options.connections });
    await options.extend?.(repo);
    console.error('planning and applying into PostgreSQL');
    const started = performance.now();
    const { plan } = await planRepository({ repository: repo, store });
    await applyPlan(plan, store, { holder: 'bench', appliedBy: 'bench', lockTimeoutMs: 600_000 });
    const applySeconds = (performance.now() - started) / 1000;
    console.error(`applied in ${applySeconds.toFixed(0)} s`);
    const tables = (await store.listSummaries({ kind: 'table' })).map((t) => t.name);
    const rows = resultRows(tables, options.withResults ?? (() => false));
    for (let i = 0; i < rows.length; i += 2000) await store.insertCheckResults(rows.slice(i, i + 2000));
    const opened = store;
    return {
      store: opened,
      databaseUrl: url,
      tablesWithResults: rows.length,
      generated: true,
      applySeconds,
      close: async () => {
        await opened.close();
        await drop();
      },
    };
  } catch (error) {
    await store?.close();
    await drop();
    throw error;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
