import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import type { JsonObject } from '../../src/model/index.js';
import { parseTokens } from '../../src/server/tokens.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { startHttpReceiver } from '../helpers/receivers.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * DQOps's incidents and filtered notifications API over a real store: list and read incidents (camelCase,
 * epoch ms), change their status (operator role; a viewer gets 403; messages go to the outbox, and with a
 * deliverer to a real receiver), 404 with the error body, issues, histogram, statistics, top incidents,
 * filtered notifications and default webhooks with their address validation, and disabling the checks.
 */
const CONNECTION = 'shop_oltp';
/** One run: all its results share the time it ran (within the months the list looks back over). */
const RUN_AT = new Date().toISOString();

const failure = (overrides: Partial<CheckResultInput>): CheckResultInput => ({
  connectionName: CONNECTION,
  schemaName: 'public',
  tableName: 'orders',
  columnName: 'customer_id',
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'nulls',
  checkName: 'daily_nulls_count',
  checkHash: 1,
  qualityDimension: 'Completeness',
  timePeriod: '2026-11-20T00:00:00.000Z',
  actualValue: 10,
  severity: 2,
  executedAt: RUN_AT,
  ...overrides,
});

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
    await fx.sql.exec('truncate dqctl.incidents, dqctl.notification_outbox, dqctl.check_results restart identity');
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
      const deadline = Date.now() + 5_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
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

  it('disables the checks that failed in an incident, in the table spec', async () => {
    const incident = await first();
    expect((await call(app, { method: 'POST', url: `${path(incident)}/checks/disable`, headers: as('viewer-0001') })).status).toBe(403);
    expect((await call(app, { method: 'POST', url: `${path(incident)}/checks/disable`, headers: as('operator-001') })).status).toBe(204);
    const recalibrate = await call(app, { method: 'POST', url: `${path(incident)}/checks/recalibrate`, headers: as('operator-001') });
    expect(recalibrate.status).toBe(501);
    expect(recalibrate.body.code).toBe('NOT_IMPLEMENTED');
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
