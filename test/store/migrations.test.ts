import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { openSqlClient } from '../../src/store/sql/openSqlClient.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase } from '../helpers/testDatabase.js';
import { objectWrite } from './support/objectWrites.js';

describe.each(STORE_ENGINES)('$engine store: migrations', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
  });

  it('records every known migration once, and reopening runs none again and keeps the data', async () => {
    const versions = async () =>
      (await fx.sql.query<{ version: number }>('select version from dqctl.schema_migrations order by version')).map(
        (row) => row.version,
      );
    expect(await versions()).toEqual(MIGRATIONS.map((migration) => migration.version));
    await fx.store.withLock({ holder: 't', operation: 'apply', timeoutMs: 1_000 }, (tx) =>
      tx.upsertObjects([objectWrite('source', 'kept', { a: 1 })]),
    );

    await fx.reopen();
    expect(await versions()).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect((await fx.store.listObjects()).map((object) => [object.name, object.spec])).toEqual([['kept', { a: 1 }]]);
    expect(await fx.store.revision()).toBe(1);

    await fx.closeStore();
    const client = await openSqlClient(fx.options);
    try {
      expect(await migrate(client)).toEqual([]);
    } finally {
      await client.close();
    }
    await fx.reopen();
  });

  it('refuses a store migrated by a newer dqctl, touching nothing', async () => {
    await fx.sql.query(`insert into dqctl.schema_migrations (version, name) values (9999, 'from the future')`);
    await fx.closeStore();
    await expect(openStore(fx.options)).rejects.toMatchObject({
      code: 'STORE_INCOMPATIBLE',
      message: expect.stringMatching(/migrated by a newer dqctl \(migration 9999 is unknown/),
    });
    // The failed open released what it took (connections, the folder lock) and changed nothing.
    const client = await openSqlClient(fx.options);
    try {
      const newest = Math.max(...MIGRATIONS.map((migration) => migration.version));
      expect(await client.query('select name from dqctl.schema_migrations where version > $1', [newest])).toEqual([
        { name: 'from the future' },
      ]);
      await client.query('delete from dqctl.schema_migrations where version = 9999');
    } finally {
      await client.close();
    }
    await fx.reopen();
  });
});

describe('postgres store: migrations under concurrency', () => {
  it('lets several processes open a fresh database at once, each migration running exactly once', async () => {
    const database = await createTestDatabase();
    try {
      const stores = await Promise.all([1, 2, 3, 4].map(() => openStore({ databaseUrl: database.url })));
      try {
        const rows = await stores[0].listSummaries();
        expect(rows).toEqual([]);
        expect(await Promise.all(stores.map((store) => store.revision()))).toEqual([0, 0, 0, 0]);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    } finally {
      await database.drop();
    }
  });
});
