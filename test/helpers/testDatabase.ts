import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A private PostgreSQL database for one test file: created from template0 on the server named by
 * TEST_DATABASE_URL (default the local trust-auth server) and dropped by `drop()`. When the server is missing
 * this throws, so the tests that need it fail instead of silently skipping.
 */
export const TEST_SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `dqctl_test_${randomBytes(6).toString('hex')}`;
  await onServer(async (admin) => {
    // CREATE DATABASE takes no bind parameters; the name is generated above from hex digits only.
    await admin.query(`create database ${name} template template0`);
  });
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    name,
    async drop(): Promise<void> {
      if (dropped) return;
      dropped = true;
      await onServer(async (admin) => {
        await admin.query(`drop database if exists ${name} with (force)`);
      });
    },
  };
}

async function onServer(work: (admin: pg.Client) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_SERVER_URL, connectionTimeoutMillis: 5_000 });
  admin.on('error', () => {});
  try {
    await admin.connect();
  } catch (error) {
    const where = new URL(TEST_SERVER_URL);
    where.password = '';
    throw new Error(
      `PostgreSQL for tests is not reachable at ${where.toString()} (${(error as Error).message || String(error)}); ` +
        'start it (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) or set TEST_DATABASE_URL',
    );
  }
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}
