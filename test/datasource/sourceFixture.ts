import pg from 'pg';
import type { JsonObject } from '../../src/model/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * A monitored PostgreSQL source for tests: a database of its own, seeded with a table whose every statistic is
 * known (hostile names: a schema with quotes and a space, a table name with a space and a dot, columns with
 * unicode, a dot, and quotes plus a semicolon), and the connection spec that reaches it through secret
 * references (`${…}` from the environment given, the user from a credential file).
 */
export const SCHEMA = 'Sales "EU"';
export const TABLE = 'order lines.2024';
export const INJECTION_COLUMN = 'qty"; drop table x; --';

export const SEED_SQL = `
create schema "Sales ""EU""";
create table "Sales ""EU"""."order lines.2024" (
  "Line ID"       integer primary key,
  "Ünit Price"    numeric(10,2),
  "Product Name"  varchar(40) collate "C",
  created_at      timestamptz,
  "Flag"          boolean,
  doc             jsonb,
  "Region.Code"   text collate "C",
  "qty""; drop table x; --" integer not null default 0
);
insert into "Sales ""EU"""."order lines.2024" values
  (1, 10.50, 'apple',      '2024-01-01 10:00:00+00', true,  '{"a": 1}', 'EU-W', 1),
  (2, 20.00, 'pear',       '2024-01-02 10:00:00+00', false, '{"a": 1}', 'EU-W', 1),
  (3, null,  'apple',      null,                     null,  null,       'EU-E', 1),
  (4, 10.50, 'kiwi fruit', '2024-01-03 10:00:00+00', true,  '{"b": 2}', 'EU-E', 2),
  (5, 4.25,  'Äpfel',      '2024-01-04 10:00:00+00', true,  '{"a": 1}', 'EU-W', 2),
  (6, null,  null,         '2024-01-05 10:00:00+00', false, null,       null,   0);
`;

/** Views that take time (a function sleeping, then 3 rows): long scans without big tables, for timeouts and cancels. */
export const SLOW_VIEWS_SQL = `
create schema slowpoke;
create function slowpoke.slow_rows(seconds float8) returns setof int language sql as $$
  select pg_sleep(seconds); select generate_series(1, 3);
$$;
create view slowpoke.slow as select n from slowpoke.slow_rows(0.3) as n;
create view slowpoke.very_slow as select n from slowpoke.slow_rows(30) as n;
`;

export interface SourceFixture {
  database: TestDatabase;
  /** The environment the connection's references read. */
  env: Record<string, string>;
  /** The connection spec as a repository would hold it (references, no values). */
  spec(overrides?: JsonObject): JsonObject;
  /** Raw SQL on the source as the test's superuser (setup, pg_stat_activity). */
  admin<R extends object = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  dispose(): Promise<void>;
}

export const SECRET_PASSWORD = 'Pa55-w0rd-never-shown-9f8e';

export async function createSourceFixture(seed: string = SEED_SQL): Promise<SourceFixture> {
  const database = await createTestDatabase();
  const url = new URL(database.url);
  const client = new pg.Client({ connectionString: database.url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query(seed);
  const env = {
    DQ_TEST_SOURCE_HOST: url.hostname,
    DQ_TEST_SOURCE_PORT: url.port || '5432',
    DQ_TEST_SOURCE_DB: database.name,
    DQ_TEST_SOURCE_PASSWORD: SECRET_PASSWORD,
  };
  return {
    database,
    env,
    spec: (overrides = {}) => ({
      provider_type: 'postgresql',
      postgresql: {
        host: '${DQ_TEST_SOURCE_HOST}',
        port: '${DQ_TEST_SOURCE_PORT}',
        database: '${DQ_TEST_SOURCE_DB}',
        user: decodeURIComponent(url.username || 'postgres'),
        password: '${DQ_TEST_SOURCE_PASSWORD}',
        sslmode: 'disable',
      },
      parallel_jobs_limit: 2,
      ...overrides,
    }),
    admin: async <R extends object>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[],
    async dispose() {
      await client.end().catch(() => undefined);
      await database.drop();
    },
  };
}

/** Backends of dqctl's pools on the source database right now (active or idle). */
export async function dqctlBackends(source: SourceFixture): Promise<{ pid: number; state: string; query: string }[]> {
  return source.admin(
    `select pid, state, query from pg_stat_activity where datname = $1 and application_name = 'dqctl'`,
    [source.database.name],
  );
}

/**
 * Waits until the source's dqctl backends satisfy `reached` (a query running, or gone). PostgreSQL announces
 * neither a query starting nor a connection closing, so polling pg_stat_activity is the one way to know: the
 * last resort, named by what it waits for, failing after `timeoutMs`.
 */
export async function untilBackends(
  source: SourceFixture,
  reached: (backends: Awaited<ReturnType<typeof dqctlBackends>>) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!reached(await dqctlBackends(source))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20)); // the poll's pace, not a wait for anything
  }
}

/** A query of the source's that is running now. */
export const running = (text: string) => (backends: Awaited<ReturnType<typeof dqctlBackends>>) => backends.some((b) => b.state === 'active' && b.query.includes(text));

/**
 * Samples how many dqctl backends the source has, as often as it can answer, until `stop()`, which returns the
 * most seen at once: a measurement (PostgreSQL reports no connection events), not a wait.
 */
export function sampleMaxBackends(source: SourceFixture): { stop(): Promise<number> } {
  let max = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      max = Math.max(max, (await dqctlBackends(source)).length);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await sampler;
      return max;
    },
  };
}
