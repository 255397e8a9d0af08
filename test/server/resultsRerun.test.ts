import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { runChecks } from '../../src/jobs/executors/runChecks.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * Two check runs on one day, as a person re-runs them: every results view, the readout chart, the incident's issue
 * list and the rules' history read ONE row per check, time period and data group, the later run's (DQOps keys a
 * result so, and a re-run replaces it). Real check runs (an injected clock) on a real PostgreSQL data source whose
 * `public.orders` is grouped by region: 3 EU and 2 US rows at 08:00, 6 and 4 by 10:00.
 */
const DAY_MS = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
/** Two days ago (the re-run day) and yesterday (the day after it), recent enough for the incidents' list. */
const DAY_1 = new Date(today - 2 * DAY_MS).toISOString();
const DAY_2 = new Date(today - DAY_MS).toISOString();
const at = (day: string, hour: number) => new Date(Date.parse(day) + hour * 3_600_000);
const RUN_1 = at(DAY_1, 8);
/** Rows of one run share their execution time: the tests read them by data group. */
const byGroup = <T>(rows: T[], group: (row: T) => string): T[] => [...rows].sort((a, b) => group(a).localeCompare(group(b)));
const RUN_2 = at(DAY_1, 10);
const TABLE = '/api/connections/src/schemas/public/tables/orders';

describe.each(STORE_ENGINES)('two check runs on one day, $engine store', ({ setup }) => {
  let fx: StoreFixture;
  let source: TestDatabase;
  let objects: LiveObjects;
  let dataSources: DataSources;
  let app: FastifyInstance;

  const addOrders = async (eu: number, us: number) => {
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    try {
      await client.query(`insert into public.orders (region) select 'eu' from generate_series(1, $1::int) union all select 'us' from generate_series(1, $2::int)`, [eu, us]);
    } finally {
      await client.end();
    }
  };
  const runAt = (now: Date) => runChecks({ store: fx.store, objects, dataSources }, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now });
  const get = async (url: string) => {
    const { status, body } = await call(app, { method: 'GET', url });
    expect(status, url).toBe(200);
    return body;
  };

  beforeAll(async () => {
    fx = await setup();
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query('create table public.orders (id serial primary key, region text not null)');
    await client.end();
    const url = new URL(source.url);
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const ctx = { caller: 'test' };
    await objects.create(
      'source',
      'src',
      { provider_type: 'postgresql', postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${DQCTL_TEST_UNUSED_PASSWORD}' } },
      ctx,
    );
    await objects.create(
      'table',
      'src/public.orders',
      {
        groupings: { default: { level_1: { source: 'column_value', column: 'region' } } },
        monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 5 } }, daily_row_count_change: { warning: { max_percent: 10 } } } } },
      },
      ctx,
    );
    dataSources = new DataSources({ env: { DQCTL_TEST_UNUSED_PASSWORD: '' } });
    app = await serverOn(fx.store);

    await addOrders(3, 2);
    await runAt(RUN_1); // both regions under 5 rows: two warnings, one incident
    await addOrders(3, 2);
    await runAt(RUN_2); // EU 6 rows (valid), US 4 (a warning again)
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await dataSources?.close();
    await source?.drop();
    await fx?.dispose();
  });

  it('leaves one result per check, period and data group in every results route, with the later run values', async () => {
    const results = await get(`${TABLE}/monitoring/daily/results`);
    const rowCount = results.find((c: any) => c.checkName === 'daily_row_count');
    expect(byGroup(rowCount.checkResultEntries, (e: any) => e.dataGroup).map((e: any) => [e.timePeriod, e.dataGroup, e.actualValue, e.severity, e.executedAt])).toEqual([
      [DAY_1.slice(0, 19), 'eu', 6, 0, RUN_2.getTime()],
      [DAY_1.slice(0, 19), 'us', 4, 1, RUN_2.getTime()],
    ]);
    // the change check had no history yet: readouts only, one per period and data group
    expect(results.map((c: any) => c.checkName)).toEqual(['daily_row_count']);

    const readouts = await get(`${TABLE}/monitoring/daily/readouts`);
    expect(Object.fromEntries(readouts.map((c: any) => [c.checkName, byGroup(c.sensorReadoutEntries, (e: any) => e.dataGroup).map((e: any) => [e.dataGroup, e.actualValue, e.executedAt])]))).toEqual({
      daily_row_count: [['eu', 6, RUN_2.getTime()], ['us', 4, RUN_2.getTime()]],
      daily_row_count_change: [['eu', 6, RUN_2.getTime()], ['us', 4, RUN_2.getTime()]],
    });

    const overview = await get(`${TABLE}/monitoring/daily/overview`);
    expect(overview).toEqual([
      expect.objectContaining({ checkName: 'daily_row_count', timePeriods: [DAY_1.slice(0, 19)], executedAtTimestamps: [RUN_2.getTime()], statuses: ['warning'], dataGroups: ['us'], results: [4] }),
    ]);

    // the readout chart's data
    const chart = await get(`${TABLE}/checkresults`);
    const chartRows = chart.find((c: any) => c.check_name === 'daily_row_count').results;
    expect(byGroup(chartRows, (r: any) => r.data_group).map((r: any) => [r.data_group, r.actual_value, r.severity, r.executed_at])).toEqual([
      ['eu', 6, 'valid', RUN_2.toISOString()],
      ['us', 4, 'warning', RUN_2.toISOString()],
    ]);

    const status = await get(`${TABLE}/status`);
    expect(status).toMatchObject({ current_severity: 'warning', valid_results: 1, warnings: 1, executed_checks: 1 });

    const histogram = await get(`${TABLE}/histogram?executed_since=${DAY_1.slice(0, 10)}`);
    expect(histogram.days).toEqual({ [DAY_1.slice(0, 10)]: { warnings: 1, errors: 0, fatals: 0, totalCount: 1 } });
    expect(histogram.checks).toEqual({ daily_row_count: 1 });
  });

  it("lists each failure of the incident once, the later run's, and counts each run's failures once", async () => {
    const incidents = await get('/api/incidents/src');
    expect(incidents).toHaveLength(1);
    const incident = incidents[0];
    // DQOps adds each run's failures to the incident: 2 warnings at 08:00, 1 at 10:00
    expect(incident).toMatchObject({ failedChecksCount: 3, highestSeverity: 1, firstSeen: RUN_1.getTime(), lastSeen: RUN_2.getTime() });
    const issues = await get(`/api/incidents/src/${incident.year}/${incident.month}/${incident.incidentId}/issues`);
    expect(issues.map((i: any) => [i.checkName, i.dataGroup, i.actualValue, i.severity, i.executedAt])).toEqual([['daily_row_count', 'us', 4, 1, RUN_2.getTime()]]);
    const histogram = await get(`/api/incidents/src/${incident.year}/${incident.month}/${incident.incidentId}/histogram`);
    expect(histogram.checks).toEqual({ daily_row_count: 1 });
  });

  it("gives the rules' history one readout per period: the next day compares with the re-run's value", async () => {
    await runAt(at(DAY_2, 8)); // the same 6 and 4 rows: no change from the re-run's readouts (from the first run's: +100 %)
    const change = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'orders', checkName: 'daily_row_count_change', timePeriodFrom: DAY_2 });
    expect(byGroup(change, (r) => r.dataGroup).map((r) => [r.dataGroup, r.actualValue, r.severity])).toEqual([
      ['eu', 6, 0],
      ['us', 4, 0],
    ]);
    const history = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'orders', checkName: 'daily_row_count_change', read: 'readouts', dataGroup: 'eu' });
    expect(history.map((r) => [r.timePeriod, r.actualValue])).toEqual([
      [DAY_2, 6],
      [DAY_1, 6],
    ]);
  });
});
