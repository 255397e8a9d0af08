import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents, setIncidentStatus, type IncidentConfiguration } from '../../src/incidents/index.js';
import type { JsonObject } from '../../src/model/index.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Failures become incidents in the transaction of their results, on both engines: grouped by the grouping level,
 * absorbed while open/acknowledged/muted, a new one (same hash) after resolve or after incident_until, one
 * outbox message per state change and address, none per absorbed failure.
 */
const failure = (overrides: Partial<CheckResultInput>): CheckResultInput => failedResult({ actualValue: 10, ...overrides });

function configuration(grouping: JsonObject = {}, tables: Record<string, JsonObject> = {}): IncidentConfiguration {
  const connection: JsonObject = {
    incident_grouping: {
      grouping_level: 'table_dimension',
      incident_notification: { incident_opened_addresses: 'http://127.0.0.1:9/opened, ops@example.com', incident_resolved_addresses: 'http://127.0.0.1:9/resolved' },
      ...grouping,
    },
  };
  return { connectionSpec: () => connection, tableSpec: (_c, s, t) => tables[`${s}.${t}`], defaultNotifications: undefined };
}

describe.each(STORE_ENGINES)('incidents on $engine', (engine) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await engine.setup();
  }, 60_000);
  afterAll(async () => fx?.dispose());
  beforeEach(async () => fx.reset());

  it('groups failures by table and dimension, writes results and incidents together, one message per address', async () => {
    const rows = [
      failure({}),
      failure({ checkName: 'daily_nulls_percent', checkHash: 2, severity: 3 }),
      failure({ checkCategory: 'uniqueness', checkName: 'daily_duplicate_count', checkHash: 3, qualityDimension: 'Uniqueness', severity: 1 }),
      failure({ checkName: 'daily_row_count', checkHash: 4, severity: 0 }),
    ];
    const outcome = await recordResultsWithIncidents(fx.store, rows, configuration());
    expect(outcome.opened).toHaveLength(2);
    const incidents = await fx.store.incidents.list({ connection: 'shop', order: 'highestSeverity' });
    expect(incidents.map((i) => [i.qualityDimension, i.failedChecksCount, i.highestSeverity, i.status, i.checkCategory])).toEqual([
      ['Completeness', 2, 3, 'open', null],
      ['Uniqueness', 1, 1, 'open', null],
    ]);
    expect(incidents[0]).toMatchObject({ year: 2026, month: 11, firstSeen: '2026-11-20T10:00:00.000Z', incidentUntil: '2027-01-19T10:00:00.000Z' });
    const messages = await fx.store.outbox.list({});
    expect(messages).toHaveLength(4);
    expect(new Set(messages.map((m) => m.idempotencyKey)).size).toBe(4);
    expect(messages.every((m) => m.event === 'open' && m.status === 'pending')).toBe(true);
    expect(await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' })).toHaveLength(4);
  });

  it('absorbs later failures without a message, keeps the status, and opens a new incident after resolve', async () => {
    await recordResultsWithIncidents(fx.store, [failure({})], configuration());
    const [first] = await fx.store.incidents.list({ connection: 'shop' });
    const address = { connection: 'shop', year: first.year, month: first.month, id: first.id };
    await setIncidentStatus(fx.store, address, { status: 'acknowledged', by: 'alice', at: '2026-11-20T11:00:00.000Z', connectionSpec: undefined, defaultNotifications: undefined });
    await recordResultsWithIncidents(fx.store, [failure({ executedAt: '2026-11-21T10:00:00.000Z', severity: 3 })], configuration());
    let [current] = await fx.store.incidents.list({ connection: 'shop' });
    expect(current).toMatchObject({ id: first.id, status: 'acknowledged', failedChecksCount: 2, highestSeverity: 3, lastSeen: '2026-11-21T10:00:00.000Z' });
    expect(await fx.store.outbox.list({})).toHaveLength(2); // the two "opened" messages only

    const spec = configuration().connectionSpec('shop');
    const resolved = await setIncidentStatus(fx.store, address, { status: 'resolved', by: 'alice', at: '2026-11-21T12:00:00.000Z', connectionSpec: spec, defaultNotifications: undefined });
    expect(resolved).toMatchObject({ changed: true, messages: 1 });
    expect(await setIncidentStatus(fx.store, address, { status: 'resolved', by: 'alice', at: '2026-11-21T12:00:00.000Z', connectionSpec: spec, defaultNotifications: undefined })).toMatchObject({ changed: false, messages: 0 });
    await recordResultsWithIncidents(fx.store, [failure({ executedAt: '2026-11-22T10:00:00.000Z' })], configuration());
    const all = await fx.store.incidents.list({ connection: 'shop', order: 'firstSeen', direction: 'asc' });
    expect(all.map((i) => i.status)).toEqual(['resolved', 'open']);
    expect(all[1].incidentHash).toBe(all[0].incidentHash);
    expect(all[1].id).not.toBe(all[0].id);
    current = all[1];
    expect(current.failedChecksCount).toBe(1);
  });

  it('closes an incident past incident_until and opens a new one; a muted one stays muted for mute_for_days', async () => {
    const config = configuration({ max_incident_length_days: 2, mute_for_days: 10 });
    await recordResultsWithIncidents(fx.store, [failure({})], config);
    await recordResultsWithIncidents(fx.store, [failure({ executedAt: '2026-11-23T10:00:00.000Z' })], config);
    let all = await fx.store.incidents.list({ connection: 'shop', order: 'firstSeen', direction: 'asc' });
    expect(all.map((i) => i.status)).toEqual(['resolved', 'open']);
    const second = all[1];
    await setIncidentStatus(fx.store, { connection: 'shop', year: 2026, month: 11, id: second.id }, { status: 'muted', by: 'bob', at: '2026-11-23T11:00:00.000Z', connectionSpec: config.connectionSpec('shop'), defaultNotifications: undefined });
    // five days later: past the 2-day incident length, within the 10 muted days
    await recordResultsWithIncidents(fx.store, [failure({ executedAt: '2026-11-28T10:00:00.000Z' })], config);
    all = await fx.store.incidents.list({ connection: 'shop', order: 'firstSeen', direction: 'asc' });
    expect(all.map((i) => [i.status, i.failedChecksCount])).toEqual([['resolved', 1], ['muted', 2]]);
    expect(all[1].incidentUntil).toBe('2026-12-03T11:00:00.000Z');
  });

  it('follows the table override: grouping level, minimum severity, disabled, data groups', async () => {
    const tables = {
      'public.orders': { priority: 2, incident_grouping: { grouping_level: 'table', minimum_severity: 'error', divide_by_data_group: true } },
      'public.quiet': { incident_grouping: { disabled: true } },
    };
    await recordResultsWithIncidents(
      fx.store,
      [
        failure({ dataGroup: 'EU' }),
        failure({ dataGroup: 'US', qualityDimension: 'Validity' }),
        // another check (one check has one result per period and data group)
        failure({ dataGroup: 'US', checkName: 'daily_nulls_percent', checkHash: 2, severity: 1 }),
        failure({ tableName: 'quiet', severity: 3 }),
      ],
      configuration({}, tables),
    );
    const incidents = await fx.store.incidents.list({ connection: 'shop', order: 'dataGroup', direction: 'asc' });
    expect(incidents.map((i) => [i.table, i.dataGroup, i.qualityDimension, i.failedChecksCount, i.tablePriority, i.minimumSeverity])).toEqual([
      ['orders', 'EU', null, 1, 2, 2],
      ['orders', 'US', null, 1, 2, 2],
    ]);
  });

  it('counts a failure the batch names twice once, as the store keeps one result per check, period and data group', async () => {
    const outcome = await recordResultsWithIncidents(
      fx.store,
      [failure({ executedAt: '2026-11-20T10:00:00.000Z', actualValue: 5 }), failure({ executedAt: '2026-11-20T10:00:00.000Z', actualValue: 7, severity: 3 })],
      configuration(),
    );
    expect(outcome).toMatchObject({ absorbed: 0, opened: [expect.objectContaining({ failedChecksCount: 1, highestSeverity: 3 })] });
    const [incident] = await fx.store.incidents.list({ connection: 'shop' });
    expect((await fx.store.incidents.issues(incident)).map((i) => [i.actualValue, i.severity])).toEqual([[7, 3]]);
  });

  it('a failing incident write rolls back the results too', async () => {
    const broken: IncidentConfiguration = {
      ...configuration(),
      connectionSpec: () => {
        throw new Error('boom');
      },
    };
    await expect(recordResultsWithIncidents(fx.store, [failure({})], broken)).rejects.toThrow('boom');
    expect(await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' })).toHaveLength(0);
  });

  it('a write that fails while the results are inserted rolls back both; so does a results insert that fails under a write', async () => {
    // the grouping's write step runs together with the results' insert (ResultsTransactionWork)
    let calls = 0;
    const failsInWrite: IncidentConfiguration = {
      ...configuration(),
      connectionSpec: (connection) => {
        if (++calls > 1) throw new Error('boom in write');
        return configuration().connectionSpec(connection);
      },
    };
    await expect(recordResultsWithIncidents(fx.store, [failure({})], failsInWrite)).rejects.toThrow('boom in write');
    expect(await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' })).toHaveLength(0);
    expect(await fx.store.incidents.list({ connection: 'shop' })).toEqual([]);

    // a row the database refuses: its error is the one reported (not the aborted transaction the write then meets)
    const refused = failure({ tableName: 'customers', timePeriod: 'not a time' });
    await expect(recordResultsWithIncidents(fx.store, [failure({}), refused], configuration())).rejects.toThrow(/not a time/);
    expect(await fx.store.checkResults({ connectionName: 'shop', schemaName: 'public', tableName: 'orders' })).toHaveLength(0);
    expect(await fx.store.incidents.list({ connection: 'shop' })).toEqual([]);
    expect(await fx.store.outbox.list({})).toEqual([]);
  });

  it('deleteStoredData with incidents removes them', async () => {
    await recordResultsWithIncidents(fx.store, [failure({}), failure({ tableName: 'customers' })], configuration());
    const counts = await fx.store.deleteStoredData({ connection: 'shop', fullTableName: 'public.orders', checkResults: false, errors: false, errorSamples: false, incidents: true });
    expect(counts.incidents).toBe(1);
    expect((await fx.store.incidents.list({ connection: 'shop' })).map((i) => i.table)).toEqual(['customers']);
  });
});
