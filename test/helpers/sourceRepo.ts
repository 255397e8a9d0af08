import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';

/**
 * Writes `sources/<name>/connection.dqoconnection.yaml` of a DQOps user home for the test database at
 * `databaseUrl`, its user read from `${DQ_USER}` (no secret in the file); returns that variable for the env.
 */
export async function writeSourceConnection(repo: string, name: string, databaseUrl: string): Promise<{ DQ_USER: string }> {
  const url = new URL(databaseUrl);
  await mkdir(join(repo, 'sources', name), { recursive: true });
  await writeFile(
    join(repo, 'sources', name, 'connection.dqoconnection.yaml'),
    `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: ${url.hostname}\n    port: "${url.port || 5432}"\n    database: ${url.pathname.slice(1)}\n    user: \${DQ_USER}\n`,
  );
  return { DQ_USER: decodeURIComponent(url.username) || 'postgres' };
}

/** A data source of its own with public."Orders" (id, amount): 40 rows, every fourth amount null. */
export async function createOrdersSource(): Promise<TestDatabase> {
  const source = await createTestDatabase();
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  try {
    await client.query('create table public."Orders" (id int, amount numeric)');
    await client.query('insert into public."Orders" select g, case when g % 4 = 0 then null else g end from generate_series(1, 40) g');
  } finally {
    await client.end();
  }
  return source;
}
