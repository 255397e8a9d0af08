import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultQualityDimension } from '../../src/catalog/index.js';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import { checkHashOf } from '../../src/jobs/checkRun/plannedChecks.js';
import type { JsonObject, SeverityNumber } from '../../src/model/index.js';
import { parseTokens } from '../../src/server/tokens.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';
import { startHttpReceiver } from '../helpers/receivers.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * DQOps's incidents and filtered notifications API over a real store: list and read incidents (camelCase,
 * epoch ms), change their status (operator role; a viewer gets 403; messages go to the outbox, and with a
 * deliverer to a real receiver), 404 with the error body, issues, histogram, statistics, top incidents,
 * filtered notifications and default webhooks with their address validation, disabling the checks, and recalibrating
 * them (thresholds loosened in the table spec).
 */
const CONNECTION = 'shop_oltp';
/** One run: all its results share the time it ran (within the months the list looks back over). */
const RUN_AT = new Date().toISOString();

const failure = (overrides: Partial<CheckResultInput>): CheckResultInput =>
  failedResult({ connectionName: CONNECTION, columnName: 'customer_id', actualValue: 10, executedAt: RUN_AT, ...overrides });

const TOKENS = parseTokens('- {name: v, role: viewer, token: viewer-0001}\n- {name: o, role: operator, token: operator-001}\n- {name: a, role: admin, token: admin-000001}', 't');
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(STORE_ENGINES)('incidents API on $engine', (engine) => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let config: IncidentConfiguration;

  beforeAll(async () => {
    fx = await engine.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store, { tokens: TOKENS });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
  });
  // the examples are applied once; each test starts from the same three failures (tests change only the specs
  // they look at afterwards)
  beforeEach(async () => {
    await fx.sql.exec('truncate dqctl.incidents, dqctl.notification_outbox, dqctl.check_results, dqctl.table_status restart identity');
    const spec: JsonObject = { incident_grouping: { grouping_level: 'table_dimension', incident_notification: { incident_acknowledged_addresses: 'http://127.0.0.1:9/ack' } } };
    config = { connectionSpec: () => spec, tableSpec: () => undefined, defaultNotifications: undefined };
    await recordResultsWithIncidents(fx.store, [failure({}), failure({ checkName: 'daily_nulls_percent', checkHash: 2, severity: 3, columnName: 'status' }), failure({ tableName: 'customers', qualityDimension: 'Validity', severity: 1 })], config);
  }, 60_000);

  const first = async () => {
    const { body } = await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?order=highestSeverity`, headers: as('viewer-0001') });
    return body[0] as JsonObject;
  };
  const path = (i: JsonObject) => `/api/incidents/${CONNECTION}/${i.year}/${i.month}/${i.incidentId}`;

  it('lists and reads incidents as IncidentModel, filters them, and answers 404 with the error body', async () => {
    const list = await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?order=highestSeverity`, headers: as('viewer-0001') });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    expect(list.body[0]).toMatchObject({ connection: CONNECTION, schema: 'public', table: 'orders', qualityDimension: 'Completeness', highestSeverity: 3, failedChecksCount: 2, status: 'open' });
    expect(typeof list.body[0].firstSeen).toBe('number');
    expect((await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?severity=1`, headers: as('viewer-0001') })).body.map((i: JsonObject) => i.table)).toEqual(['customers']);
    expect((await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?filter=CUST`, headers: as('viewer-0001') })).body).toHaveLength(1);
    expect((await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?dimension=Validity&open=true`, headers: as('viewer-0001') })).body).toHaveLength(1);
    expect((await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}?open=false`, headers: as('viewer-0001') })).body).toHaveLength(0);
    const one = await call(app, { method: 'GET', url: path(list.body[0]), headers: as('viewer-0001') });
    expect(one.body).toEqual(list.body[0]);
    const missing = await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}/2026/11/no-such-incident`, headers: as('viewer-0001') });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, code: 'NOT_FOUND', error: 'Not Found', path: `/api/incidents/${CONNECTION}/2026/11/no-such-incident` });
    const wrongMonth = await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}/2020/1/${list.body[0].incidentId}`, headers: as('viewer-0001') });
    expect(wrongMonth.status).toBe(404);
  });

  it('changes the status with the operator role only, and writes the message of the new status', async () => {
    const incident = await first();
    const viewer = await call(app, { method: 'POST', url: `${path(incident)}/status?status=acknowledged`, headers: as('viewer-0001') });
    expect(viewer.status).toBe(403);
    expect(viewer.body.code).toBe('FORBIDDEN');
    const bad = await call(app, { method: 'POST', url: `${path(incident)}/status?status=closed`, headers: as('operator-001') });
    expect(bad.status).toBe(400);
    // the connection of the store has no addresses: the change is stored, nothing is sent
    expect((await call(app, { method: 'POST', url: `${path(incident)}/status?status=acknowledged`, headers: as('operator-001') })).status).toBe(204);
    expect((await first()).status).toBe('acknowledged');
    expect((await call(app, { method: 'POST', url: `/api/incidents/${CONNECTION}/2026/1/nope/status?status=resolved`, headers: as('operator-001') })).status).toBe(404);
    expect((await call(app, { method: 'POST', url: `${path(incident)}/issueurl?issueUrl=${encodeURIComponent('https://jira.example.com/DQ-1')}`, headers: as('operator-001') })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: path(incident), headers: as('viewer-0001') })).body.issueUrl).toBe('https://jira.example.com/DQ-1');
    expect((await call(app, { method: 'POST', url: `${path(incident)}/issueurl?issueUrl=javascript:alert(1)`, headers: as('operator-001') })).status).toBe(400);
  });

  it('delivers the message of a status change to a real receiver when the server runs the deliverer', async () => {
    const receiver = await startHttpReceiver();
    const withDeliverer = await serverOn(fx.store, { tokens: TOKENS, notifications: { baseUrl: 'http://dqctl.test', pollMs: 50 } });
    try {
      const put = await call(withDeliverer, {
        method: 'PUT',
        url: `/api/connections/${CONNECTION}/incidentgrouping`,
        headers: as('admin-000001'),
        payload: { grouping_level: 'table_dimension', incident_notification: { incident_muted_addresses: `${receiver.url}/muted` } },
      });
      expect(put.status).toBe(204);
      const incident = await first();
      expect((await call(withDeliverer, { method: 'POST', url: `${path(incident)}/status?status=muted`, headers: as('operator-001') })).status).toBe(204);
      await receiver.arrival(0); // the receiver's event: the first request has arrived
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].body).toMatchObject({ incident_id: incident.incidentId, status: 'muted', table: 'orders' });
      expect(receiver.received[0].body.text).toContain(`http://dqctl.test${path(incident)}`);
      const outbox = await call(withDeliverer, { method: 'GET', url: '/api/notifications/outbox', headers: as('viewer-0001') });
      expect(outbox.body[0]).toMatchObject({ event: 'muted', address: `${receiver.url}/muted`, table: 'public.orders' });
    } finally {
      await withDeliverer.close();
      await receiver.close();
    }
  });

  it('answers the issues, the histogram, the statistics and the top incidents', async () => {
    const incident = await first();
    const issues = await call(app, { method: 'GET', url: `${path(incident)}/issues`, headers: as('viewer-0001') });
    expect(issues.status).toBe(200);
    expect(issues.body.map((r: JsonObject) => r.checkName).sort()).toEqual(['daily_nulls_count', 'daily_nulls_percent']);
    expect(issues.body[0]).toMatchObject({ checkType: 'monitoring', dataGroup: 'all data', qualityDimension: 'Completeness' });
    expect((await call(app, { method: 'GET', url: `${path(incident)}/issues?column=status`, headers: as('viewer-0001') })).body).toHaveLength(1);
    const histogram = await call(app, { method: 'GET', url: `${path(incident)}/histogram`, headers: as('viewer-0001') });
    expect(histogram.body).toMatchObject({ hasDailyMonitoringIssues: true, hasProfilingIssues: false, columns: { customer_id: 1, status: 1 }, checks: { daily_nulls_count: 1, daily_nulls_percent: 1 } });
    expect(Object.values(histogram.body.days)).toEqual([{ warnings: 0, errors: 1, fatals: 1, totalCount: 2 }]);
    const stat = await call(app, { method: 'GET', url: '/api/incidentstat', headers: as('viewer-0001') });
    expect(stat.body).toEqual([{ connection: CONNECTION, openIncidents: 2, mostRecentFirstSeen: incident.firstSeen }]);
    const top = await call(app, { method: 'GET', url: '/api/topincidents?groupBy=dimension', headers: as('viewer-0001') });
    expect(Object.keys(top.body.topIncidents).sort()).toEqual(['Completeness', 'Validity']);
    expect(top.body.openIncidentSeverityLevelCounts.fatalCounts).toMatchObject({ totalCount: 1, countFromLast24h: 1 });
  });

  it('recalibrates the checks that can raise an incident: loosens the severities their results reached, in the table spec', async () => {
    const table = `${CONNECTION}/public.orders`;
    const today = `${RUN_AT.slice(0, 10)}T00:00:00.000Z`;
    const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString();
    const result = (column: string, category: string, checkName: string, severity: SeverityNumber, actualValue: number, executedAt = RUN_AT): CheckResultInput =>
      failure({
        columnName: column,
        checkCategory: category,
        checkName,
        checkHash: checkHashOf(table, column, 'monitoring', 'daily', checkName),
        qualityDimension: defaultQualityDimension(checkName),
        timePeriod: executedAt === RUN_AT ? today : yesterday,
        severity,
        actualValue,
        executedAt,
      });
    const byName: IncidentConfiguration = {
      connectionSpec: () => ({ incident_grouping: { grouping_level: 'table_dimension_category_name' } }),
      tableSpec: () => undefined,
      defaultNotifications: undefined,
    };
    await recordResultsWithIncidents(
      fx.store,
      [
        result('customer_id', 'integrity', 'daily_lookup_key_not_found', 1, 3, yesterday),
        result('customer_id', 'integrity', 'daily_lookup_key_not_found', 2, 12),
        // daily_nulls_count of customer_id comes from a policy (id_columns_not_null); order_id has its own
        result('customer_id', 'nulls', 'daily_nulls_count', 2, 4),
        result('order_id', 'nulls', 'daily_nulls_count', 0, 0),
      ],
      byName,
    );
    const incidents = (await call(app, { method: 'GET', url: `/api/incidents/${CONNECTION}`, headers: as('viewer-0001') })).body as JsonObject[];
    const lookup = incidents.find((i) => i.checkName === 'daily_lookup_key_not_found')!;
    const nulls = incidents.find((i) => i.checkName === 'daily_nulls_count' && i.table === 'orders')!;
    expect((await call(app, { method: 'POST', url: `${path(lookup)}/checks/recalibrate`, headers: as('viewer-0001') })).status).toBe(403);
    const unknown = await call(app, { method: 'POST', url: `/api/incidents/${CONNECTION}/2026/1/no-such-incident/checks/recalibrate`, headers: as('operator-001') });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);
    const before = (await fx.store.getObjects([{ kind: 'table', name: table }]))[0];

    expect((await call(app, { method: 'POST', url: `${path(lookup)}/checks/recalibrate`, headers: as('operator-001') })).status).toBe(204);
    let [orders] = await fx.store.getObjects([{ kind: 'table', name: table }]);
    let columns = orders.spec.columns as Record<string, any>;
    // warning (reached) 0 → 5; error (reached) 10 → 15 (DQOps grows this check's error by half); fatal (not reached) stays
    expect(columns.customer_id.monitoring_checks.daily.integrity.daily_lookup_key_not_found).toEqual({
      parameters: { foreign_table: 'public.customers', foreign_column: 'customer_id' },
      warning: { max_count: 5 },
      error: { max_count: 15 },
      fatal: { max_count: 100 },
    });
    // nothing else of the table changed, and the write is drift against the repository
    expect(columns.customer_id.monitoring_checks.daily.nulls).toBeUndefined();
    expect(orders.contentHash).not.toBe(before.contentHash);
    expect(orders.appliedHash).toBe(before.appliedHash);

    expect((await call(app, { method: 'POST', url: `${path(nulls)}/checks/recalibrate`, headers: as('operator-001') })).status).toBe(204);
    [orders] = await fx.store.getObjects([{ kind: 'table', name: table }]);
    columns = orders.spec.columns as Record<string, any>;
    // the policy's check is written into the table, loosened; order_id's own check had no failure: unchanged
    expect(columns.customer_id.monitoring_checks.daily.nulls.daily_nulls_count).toEqual({ error: { max_count: 5 } });
    expect(columns.customer_id.profiling_checks).toBeUndefined();
    expect(columns.order_id.monitoring_checks.daily.nulls.daily_nulls_count).toEqual({ error: { max_count: 0 } });
    // a second recalibration loosens again from the new thresholds
    expect((await call(app, { method: 'POST', url: `${path(lookup)}/checks/recalibrate`, headers: as('operator-001') })).status).toBe(204);
    [orders] = await fx.store.getObjects([{ kind: 'table', name: table }]);
    expect((orders.spec.columns as Record<string, any>).customer_id.monitoring_checks.daily.integrity.daily_lookup_key_not_found).toMatchObject({
      warning: { max_count: 7 },
      error: { max_count: 22 },
    });
  });

  it('disables the checks that failed in an incident, in the table spec', async () => {
    const incident = await first();
    expect((await call(app, { method: 'POST', url: `${path(incident)}/checks/disable`, headers: as('viewer-0001') })).status).toBe(403);
    expect((await call(app, { method: 'POST', url: `${path(incident)}/checks/disable`, headers: as('operator-001') })).status).toBe(204);
    const table = await fx.store.getObjects([{ kind: 'table', name: `${CONNECTION}/public.orders` }]);
    const columns = table[0].spec.columns as Record<string, JsonObject>;
    expect((columns.customer_id.monitoring_checks as any).daily.nulls.daily_nulls_count.disabled).toBe(true);
    expect((columns.status.monitoring_checks as any).daily.nulls.daily_nulls_percent.disabled).toBe(true);
  });

  it('manages filtered notifications of a connection and of the defaults, and refuses an address that is neither a URL nor an e-mail', async () => {
    const base = `/api/connections/${CONNECTION}/filterednotifications`;
    const model = { name: 'fatal', priority: 1, filter: { table: 'ord*', highest_severity: 3 }, target: { incident_opened_addresses: '${PAGER_HOOK}, oncall@example.com' }, message: 'page the on-call' };
    expect((await call(app, { method: 'POST', url: base, headers: as('admin-000001'), payload: model })).status).toBe(201);
    expect((await call(app, { method: 'POST', url: base, headers: as('admin-000001'), payload: model })).status).toBe(409);
    expect((await call(app, { method: 'GET', url: base, headers: as('viewer-0001') })).body).toEqual([model]);
    expect((await call(app, { method: 'GET', url: `${base}/fatal`, headers: as('viewer-0001') })).body).toEqual(model);
    const bad = await call(app, { method: 'PUT', url: `${base}/fatal`, headers: as('admin-000001'), payload: { ...model, target: { incident_opened_addresses: 'not an address' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.violations[0]).toMatchObject({ path: '/target/incident_opened_addresses', code: 'invalid_address' });
    expect((await call(app, { method: 'PUT', url: `${base}/fatal`, headers: as('admin-000001'), payload: { ...model, name: 'fatal2' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: `${base}/fatal`, headers: as('viewer-0001') })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: `${base}/fatal2`, headers: as('admin-000001') })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: base, headers: as('viewer-0001') })).body).toEqual([]);

    expect((await call(app, { method: 'GET', url: '/api/defaults/defaultwebhooks', headers: as('viewer-0001') })).body).toEqual({});
    const webhooks = { incident_opened_addresses: 'https://hooks.slack.com/services/${SLACK_PATH}' };
    expect((await call(app, { method: 'PUT', url: '/api/defaults/defaultwebhooks', headers: as('admin-000001'), payload: webhooks })).status).toBe(204);
    expect((await call(app, { method: 'PUT', url: '/api/defaults/defaultwebhooks', headers: as('admin-000001'), payload: { incident_muted_addresses: 'nobody' } })).status).toBe(400);
    expect((await call(app, { method: 'POST', url: '/api/default/filterednotifications', headers: as('admin-000001'), payload: model })).status).toBe(201);
    expect((await call(app, { method: 'GET', url: '/api/default/filterednotifications/fatal', headers: as('viewer-0001') })).body).toEqual(model);
    expect((await call(app, { method: 'GET', url: '/api/defaults/defaultwebhooks', headers: as('viewer-0001') })).body).toEqual({ ...webhooks, filtered_notifications: { fatal: { ...model, name: undefined } } });
    const bad2 = await call(app, { method: 'PUT', url: `/api/connections/${CONNECTION}/incidentgrouping`, headers: as('admin-000001'), payload: { incident_notification: { incident_opened_addresses: 'ftp://x' } } });
    expect(bad2.status).toBe(400);
  });
});
