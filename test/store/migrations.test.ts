import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboxPayload } from '../../src/incidents/index.js';
import { createSqlStore } from '../../src/store/sqlStore.js';
import type { OpenStoreOptions } from '../../src/store/store.js';
import { openStore } from '../../src/store/index.js';
import { migrate } from '../../src/store/migrate.js';
import { MIGRATIONS, type Migration } from '../../src/store/migrations/index.js';
import { openSqlClient } from '../../src/store/sql/openSqlClient.js';
import type { SqlClient } from '../../src/store/sql/sqlClient.js';
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

  it('checks a current store with one statement (no transaction, no lock), and runs a missing migration under the lock', async () => {
    await fx.closeStore();
    const client = await openSqlClient(fx.options);
    // every statement the check sends, on the client and on its sessions (the locked path runs on a session)
    const sent: string[] = [];
    const counted: SqlClient = Object.create(client);
    counted.query = (text, params) => (sent.push(text), client.query(text, params));
    counted.session = async (options) => {
      const session = await client.session(options);
      const transaction = session.transaction.bind(session);
      session.transaction = (work) => (sent.push('begin'), transaction((tx) => work({ ...tx, query: (text, params) => (sent.push(text), tx.query(text, params)), exec: (script) => (sent.push('exec'), tx.exec(script)), copyFrom: tx.copyFrom.bind(tx) })));
      return session;
    };
    try {
      expect(await migrate(counted)).toEqual([]);
      expect(sent).toEqual(['select version from dqctl.schema_migrations']);

      // a version that knows one migration more: the read finds it missing, the locked path runs it
      const next: Migration = { version: 9000, name: 'test_next', sql: 'create table dqctl.test_next (x integer)' };
      sent.length = 0;
      expect(await migrate(counted, [...MIGRATIONS, next])).toEqual([9000]);
      expect(sent).toEqual([
        'select version from dqctl.schema_migrations',
        'begin',
        'select pg_advisory_xact_lock($1, $2)',
        "select to_regclass('dqctl.schema_migrations') is not null as present",
        'select version from dqctl.schema_migrations',
        'exec',
        'insert into dqctl.schema_migrations (version, name) values ($1, $2)',
      ]);
      sent.length = 0;
      expect(await migrate(counted, [...MIGRATIONS, next])).toEqual([]);
      expect(sent).toEqual(['select version from dqctl.schema_migrations']);
      // and this version, which does not know 9000, refuses the store through the locked path, touching nothing
      await expect(migrate(counted)).rejects.toMatchObject({ code: 'STORE_INCOMPATIBLE' });
      await client.exec('drop table dqctl.test_next; delete from dqctl.schema_migrations where version = 9000');
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
      expect(await migrate(client, MIGRATIONS.filter((m) => m.version <= 9))).toEqual([9]);
      const [message] = await createSqlStore(client).outbox.list({});
      expect(message).toMatchObject({ idempotencyKey: 'key-1', event: 'acknowledged', status: 'pending', filterName: 'urgent', filterMessage: 'Call the on-call' });
      expect(outboxPayload(message!)).toEqual(payload);
    } finally {
      await client.close();
      await cleanup();
    }
  }, 60_000);
});

describe.each(['pglite', 'postgres'] as const)('%s store: migration 10 keeps one result per check, time period and data group', (engine) => {
  it('removes the rows a later run of the same key replaced, keeps execution errors, and holds the key from then on', async () => {
    let options: OpenStoreOptions;
    let cleanup: () => Promise<void>;
    if (engine === 'pglite') {
      const stateDir = await mkdtemp(join(tmpdir(), 'dqctl-migration10-'));
      options = { stateDir, openTimeoutMs: 10_000 };
      cleanup = () => rm(stateDir, { recursive: true, force: true });
    } else {
      const database = await createTestDatabase();
      options = { databaseUrl: database.url };
      cleanup = () => database.drop();
    }
    const client = await openSqlClient(options);
    try {
      expect(await migrate(client, MIGRATIONS.filter((m) => m.version < 10))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // rows as dqctl wrote them before migration 10: every run added its own (ids follow the insert order)
      const rows: Array<[column: string | null, comparison: string | null, period: string, group: string, executedAt: string, severity: number | null, value: number | null, error: string | null, verdict: boolean]> = [
        [null, null, '2026-03-01', 'all data', '2026-03-01T08:00:00Z', 2, 1, null, true],
        [null, null, '2026-03-01', 'all data', '2026-03-01T10:00:00Z', 0, 5, null, true], // the newest run of its key: kept
        [null, null, '2026-03-01', 'all data', '2026-03-01T09:00:00Z', 1, 3, null, true],
        [null, null, '2026-03-01', 'us', '2026-03-01T08:00:00Z', 1, 7, null, true], // another data group: kept
        [null, null, '2026-03-02', 'all data', '2026-03-02T08:00:00Z', 0, 9, null, true], // another period: kept
        [null, null, '2026-03-01', 'all data', '2026-03-01T11:00:00Z', null, null, 'timeout', true], // execution errors: all kept
        [null, null, '2026-03-01', 'all data', '2026-03-01T12:00:00Z', null, null, 'timeout', true],
        ['amount', 'vs_dwh', '2026-03-01', 'eu', '2026-03-01T08:00:00Z', 3, 11, null, true],
        ['amount', 'vs_dwh', '2026-03-01', 'eu', '2026-03-01T08:00:00Z', 2, 12, null, true], // same instant: the later row kept
        ['amount', null, '2026-03-01', 'eu', '2026-03-01T07:00:00Z', 0, 13, null, false], // a readout only, then a result
        ['amount', null, '2026-03-01', 'eu', '2026-03-01T09:00:00Z', 1, 14, null, true],
      ];
      for (const [column, comparison, period, group, executedAt, severity, value, error, verdict] of rows) {
        await client.query(
          `insert into dqctl.check_results (connection_name, schema_name, table_name, column_name, check_type, time_gradient, check_category,
             check_name, check_hash, time_period, data_group, actual_value, severity, executed_at, table_comparison, error_message, verdict)
           values ('shop', 'public', 'orders', $1, 'monitoring', 'day', 'volume', 'daily_row_count', 7, $2::timestamptz, $3, $4, $5, $6::timestamptz, $7, $8, $9)`,
          [column, period, group, value, severity, executedAt, comparison, error, verdict],
        );
      }
      expect(await migrate(client, MIGRATIONS.filter((m) => m.version <= 10))).toEqual([10]);
      const kept = await client.query<{ id: number }>('select id from dqctl.check_results order by id');
      expect(kept.map((row) => Number(row.id))).toEqual([2, 4, 5, 6, 7, 9, 11]);

      // the key holds: a second row of a key cannot be added behind the writer's back, an execution error can
      const duplicate = `insert into dqctl.check_results (connection_name, schema_name, table_name, column_name, check_type, time_gradient,
          check_category, check_name, check_hash, time_period, data_group, severity, table_comparison, error_message)
        values ('shop', 'public', 'orders', $1, 'monitoring', 'day', 'volume', 'daily_row_count', 7, '2026-03-01', $2, $3, $4, $5)`;
      await expect(client.query(duplicate, [null, 'all data', 0, null, null])).rejects.toThrow(/duplicate key|unique/);
      await expect(client.query(duplicate, ['amount', 'eu', 0, 'vs_dwh', null])).rejects.toThrow(/duplicate key|unique/);
      await client.query(duplicate, [null, 'all data', null, null, 'refused']);

      // and the store's upsert names the same key (src/store/resultKey.ts): a later run replaces the kept row in place
      // (the store of this version reads the columns of the later migrations too)
      await migrate(client);
      const store = createSqlStore(client);
      await store.insertCheckResults([
        { connectionName: 'shop', schemaName: 'public', tableName: 'orders', columnName: 'amount', checkType: 'monitoring', timeGradient: 'day', checkCategory: 'volume', checkName: 'daily_row_count', checkHash: 7, tableComparison: 'vs_dwh', timePeriod: '2026-03-01T00:00:00.000Z', dataGroup: 'eu', severity: 0, actualValue: 20, executedAt: '2026-03-01T13:00:00.000Z' },
      ]);
      const compared = await store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders', columnName: 'amount', tableComparison: 'vs_dwh' });
      expect(compared.map((row) => [row.id, row.actualValue, row.severity, row.executedAt])).toEqual([[9, 20, 0, '2026-03-01T13:00:00.000Z']]);
    } finally {
      await client.close();
      await cleanup();
    }
  }, 60_000);
});
