import { AxeBuilder } from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import { parseTokens } from '../../src/server/tokens.js';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { launchBrowser, listen, watchedPage } from '../helpers/browser.js';
import { findPlanned, plannedChecksOf, runResults } from '../helpers/plannedResults.js';
import { applyExamples, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The web console in a real Chromium against a real server on a real store (the shop example applied, check
 * results written through the store), used as a person would: open a view, read, type, click.
 */
// a browser, a server and a store per describe: generous on a busy machine
vi.setConfig({ hookTimeout: 300_000, testTimeout: 180_000 });

const HOSTILE = '<img src=x onerror=alert(1)>';
const DAY = 24 * 3600 * 1000;

function readouts(): CheckResultInput[] {
  const rows: CheckResultInput[] = [];
  // ten days of daily_row_count on customers; the last one falls below the error threshold (min_count 100)
  for (let i = 0; i < 10; i++) {
    const period = new Date(Date.UTC(2026, 10, 10 + i)).toISOString();
    const actual = i === 9 ? 40 : 1500 + i * 10;
    rows.push({
      connectionName: 'shop_oltp',
      schemaName: 'public',
      tableName: 'customers',
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'volume',
      checkName: 'daily_row_count',
      checkHash: 11,
      timePeriod: period,
      actualValue: actual,
      expectedValue: 1000,
      severity: i === 9 ? 2 : 0,
      executedAt: new Date(Date.parse(period) + DAY / 2).toISOString(),
    });
  }
  // eight valid days of payments with amounts a y axis must abbreviate (166175775688081 is 166T)
  for (let i = 0; i < 8; i++) {
    const period = new Date(Date.UTC(2026, 10, 11 + i)).toISOString();
    rows.push({
      connectionName: 'shop_oltp',
      schemaName: 'public',
      tableName: 'payments',
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'volume',
      checkName: 'daily_row_count',
      checkHash: 12,
      timePeriod: period,
      actualValue: 166175775688081 + i * 500001,
      severity: 0,
      executedAt: new Date(Date.parse(period) + DAY / 2).toISOString(),
    });
  }
  // a schema check of customers: a hash of its column list, the same for three days, then another
  for (let i = 0; i < 4; i++) {
    const period = new Date(Date.UTC(2026, 10, 16 + i)).toISOString();
    rows.push({
      connectionName: 'shop_oltp',
      schemaName: 'public',
      tableName: 'customers',
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'schema',
      checkName: 'daily_column_list_or_order_changed',
      checkHash: 14,
      timePeriod: period,
      actualValue: i < 3 ? 4530418234561290 : 1234567890123456,
      severity: 0,
      executedAt: new Date(Date.parse(period) + DAY / 2).toISOString(),
    });
  }
  rows.push({
    connectionName: 'shop_oltp',
    schemaName: 'public',
    tableName: 'payments',
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'volume',
    checkName: 'daily_row_count',
    checkHash: 12,
    timePeriod: '2026-11-19T00:00:00.000Z',
    actualValue: 5000,
    severity: 1,
    executedAt: '2026-11-19T12:00:00.000Z',
  });
  rows.push({
    connectionName: 'shop_oltp',
    schemaName: 'public',
    tableName: HOSTILE,
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'volume',
    checkName: 'daily_row_count',
    checkHash: 13,
    timePeriod: '2026-11-19T00:00:00.000Z',
    actualValue: 0,
    severity: 3,
    executedAt: '2026-11-19T12:00:00.000Z',
  });
  return rows;
}

/** Incidents with DQOps's default grouping (no incident_grouping in the specs): one per failing table here. */
const DEFAULT_INCIDENTS: IncidentConfiguration = { connectionSpec: () => undefined, tableSpec: () => undefined, defaultNotifications: undefined };

/** The readouts stored as a check run stores them: results and the incidents their failures open, in one transaction. */
async function recordReadouts(fx: StoreFixture): Promise<void> {
  const outcome = await recordResultsWithIncidents(fx.store, readouts(), DEFAULT_INCIDENTS);
  // customers (error), payments (warning) and the hostile table (fatal)
  expect(outcome.opened).toHaveLength(3);
}

async function apiCall(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('web console', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((e) => e.engine === 'postgres')!.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    base = await listen(app);
    // a table with a hostile name, created through the API like any client would
    const created = await apiCall(base, 'POST', `/api/connections/shop_oltp/schemas/public/tables/${encodeURIComponent(HOSTILE)}`, { columns: {} });
    expect(created.status).toBe(201);
    await recordReadouts(fx);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  beforeAll(async () => {
    ({ page, problems } = await watchedPage(browser));
  });
  afterEach(() => {
    // no test leaves an error in the browser's console, a page error or a dialog (an alert would mean script ran)
    const seen = problems.splice(0);
    expect(seen).toEqual([]);
  });

  it('overview: connections by name, the data quality counts, objects by kind and owner', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    const connections = page.getByTestId('connections');
    await expect(connections.getByRole('link', { name: 'shop_oltp' }).textContent()).resolves.toBe('shop_oltp');
    await expect(connections.getByRole('link', { name: 'analytics_dwh' }).textContent()).resolves.toBe('analytics_dwh');
    // shop_oltp has a fatal (the hostile table) and an error: its worst severity is a word
    const shopRow = connections.locator('tr', { hasText: 'shop_oltp' });
    expect(await shopRow.locator('td').nth(2).textContent()).toBe('fatal');
    expect(await shopRow.locator('td').nth(3).textContent()).toBe('7');
    const counts = page.getByTestId('quality-counts');
    expect(await counts.getByRole('link', { name: /fatal/ }).textContent()).toBe('1 fatal');
    expect(await counts.getByRole('link', { name: /^\d+ error$/ }).textContent()).toBe('1 error');
    expect(await counts.getByRole('link', { name: /warning/ }).textContent()).toBe('1 warning');
    expect(await counts.getByRole('link', { name: /not run/ }).textContent()).toBe('10 not run');
    const objects = page.getByTestId('object-counts');
    expect(await objects.locator('tr', { hasText: 'tables' }).locator('td').allTextContents()).toEqual(['12', '1']);
    // the open incidents are the server's count (GET /api/incidentstat), a link to the list
    expect(await page.getByTestId('open-incidents').textContent()).toBe('3 open incidents. All incidents →');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a hostile name is text: shown exactly, never run', async () => {
    await page.goto(`${base}/objects?q=${encodeURIComponent('onerror')}`);
    const link = page.getByRole('link', { name: `shop_oltp/public.${HOSTILE}` });
    await link.waitFor();
    expect(await link.textContent()).toBe(`shop_oltp/public.${HOSTILE}`);
    expect(await page.locator('main img').count()).toBe(0);
    await link.click();
    await page.getByRole('heading', { level: 1, name: `shop_oltp/public.${HOSTILE}` }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    await page.goto(`${base}/`);
    await page.getByText(`shop_oltp/public.${HOSTILE}`).first().waitFor();
    expect(await page.locator('main img').count()).toBe(0);
  });

  it('the Content-Security-Policy refuses inline script on the console', async () => {
    const { page: probe, problems: seen } = await watchedPage(browser);
    const response = await probe.goto(`${base}/objects`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await probe.getByRole('heading', { level: 1, name: 'Objects' }).waitFor();
    const ran = await probe.evaluate(`(() => {
      window.inlineRan = false;
      const script = document.createElement('script');
      script.textContent = 'window.inlineRan = true';
      document.body.appendChild(script);
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.inlineRan = true');
      img.src = 'data:,broken';
      document.body.appendChild(img);
      return new Promise((done) => setTimeout(() => done(window.inlineRan), 200));
    })()`);
    expect(ran).toBe(false);
    expect(seen.some((p) => /Content Security Policy/i.test(p))).toBe(true);
    await probe.context().close();
  });

  it('objects: the search box filters as you type, the filters live in the URL', async () => {
    await page.goto(`${base}/objects`);
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.waitFor();
    expect(await page.getByTestId('result-count').textContent()).toBe('23 objects');
    await search.pressSequentially('cust', { delay: 20 });
    await page.getByTestId('result-count').getByText('of 23 objects').waitFor();
    const names = await page.locator('.orow:not(.ohead) .oname').allTextContents();
    expect(names.sort()).toEqual(['analytics_dwh/mart.dim_customer', 'shop_oltp/public.customers']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('cust');
    // the filter survives a reload and combines with the selects
    await page.reload();
    await page.getByRole('combobox', { name: 'Connection' }).selectOption('shop_oltp');
    await page.getByText('1 of 23 objects').waitFor();
    expect(new URL(page.url()).searchParams.get('connection')).toBe('shop_oltp');
    await page.getByRole('combobox', { name: 'Worst severity' }).selectOption('error');
    expect(await page.locator('.orow:not(.ohead) .oname').allTextContents()).toEqual(['shop_oltp/public.customers']);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('table: effective checks with their origin, the latest results, the readout chart with its thresholds', async () => {
    await page.goto(`${base}/objects?q=customers&kind=table&connection=shop_oltp`);
    await page.getByRole('link', { name: 'shop_oltp/public.customers' }).click();
    await page.getByRole('heading', { level: 1, name: 'shop_oltp/public.customers' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/tables/shop_oltp/public/customers');
    const checks = page.getByTestId('checks');
    const row = checks.locator('tr', { has: page.getByRole('link', { name: 'daily_row_count' }) });
    // the heading shows before the table's data (its status is read first)
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual(['daily_row_count', '(table)', 'monitoring daily', 'table file', 'error', '40', '1,000', '2026-11-19 12:00:00 UTC']);
    // a check a policy adds says which policy
    expect(await checks.getByText(/^policy oltp\/critical_tables_schema_drift \(priority \d+\)$/).count()).toBeGreaterThan(0);
    // the failing check is charted by uPlot: ten readouts, its three thresholds as bands named in the legend
    // (the hand-drawn SVG with its circles and clipped threshold labels is gone: issue 26)
    const chart = page.getByTestId('readout-chart');
    await chart.locator('canvas').waitFor();
    expect(await chart.getAttribute('aria-label')).toBe('daily_row_count: 10 readouts from 2026-11-10 00:00:00 UTC to 2026-11-19 00:00:00 UTC');
    expect(await page.locator('figure.chart ul.thresholds li').allTextContents()).toEqual([
      'warning below 1,000 (min count)',
      'error below 100 (min count)',
      'fatal below 1 (min count)',
    ]);
    // a schema check's readouts are hashes: never an amount, but changed / unchanged and the short hash
    const schemaRow = checks.locator('tr', { has: page.getByRole('link', { name: 'daily_column_list_or_order_changed' }) });
    const [actual, expected] = (await schemaRow.locator('td').allTextContents()).slice(5, 7);
    expect(actual).toMatch(/^[0-9a-f]{12}$/);
    expect(expected).toBe('—');
    await schemaRow.getByRole('link', { name: 'daily_column_list_or_order_changed' }).click();
    const hashes = page.getByTestId('schema-readouts');
    await hashes.waitFor();
    expect(await page.locator('figure.chart').count()).toBe(0);
    expect(await hashes.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['changed', 'unchanged', 'unchanged', 'first readout']);
    expect((await hashes.locator('tbody').textContent())!).not.toMatch(/\d{16}/);
    // lineage neighbours are links
    expect(await page.getByRole('link', { name: 'analytics_dwh/mart.dim_customer' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('plan and drift: a write through the API shows as changed outside git', async () => {
    const write = await apiCall(base, 'PUT', '/api/connections/shop_oltp/schemas/public/tables/orders/labels', ['changed-in-the-ui']);
    expect(write.status).toBe(204);
    await page.goto(`${base}/plan`);
    const drift = page.getByTestId('drift-table');
    await drift.waitFor();
    const row = drift.locator('tr', { hasText: 'shop_oltp/public.orders' });
    expect(await row.locator('td').nth(2).textContent()).toBe('changed outside git');
    // without a reconcile loop the page says how to get a plan
    await page.getByText('No plan on this server').waitFor();
    expect(await page.getByTestId('history').locator('tbody tr').count()).toBe(1);
    await page.goto(`${base}/`);
    await page.getByTestId('drift').getByRole('link', { name: 'shop_oltp/public.orders' }).waitFor();
    expect(await page.getByTestId('sync-status').textContent()).toBe('out of sync');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lineage: the graph around a table, coloured by status, depth selectable, a click opens the table', async () => {
    await page.goto(`${base}/lineage/analytics_dwh/mart/daily_revenue?depth=1`);
    const graph = page.getByTestId('lineage-graph');
    await graph.waitFor();
    const depthOne = await graph.locator('a.node').count();
    await page.getByRole('combobox', { name: 'Depth' }).selectOption('3');
    await page.waitForFunction(`document.querySelectorAll('[data-testid=lineage-graph] a.node').length > ${depthOne}`);
    expect(new URL(page.url()).searchParams.get('depth')).toBe('3');
    const labels = await graph.locator('a.node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label')));
    expect(labels).toContain('shop_oltp/public.payments: warning');
    expect(await graph.locator('a.node.node-warning').count()).toBeGreaterThan(0);
    await graph.locator('a.node', { hasText: 'public.payments' }).click();
    await page.getByRole('heading', { level: 1, name: 'shop_oltp/public.payments' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/tables/shop_oltp/public/payments');
    await page.goBack();
    await graph.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('incidents: status, severity as a word, table; an operator acknowledges one from the page; its failed checks', async () => {
    await page.goto(`${base}/incidents?status=open`);
    await page.getByRole('heading', { level: 1, name: 'Incidents' }).waitFor();
    const list = page.getByTestId('incidents');
    await list.waitFor();
    expect(await list.locator('tbody tr').count()).toBe(3);
    const customers = list.locator('tr', { has: page.getByRole('link', { name: 'shop_oltp/public.customers', exact: true }) });
    // status, severity, table, category, failed checks, first seen, last seen
    expect((await customers.locator('td').allTextContents()).slice(0, 7)).toEqual([
      'open',
      'error',
      'shop_oltp/public.customers',
      'volume',
      '1 failed check',
      '2026-11-19 12:00:00 UTC',
      '2026-11-19 12:00:00 UTC',
    ]);
    const hostile = list.locator('tr', { has: page.getByRole('link', { name: `shop_oltp/public.${HOSTILE}`, exact: true }) });
    expect(await hostile.locator('td').nth(1).textContent()).toBe('fatal');
    expect(await hostile.locator('td').nth(2).textContent()).toBe(`shop_oltp/public.${HOSTILE}`);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // acknowledged from the page: the list (any status) shows it, and so does the API
    await page.goto(`${base}/incidents`);
    await list.waitFor();
    await customers.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByRole('status').getByText(/is now acknowledged/).waitFor();
    await customers.locator('td').first().getByText('acknowledged', { exact: true }).waitFor();
    expect(await customers.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
    const listed = (await (await apiCall(base, 'GET', '/api/incidents/shop_oltp?resolved=true&muted=true')).json()) as Array<{ table: string; status: string }>;
    expect(listed.map((i) => [i.table, i.status]).sort()).toEqual([
      [HOSTILE, 'open'],
      ['customers', 'acknowledged'],
      ['payments', 'open'],
    ]);

    // the status filter is in the URL: only the acknowledged one
    await page.getByLabel('Status').selectOption('acknowledged');
    await page.waitForURL(/status=acknowledged/);
    await expect.poll(() => list.locator('tbody tr').count()).toBe(1);
    expect(await list.locator('tbody tr td').nth(2).textContent()).toBe('shop_oltp/public.customers');

    // its failed checks (GET .../issues): the row count that fell to 40
    await customers.getByRole('link', { name: '1 failed check' }).click();
    const checks = page.getByTestId('incident-issues');
    await checks.waitFor();
    expect(await checks.locator('tbody tr').count()).toBe(1);
    expect((await checks.locator('tbody tr td').allTextContents()).slice(0, 6)).toEqual(['daily_row_count', '(table)', 'all data', 'error', '40', '1,000']);
    // right under its row, in view, highlighted, named by table, dimension, category and check, never by its UUID
    const detail = list.locator('tr.detail');
    expect(await detail.evaluate((d) => d.previousElementSibling?.classList.contains('selected') && d.previousElementSibling.textContent?.includes('shop_oltp/public.customers'))).toBe(true);
    const heading = page.locator('#incident-detail-title');
    expect(await heading.textContent()).toMatch(/^Failed checks of shop_oltp\/public\.customers · .*volume/);
    expect(await heading.textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(await page.evaluate(`(() => { const box = document.getElementById('incident-detail').getBoundingClientRect(); return box.top >= 0 && box.bottom <= window.innerHeight; })()`)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    // resolved from the page, it leaves the acknowledged list; muted works the same way on another one
    await customers.getByRole('button', { name: 'Resolve' }).click();
    await page.getByRole('status').getByText(/^shop_oltp\/public\.customers · .* is now resolved\.$/).waitFor();
    await page.getByText('No incident matches.').waitFor();
    await page.getByLabel('Status').selectOption('open');
    const payments = list.locator('tr', { has: page.getByRole('link', { name: 'shop_oltp/public.payments', exact: true }) });
    await payments.getByRole('button', { name: 'Mute' }).click();
    await page.getByRole('status').getByText(/is now muted/).waitFor();
    await expect.poll(() => list.locator('tbody tr').count()).toBe(1);
    const statuses = (await (await apiCall(base, 'GET', '/api/incidents/shop_oltp?resolved=true&muted=true')).json()) as Array<{ table: string; status: string }>;
    expect(statuses.map((i) => [i.table, i.status]).sort()).toEqual([
      [HOSTILE, 'open'],
      ['customers', 'resolved'],
      ['payments', 'muted'],
    ]);
  });

  it('jobs view loads; an admin may start a job from a table', async () => {
    await page.goto(`${base}/tables/shop_oltp/public/customers`);
    await page.getByRole('button', { name: 'Run checks' }).click();
    await page.getByText(/Running checks queued as job \d+/).waitFor();
    await page.getByRole('link', { name: 'See jobs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
    const jobs = page.getByTestId('jobs');
    await jobs.waitFor();
    expect(await jobs.locator('tbody tr').first().locator('td').nth(1).textContent()).toBe('run checks');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('table: the comparison checks are listed with their results, and the table page counts the failed results as the overview does', async () => {
    // fact_orders compares itself with the shop's orders, order status by order status (one result per data group)
    const name = 'analytics_dwh/mart.fact_orders';
    const planned = await plannedChecksOf(fx.store, name);
    const now = new Date('2026-11-19T00:00:00.000Z');
    const executedAt = '2026-11-19T13:00:00.000Z';
    const rows = [
      ...runResults(findPlanned(planned, null, 'daily_row_count_match'), { paid: 1, shipped: 1, cancelled: 0 }, executedAt, now),
      ...runResults(findPlanned(planned, 'gross_amount', 'daily_sum_match'), { paid: 2, shipped: 0 }, executedAt, now),
      ...runResults(findPlanned(planned, null, 'daily_row_count'), { '': 1 }, executedAt, now),
    ];
    await recordResultsWithIncidents(fx.store, rows, DEFAULT_INCIDENTS);

    await page.goto(`${base}/`);
    const overviewRow = page.locator('tr', { has: page.getByRole('link', { name, exact: true }) });
    await overviewRow.waitFor();
    const overviewFailed = await overviewRow.locator('td').nth(2).textContent();
    expect(overviewFailed).toBe('1 error, 3 warnings');

    await overviewRow.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    expect(await page.getByTestId('failed-results').textContent()).toBe(overviewFailed);
    const checks = page.getByTestId('checks');
    const rowCount = checks.locator('tr', { has: page.getByRole('link', { name: 'daily_row_count_match' }) });
    expect(await rowCount.locator('td').allTextContents()).toEqual([
      'daily_row_count_match · comparison matches_shop_orders',
      '(table)',
      'monitoring daily',
      'table file',
      'warning 2 of 3 failed',
      '100',
      '101',
      '2026-11-19 13:00:00 UTC',
    ]);
    const sum = checks.locator('tr', { has: page.getByRole('link', { name: 'daily_sum_match' }) });
    expect(await sum.locator('td').nth(0).textContent()).toBe('daily_sum_match · comparison matches_shop_orders with order_total');
    expect(await sum.locator('td').nth(1).textContent()).toBe('gross_amount');
    expect(await sum.locator('td').nth(4).textContent()).toBe('error 1 of 2 failed');
    // the rows add up to the count above: every failed result is on a listed check
    const failedCells = await checks.locator('tbody tr td:nth-child(5)').allTextContents();
    const failedOnRows = failedCells.reduce((n, text) => n + (/(\d+) of \d+ failed/.exec(text)?.[1] ? Number(/(\d+) of \d+ failed/.exec(text)![1]) : /^(warning|error|fatal)$/.test(text) ? 1 : 0), 0);
    expect(failedOnRows).toBe(4);
    // the comparison check is charted: its readouts, one per data group
    await rowCount.getByRole('link', { name: 'daily_row_count_match' }).click();
    await page.getByText('daily_row_count_match, 3 results').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the readout chart at 1280 and 1920 pixels: the width of its card, tick labels whole or abbreviated and unclipped, times without repeats, a tooltip', async () => {
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/tables/shop_oltp/public/payments?check=${encodeURIComponent('monitoring/day//volume/daily_row_count')}`);
      const chart = page.getByTestId('readout-chart');
      await chart.locator('canvas').waitFor();
      const figure = page.locator('figure.chart');
      await expect.poll(() => figure.getAttribute('data-y-ticks')).not.toBeNull();
      // the full width of its card (less the card's padding)
      const [plotWidth, cardWidth] = (await page.evaluate(`(() => {
        const plot = document.querySelector('[data-testid=readout-chart]');
        const card = plot.closest('.card');
        const style = getComputedStyle(card);
        return [plot.getBoundingClientRect().width, card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)];
      })()`)) as [number, number];
      expect(plotWidth).toBeGreaterThanOrEqual(cardWidth - 2);
      const yTicks = JSON.parse((await figure.getAttribute('data-y-ticks'))!) as string[];
      expect(yTicks.length).toBeGreaterThan(2);
      // 166175775688081 reads abbreviated (…T), never as a run of digits cut by the frame
      for (const tick of yTicks) expect(tick).toMatch(/^(0|-?\d{1,3}(\.\d+)?[MBTP]|\d{1,3}(,\d{3})*)$/);
      expect(yTicks.some((t) => t.endsWith('T'))).toBe(true);
      // the axis is as wide as its longest label in the axis font
      const axis = Number(await figure.getAttribute('data-y-axis-width'));
      const fits = await page.evaluate(`(() => {
        const ctx = document.createElement('canvas').getContext('2d');
        ctx.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        return ${JSON.stringify(yTicks)}.every((t) => ctx.measureText(t).width + 8 <= ${axis});
      })()`);
      expect(fits).toBe(true);
      const xTicks = (JSON.parse((await figure.getAttribute('data-x-ticks'))!) as string[]).filter((t) => t !== '');
      expect(xTicks.length).toBeGreaterThan(2);
      expect(new Set(xTicks).size).toBe(xTicks.length);
      // hovering the newest readout: its period and value
      const over = page.locator('figure.chart .u-over');
      const size = (await over.boundingBox())!;
      await over.hover({ position: { x: size.width - 3, y: size.height / 2 } });
      const tooltip = page.locator('.chart-tooltip');
      await tooltip.waitFor();
      expect(await tooltip.textContent()).toMatch(/^2026-11-19 00:00:00 UTC5,000 · warning$/);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('jobs: the runs made in-process (dqctl run checks, the demo) are listed, each naming its target', async () => {
    // recorded as runChecks records a run no queue started (test/jobs/runChecksFaults.test.ts runs one)
    const demoRun = await fx.store.jobs.recordRunning({ jobType: 'run_checks', parameters: { check_search_filters: {} }, createdBy: 'dqctl in-process run', claimedBy: 'test:1' });
    await fx.store.jobs.finish(demoRun.id, { status: 'finished', result: { highest_severity: 'error', executed_checks: 194, valid_results: 258, warnings: 24, errors: 4, fatals: 0, execution_errors: 0 } });
    const oneTable = await fx.store.jobs.recordRunning({ jobType: 'run_checks', parameters: { check_search_filters: { connection: 'shop_oltp', fullTableName: 'public.orders', checkName: 'daily_row_count' } }, createdBy: 'dqctl in-process run', claimedBy: 'test:1' });
    await fx.store.jobs.finish(oneTable.id, { status: 'finished', result: { highest_severity: 'valid', executed_checks: 1, valid_results: 1, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 } });
    await page.goto(`${base}/jobs`);
    const jobs = page.getByTestId('jobs');
    await jobs.waitFor();
    const cells = async (id: number) => jobs.locator('tr', { has: page.getByRole('cell', { name: String(id), exact: true }) }).locator('td').allTextContents();
    const demo = await cells(demoRun.id);
    expect(demo.slice(0, 4)).toEqual([String(demoRun.id), 'run checks', 'all tables', 'finished']);
    expect(demo[5]).toMatch(/^194 checks, 258 valid, 24 warnings, 4 errors/);
    expect(demo[7]).toBe('dqctl in-process run');
    expect((await cells(oneTable.id))[2]).toBe('shop_oltp/public.orders (check daily_row_count)');
    expect(await page.getByText('No job has run on this store yet').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('lineage: the navigation opens a table picker; a search and a click show the graph of the chosen table', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('navigation', { name: 'views' }).getByRole('link', { name: 'Lineage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lineage' }).waitFor();
    const picker = page.getByTestId('lineage-picker');
    await picker.waitFor();
    expect(await picker.getByRole('link').count()).toBeGreaterThan(10);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('searchbox', { name: 'Find a table' }).pressSequentially('paym', { delay: 20 });
    await expect.poll(() => picker.getByRole('link').allTextContents()).toEqual(['shop_oltp/public.payments']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('paym');
    await picker.getByRole('link', { name: 'shop_oltp/public.payments' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lineage of shop_oltp/public.payments' }).waitFor();
    const graph = page.getByTestId('lineage-graph');
    await graph.waitFor();
    expect(await graph.locator('a.node.focus').getAttribute('aria-label')).toBe('shop_oltp/public.payments: warning');
    expect(await graph.locator('a.node').count()).toBeGreaterThan(1);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a table that does not exist says so and offers no action; the overview without a loop says so and what was last applied', async () => {
    await page.goto(`${base}/tables/shop_oltp/public/no_such_table`);
    const missing = page.getByTestId('table-not-found');
    await missing.waitFor();
    expect(await missing.textContent()).toContain('The live store has no table shop_oltp/public.no_such_table');
    expect(await page.getByRole('button', { name: 'Run checks' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Collect statistics' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    // the one request that found no table (its status) is the one error in the browser's console
    expect(problems.splice(0)).toEqual(['console error: Failed to load resource: the server responded with a status of 404 (Not Found)']);

    await page.goto(`${base}/`);
    await page.getByTestId('no-loop').waitFor();
    expect(await page.getByTestId('no-loop').textContent()).toMatch(/^No reconcile loop runs on this server/);
    expect(await page.getByTestId('last-applied').textContent()).toMatch(/ by .+, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const sync = page.locator('section', { has: page.getByRole('heading', { name: 'Sync' }) });
    expect(await sync.textContent()).not.toMatch(/Repository|Revision read|none: this server/);
  });
});

// the embedded store (PGlite) here, PostgreSQL above: the console works on both
describe('web console with tokens', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((e) => e.engine === 'pglite')!.setup();
    await applyExamples(fx.store);
    const tokens = parseTokens(
      ['- {name: vera, role: viewer, token: viewer-token-1}', '- {name: otto, role: operator, token: operator-token-1}'].join('\n'),
      'test tokens',
    );
    app = await serverOn(fx.store, { tokens });
    base = await listen(app);
    await recordReadouts(fx);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  it('signs in with a token kept for the tab; shows no data before; each role sees only its actions', async () => {
    const { page, problems } = await watchedPage(browser);
    const apiCalls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/')) apiCalls.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base}/tables/shop_oltp/public/customers`);
    const token = page.getByLabel('API token');
    await token.waitFor();
    expect(await token.getAttribute('type')).toBe('password');
    // before a valid token: only the profile was asked for (and refused), no data
    expect(apiCalls).toEqual(['/api/environment/profile']);
    expect(await page.getByText('customers').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await token.fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('This token is not valid on this server.').waitFor();

    await token.fill('viewer-token-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'shop_oltp/public.customers' }).waitFor();
    await page.getByTestId('checks').waitFor();
    expect(await page.getByText('vera (viewer)').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Run checks' }).count()).toBe(0);
    expect(await page.evaluate("sessionStorage.getItem('dqctl.token')")).toBe('viewer-token-1');
    // the token survives a reload of the tab
    await page.reload();
    await page.getByTestId('checks').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill('operator-token-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Run checks' }).waitFor();
    expect(await page.getByRole('button', { name: 'Collect statistics' }).count()).toBe(1);
    // the 401 of the wrong token is the one expected error in the browser's console
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });

  it('incidents: a viewer sees them without any action, and the API refuses a viewer the change; an operator sees the actions', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${base}/incidents`);
    await page.getByLabel('API token').fill('viewer-token-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const list = page.getByTestId('incidents');
    await list.waitFor();
    expect(await list.locator('tbody tr').count()).toBe(3);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    for (const action of ['Acknowledge', 'Resolve', 'Mute']) expect(await page.getByRole('button', { name: action }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    // a viewer is never pointed at buttons only operators have
    await page.goto(`${base}/jobs`);
    await page.getByText('No job has run on this store yet.').waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/this page|Start a job/);
    await page.goto(`${base}/`);
    await page.getByTestId('quality-counts').waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Jobs page/);
    await page.goto(`${base}/incidents`);
    await list.waitFor();
    const [incident] = (await (await apiCall(base, 'GET', '/api/incidents/shop_oltp', undefined, 'viewer-token-1')).json()) as Array<{ year: number; month: number; incidentId: string }>;
    const statusPath = `/api/incidents/shop_oltp/${incident.year}/${incident.month}/${incident.incidentId}/status?status=acknowledged`;
    expect((await apiCall(base, 'POST', statusPath, undefined, 'viewer-token-1')).status).toBe(403);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').fill('operator-token-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Acknowledge' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(3);
    // the 401 of the profile before sign-in is the one expected error in the browser's console
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
    await page.context().close();
  });
});

/** What overflows in the page: a card, a scrolling table or the page itself wider than its box, and words broken mid-word. */
const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  if (document.documentElement.scrollWidth > window.innerWidth) problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth);
  for (const box of document.querySelectorAll('main .card, main .scroll, main figure')) {
    if (box.scrollWidth > box.clientWidth + 1) problems.push('overflows its box: ' + (box.querySelector('h2')?.textContent || box.className) + ' (' + box.scrollWidth + ' > ' + box.clientWidth + ')');
  }
  const range = document.createRange();
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const words = /\\S+/g;
    for (let m = words.exec(node.textContent); m; m = words.exec(node.textContent)) {
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) problems.push('a word broken over lines: ' + m[0]);
    }
  }
  return problems;
})()`;

// long and non-Latin names, at the two widths people use: every page holds
describe('web console layout', () => {
  const LONG = 'customer_lifetime_value_by_acquisition_channel_and_region_daily_snapshot_überblick_データ';
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((e) => e.engine === 'pglite')!.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    base = await listen(app);
    const created = await apiCall(base, 'POST', `/api/connections/shop_oltp/schemas/public/tables/${encodeURIComponent(LONG)}`, { columns: {} });
    expect(created.status).toBe(201);
    await recordReadouts(fx);
    const failing = readouts().filter((r) => r.tableName === 'customers' && r.checkName === 'daily_row_count').map((r) => ({ ...r, tableName: LONG, checkHash: 21 }));
    await recordResultsWithIncidents(fx.store, failing, DEFAULT_INCIDENTS);
    const run = await fx.store.jobs.recordRunning({ jobType: 'run_checks', parameters: { check_search_filters: { connection: 'shop_oltp', fullTableName: `public.${LONG}` } }, createdBy: 'dqctl in-process run', claimedBy: 'test:1' });
    await fx.store.jobs.finish(run.id, { status: 'finished', result: { highest_severity: 'error', executed_checks: 1, valid_results: 0, warnings: 0, errors: 1, fatals: 0, execution_errors: 0 } });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  it('every page at 1280 and 1920 pixels: nothing overflows its card, no word is broken mid-word, no serious axe violation', async () => {
    const [incident] = (await (await apiCall(base, 'GET', '/api/incidents/shop_oltp?limit=50')).json()) as Array<{ incidentId: string; table: string }>;
    const pages: Array<[string, string]> = [
      ['/', '[data-testid=quality-counts]'],
      ['/tables/shop_oltp/public/customers', '[data-testid=readout-chart] canvas'],
      [`/tables/shop_oltp/public/${encodeURIComponent(LONG)}`, '[data-testid=readout-chart] canvas'],
      ['/tables/shop_oltp/public/no_such_table', '[data-testid=table-not-found]'],
      ['/plan', '[data-testid=history]'],
      [`/incidents?incident=${incident.incidentId}`, '[data-testid=incident-issues]'],
      ['/lineage', '[data-testid=lineage-picker]'],
      ['/lineage/analytics_dwh/mart/daily_revenue?depth=3', '[data-testid=lineage-graph]'],
      ['/jobs', '[data-testid=jobs]'],
    ];
    const { page, problems } = await watchedPage(browser);
    const seen: string[] = [];
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [path, ready] of pages) {
        await page.goto(`${base}${path}`);
        await page.locator(ready).first().waitFor();
        // laid out: the fonts are in and a frame was drawn after the content arrived
        await page.evaluate('document.fonts.ready.then(() => new Promise((done) => requestAnimationFrame(() => done(null))))');
        for (const problem of (await page.evaluate(LAYOUT_PROBLEMS)) as string[]) seen.push(`${width} ${path}: ${problem}`);
        if (width === 1280) for (const violation of await seriousViolations(page)) seen.push(`${path}: ${violation}`);
      }
    }
    expect(seen).toEqual([]);
    // the missing table's status at each width: the only errors in the browser's console
    expect(problems).toEqual(Array(2).fill('console error: Failed to load resource: the server responded with a status of 404 (Not Found)'));
    await page.context().close();
  });
});

describe('web console on an empty store', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((e) => e.engine === 'pglite')!.setup();
    app = await serverOn(fx.store);
    base = await listen(app);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  it('says what to do, and works from the keyboard', async () => {
    const { page, problems } = await watchedPage(browser);
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'The live store is empty' }).waitFor();
    expect(await page.getByText('dqctl apply path/to/repo').count()).toBe(1);
    // the skip link comes first, then the views; Enter on a link navigates
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Overview');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Objects' }).waitFor();
    await page.getByText('0 objects').waitFor();
    expect(new URL(page.url()).pathname).toBe('/objects');
    await page.goto(`${base}/jobs`);
    await page.getByText('No job has run on this store yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
