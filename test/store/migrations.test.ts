import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboxPayload } from '../../src/incidents/index.js';
import { createSqlStore } from '../../src/store/sqlStore.js';
import type { OpenStoreOptions } from '../../src/store/store.js';
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

describe.each(['pglite', 'postgres'] as const)('%s store: migration 9 keeps the messages written before it', (engine) => {
  it('converts a pending message from its payload to the incident columns, and sends the same payload', async () => {
    let options: OpenStoreOptions;
    let cleanup: () => Promise<void>;
    if (engine === 'pglite') {
      const stateDir = await mkdtemp(join(tmpdir(), 'dqctl-migration9-'));
      options = { stateDir, openTimeoutMs: 10_000 };
      cleanup = () => rm(stateDir, { recursive: true, force: true });
    } else {
      const database = await createTestDatabase();
      options = { databaseUrl: database.url };
      cleanup = () => database.drop();
    }
    const client = await openSqlClient(options);
    try {
      expect(await migrate(client, MIGRATIONS.filter((m) => m.version < 9))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // a message as dqctl wrote it before migration 9: the whole payload as jsonb
      const payload = {
        incident_id: 'inc-1',
        connection: 'shop',
        schema: 'public',
        table: 'orders & <items>',
        table_priority: 3,
        incident_hash: 4503599627370495,
        first_seen: '2026-10-01T08:00:00.000Z',
        last_seen: '2026-10-02T09:30:00.000Z',
        incident_until: '2026-10-31T08:00:00.000Z',
        data_group_name: 'EU',
        quality_dimension: 'Completeness',
        check_category: 'nulls',
        check_type: 'monitoring',
        check_name: 'daily_nulls_count',
        highest_severity: 2,
        failed_checks_count: 7,
        issue_url: null,
        status: 'acknowledged',
        year: 2026,
        month: 10,
        message: 'Call the on-call',
        notification_name: 'urgent',
      };
      await client.query(
        `insert into dqctl.notification_outbox (idempotency_key, incident_id, connection_name, event, address, filter_name, payload, status, created_at, next_attempt_at)
         values ('key-1', 'inc-1', 'shop', 'acknowledged', 'http://127.0.0.1:1/hook', 'urgent', $1::text::jsonb, 'pending', '2026-10-02T10:00:00Z', '2026-10-02T10:00:00Z')`,
        [JSON.stringify(payload)],
      );
      expect(await migrate(client)).toEqual(MIGRATIONS.map((m) => m.version).filter((version) => version >= 9));
      const [message] = await createSqlStore(client).outbox.list({});
      expect(message).toMatchObject({ idempotencyKey: 'key-1', event: 'acknowledged', status: 'pending', filterName: 'urgent', filterMessage: 'Call the on-call' });
      expect(outboxPayload(message!)).toEqual(payload);
    } finally {
      await client.close();
      await cleanup();
    }
  }, 60_000);
});
