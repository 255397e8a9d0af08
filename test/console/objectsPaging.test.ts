import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { launchBrowser, listen, watchedPage } from '../helpers/browser.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { rowCountResult } from '../helpers/checkResults.js';

/**
 * The console's objects page over more objects than one page holds (issue 25), in a real Chromium: the server
 * searches and pages, the browser never receives more than a page, the page lives in the URL, the pager's links
 * move through the list, a search starts again from its first page.
 */
vi.setConfig({ hookTimeout: 300_000, testTimeout: 180_000 });

const BULK = Array.from({ length: 230 }, (_, i) => `bulk_${String(i).padStart(3, '0')}`);

interface ObjectsAnswer {
  total: number;
  total_objects: number;
  objects: Array<{ kind: string; name: string }>;
}

describe('console: the paged objects list', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  /** Every answer of GET /api/objects the page received, with the URL it asked. */
  const answers: Array<{ url: URL; body: ObjectsAnswer }> = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((engine) => engine.engine === 'postgres')!.setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    const post = async (url: string, payload: object) => expect((await call(app, { method: 'POST', url, payload })).status).toBe(201);
    await post('/api/connections/bulk', { provider_type: 'postgresql', postgresql: { host: 'db', database: 'bulk', user: 'dq' } });
    for (const table of BULK) await post(`/api/connections/bulk/schemas/public/tables/${table}`, { columns: {} });
    base = await listen(app);
    ({ page, problems } = await watchedPage(browser));
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.pathname !== '/api/objects') return;
      // a response the page navigated away from (a superseded search) has no body left to read: not an answer
      const body = await response.json().catch(() => undefined);
      if (body !== undefined) answers.push({ url, body: body as ObjectsAnswer });
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  const rowNames = () => page.locator('.orow:not(.ohead) .oname').allTextContents();

  it('shows the first page of all objects, with their count and a pager; the browser gets one page', async () => {
    const all = (await call(app, { method: 'GET', url: '/api/objects' })).body as ObjectsAnswer;
    expect(all.total).toBeGreaterThan(200);
    await page.goto(`${base}/objects`);
    await page.getByTestId('result-count').getByText(`${all.total} objects`).waitFor();
    await page.getByTestId('pager').getByText(`page 1 of ${Math.ceil(all.total / 100)}`).waitFor();
    // the list is virtualised: the first rows of the page are drawn
    const shown = await rowNames();
    expect(shown.length).toBeGreaterThan(5);
    expect(shown).toEqual(all.objects.slice(0, shown.length).map((o) => o.name));
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer.body.objects.length).toBeLessThanOrEqual(100);
    expect(problems).toEqual([]);
  });

  it('the pager moves to the next page, which the URL keeps across a reload', async () => {
    const all = (await call(app, { method: 'GET', url: '/api/objects' })).body as ObjectsAnswer;
    await page.getByRole('link', { name: 'next ›' }).click();
    await page.getByTestId('pager').getByText('page 2 of').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await page.locator('.orow:not(.ohead) .oname', { hasText: all.objects[100].name }).first().waitFor();
    expect((await rowNames())[0]).toBe(all.objects[100].name);
    await page.reload();
    await page.getByTestId('pager').getByText('page 2 of').waitFor();
    expect((await rowNames())[0]).toBe(all.objects[100].name);
    await page.getByRole('link', { name: '‹ previous' }).click();
    await page.getByTestId('pager').getByText('page 1 of').waitFor();
    expect(new URL(page.url()).searchParams.has('page')).toBe(false);
    expect(problems).toEqual([]);
  });

  it('a search is the server’s: typed on page 3, it asks for the first page of what matches, and no pager when one page holds it', async () => {
    await page.goto(`${base}/objects?page=3`);
    await page.getByTestId('pager').getByText('page 3 of').waitFor();
    answers.length = 0;
    await page.getByRole('searchbox', { name: 'Search' }).pressSequentially('BULK_01', { delay: 30 });
    const total = (await call(app, { method: 'GET', url: '/api/objects' })).body.total as number;
    await page.getByTestId('result-count').getByText(`10 of ${total} objects`).waitFor();
    expect(await rowNames()).toEqual(BULK.slice(10, 20).map((t) => `bulk/public.${t}`));
    expect(await page.getByTestId('pager').count()).toBe(0);
    const url = new URL(page.url());
    expect(url.searchParams.get('q')).toBe('BULK_01');
    expect(url.searchParams.has('page')).toBe(false);
    // each keystroke asked the server (search, first page); the last answer is what is shown
    const last = answers.at(-1)!;
    expect(last.url.searchParams.get('search')).toBe('BULK_01');
    expect(last.url.searchParams.get('page')).toBe('1');
    expect(answers.every((a) => a.body.objects.length <= 100)).toBe(true);
    expect(problems).toEqual([]);
  });

  it('a one-letter search shows its first page, connections first, each with the worst severity of its live tables', async () => {
    const result = (table: string, severity: CheckResultInput['severity']): CheckResultInput =>
      rowCountResult({ connectionName: 'bulk', tableName: table, severity, ...(severity === null ? { errorMessage: 'sensor failed' } : {}) });
    // a warning on a live table; a fatal and an execution error of tables no longer in the store do not count
    await fx.store.insertCheckResults([result('bulk_007', 0), result('bulk_008', 1), result('bulk_gone', 3), result('bulk_gone_too', null)]);
    await page.goto(`${base}/objects`);
    await page.locator('.orow:not(.ohead)').first().waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).pressSequentially('b', { delay: 30 });
    const expected = (await call(app, { method: 'GET', url: '/api/objects?search=b&page=1&limit=100' })).body as ObjectsAnswer;
    const total = (await call(app, { method: 'GET', url: '/api/objects' })).body.total as number;
    await page.getByTestId('result-count').getByText(`${expected.total} of ${total} objects`).waitFor();
    expect(await rowNames()).toEqual(expected.objects.slice(0, (await rowNames()).length).map((o) => o.name));
    const bulk = page.locator('.orow:not(.ohead)').filter({ has: page.getByRole('link', { name: 'bulk', exact: true }) });
    expect(await bulk.locator('span').last().textContent()).toBe('warning');
    const overview = (await call(app, { method: 'GET', url: '/api/overview' })).body as { connections: Array<{ name: string; quality_status: string }> };
    expect(overview.connections.find((c) => c.name === 'bulk')?.quality_status).toBe('warning');
    expect(problems).toEqual([]);
  });

  it('a page past the end says so and links to the first page', async () => {
    await page.goto(`${base}/objects?page=99`);
    await page.getByText('This page is past the last one').waitFor();
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByTestId('pager').getByText('page 1 of').waitFor();
    expect(problems).toEqual([]);
  });
});
