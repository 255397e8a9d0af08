import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DqError } from '../../src/model/index.js';
import { openStore } from '../../src/store/index.js';
import { describeDatabaseUrl } from '../../src/store/sql/describeDatabaseUrl.js';
import type { OpenStoreOptions } from '../../src/store/store.js';
import pg from 'pg';
import { createTestDatabase, TEST_SERVER_URL } from '../helpers/testDatabase.js';

/** A store that cannot be reached fails fast with STORE_UNREACHABLE and a sentence, never hangs or leaks secrets. */
async function openFailure(options: OpenStoreOptions): Promise<{ error: DqError; ms: number }> {
  const started = Date.now();
  try {
    const store = await openStore(options);
    await store.close();
  } catch (error) {
    if (error instanceof DqError) return { error, ms: Date.now() - started };
    throw error;
  }
  throw new Error('expected openStore to fail');
}

describe('postgres store: unreachable', () => {
  it('fails on a refused connection, naming the URL without its password', async () => {
    const { error, ms } = await openFailure({ databaseUrl: 'postgres://alice:s3cret-pw@127.0.0.1:1/dq?sslpassword=x' });
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toBe('cannot connect to the store postgres://alice@127.0.0.1:1/dq: connect ECONNREFUSED 127.0.0.1:1');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/s3cret|sslpassword/);
    expect(ms).toBeLessThan(5_000);
  });

  it('fails on a host that does not resolve', async () => {
    const { error, ms } = await openFailure({ databaseUrl: 'postgres://u:pw@no-such-host.invalid:5432/db' });
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toMatch(/^cannot connect to the store postgres:\/\/u@no-such-host\.invalid:5432\/db: .*(ENOTFOUND|EAI_AGAIN)/);
    expect(ms).toBeLessThan(8_000);
  });

  it('fails within the connection timeout on a server that never answers', async () => {
    // Accepts the TCP connection and then says nothing: the startup handshake never completes.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const { error, ms } = await openFailure({ databaseUrl: `postgres://u:pw@127.0.0.1:${port}/db` });
      expect(error.code).toBe('STORE_UNREACHABLE');
      expect(error.message).toMatch(new RegExp(`^cannot connect to the store postgres://u@127\\.0\\.0\\.1:${port}/db: .*timeout`));
      expect(ms).toBeGreaterThanOrEqual(4_500);
      expect(ms).toBeLessThan(8_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 15_000);

  it('fails on a database that does not exist, with the server reason', async () => {
    const url = new URL(TEST_SERVER_URL);
    url.pathname = '/dqctl_no_such_database';
    const { error } = await openFailure({ databaseUrl: url.toString() });
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toContain('database "dqctl_no_such_database" does not exist');
  });

  it('rejects a URL that is not postgres://', async () => {
    const { error } = await openFailure({ databaseUrl: 'mysql://root@localhost/db' });
    expect(error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('postgres store: connections dropped by the server', () => {
  it('replaces idle connections the server closed, and names the store when a query loses its connection', async () => {
    const database = await createTestDatabase();
    const admin = new pg.Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
    const store = await openStore({ databaseUrl: database.url });
    const terminate = () =>
      admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = 'dqctl'`,
        [database.name],
      );
    try {
      await store.listSummaries();
      expect((await terminate()).rowCount).toBeGreaterThan(0);
      // the server has closed them once their backends are gone; the store must not hand out a dead connection
      await expect
        .poll(async () => (await admin.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and application_name = 'dqctl'`, [database.name])).rows[0].n, { interval: 20 })
        .toBe(0);
      expect(await store.listSummaries()).toEqual([]);

      const error = await store
        .withLock({ holder: 't', operation: 'apply', timeoutMs: 1_000 }, async (tx) => {
          await terminate();
          await tx.listSummaries();
        })
        .then(
          () => null,
          (caught: unknown) => caught,
        );
      expect(error).toMatchObject({ code: 'STORE_UNREACHABLE' });
      expect((error as Error).message).toContain(`lost the connection to the store ${describeDatabaseUrl(database.url)}: `);
      expect(await store.currentLock()).toBeNull();
      await store.withLock({ holder: 't', operation: 'apply', timeoutMs: 1_000 }, async () => {});
      expect(await store.revision()).toBe(1);
    } finally {
      await store.close();
      await admin.end();
      await database.drop();
    }
  });
});

describe('pglite store: unreachable', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'dqctl-unreachable-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('fails when the state folder cannot be created', async () => {
    const file = join(scratch, 'a-file');
    await writeFile(file, 'not a folder');
    const { error } = await openFailure({ stateDir: join(file, 'state') });
    expect(error.code).toBe('STORE_UNREACHABLE');
    expect(error.message).toMatch(/^cannot create the store folder for pglite:.*a-file\/state\/pglite: .*ENOTDIR/);
  });
});
