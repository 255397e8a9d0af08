import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../../src/model/index.js';
import { RUN_CHECKS_ON_TABLE } from '../../src/jobs/executors/runChecks.js';
import { JobService } from '../../src/jobs/jobService.js';
import { launchBrowser, listen, watchedPage } from '../helpers/browser.js';
import { applyExamples, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The console's bounded lists in a real Chromium (issue 25): the jobs page lists runs, not the job of each of
 * their tables, pages through them, and opens a run's tables under its row a page at a time; a search box never
 * shows the answer to a text that was typed over (a slow answer to an earlier keystroke is cancelled and never
 * drawn).
 */
vi.setConfig({ hookTimeout: 300_000, testTimeout: 180_000 });

const WORKER = 'console-jobs-test';
const TABLES = 230;
const SINGLES = 60;

describe('console: bounded lists', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let runId: number;
  /** Every GET /api/jobs/jobs answer the page received: the rows it held. */
  const jobAnswers: Array<{ url: URL; rows: number }> = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    fx = await STORE_ENGINES.find((engine) => engine.engine === 'postgres')!.setup();
    await applyExamples(fx.store);
    // a run over 230 tables (types no executor runs: the jobs stay as left here), then 60 single jobs after it
    const run = await fx.store.jobs.enqueue({ jobType: 'run_checks', parameters: { check_search_filters: { connection: 'shop_oltp' } }, createdBy: 'tester' });
    runId = run.id;
    await fx.store.jobs.claimNext(WORKER, { jobTypes: ['run_checks'] });
    // the tables' jobs as a run makes them (runChecks.ts tableJobsOf)
    const children: Array<{ jobType: string; parameters: JsonObject }> = Array.from({ length: TABLES }, (_, i) => ({
      jobType: RUN_CHECKS_ON_TABLE,
      parameters: { check_search_filters: { connection: 'shop_oltp' }, table: { connection: 'shop_oltp', schema: 'public', table: `t_${String(i).padStart(3, '0')}` }, run_time: new Date().toISOString() },
    }));
    // the oldest is a child of three tables, as a run over many tables makes them (`tables`)
    const three = ['t_000', 't_000_b', 't_000_c'].map((table) => ({ connection: 'shop_oltp', schema: 'public', table }));
    children[0] = { jobType: RUN_CHECKS_ON_TABLE, parameters: { check_search_filters: { connection: 'shop_oltp' }, tables: three, run_time: new Date().toISOString() } };
    await fx.store.jobs.fanOut(runId, WORKER, children);
    for (const status of ['finished', 'failed'] as const) {
      const child = await fx.store.jobs.claimNext(WORKER, { jobTypes: [RUN_CHECKS_ON_TABLE] });
      await fx.store.jobs.finishChild(child!.id, WORKER, { status });
    }
    for (let i = 0; i < SINGLES; i++) {
      const single = await fx.store.jobs.recordRunning({ jobType: 'run_checks', parameters: { check_search_filters: { connection: 'shop_oltp', fullTableName: `public.single_${i}` } }, createdBy: 'tester', claimedBy: WORKER });
      await fx.store.jobs.finish(single.id, { status: 'finished', result: { executed_checks: 1, valid_results: 1 } });
    }
    // a job service that is never started: the queued tables stay queued
    app = await serverOn(fx.store, { jobs: new JobService(fx.store, {}) });
    base = await listen(app);
    ({ page, problems } = await watchedPage(browser));
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.pathname !== '/api/jobs/jobs' || !response.ok()) return;
      // an answer the page navigated away from has no body left to read
      const body = (await response.json().catch(() => undefined)) as { jobs: unknown[] } | undefined;
      if (body) jobAnswers.push({ url, rows: body.jobs.length });
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await fx?.dispose();
  });

  const jobIds = async (table = 'jobs') => (await page.getByTestId(table).locator(':scope > tbody > tr:not(.detail) > td:first-child').allTextContents()).map(Number);

  it('jobs: one page of runs, newest first; a run over many tables is one row counting its tables', async () => {
    await page.goto(`${base}/jobs`);
    await page.getByTestId('jobs').waitFor();
    const ids = await jobIds();
    expect(ids.length).toBe(50);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(ids).not.toContain(runId);
    // the next page holds the ten older single jobs and the run
    await page.getByTestId('pager-page').getByRole('link', { name: 'older ›' }).click();
    await page.getByTestId('pager-page').getByText('page 2').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await page.getByTestId(`job-${runId}`).waitFor();
    expect((await jobIds()).length).toBe(SINGLES - 50 + 1);
    const runRow = page.getByTestId(`job-${runId}`);
    expect(await runRow.locator('td').nth(2).textContent()).toBe('shop_oltp, all tables');
    expect(await runRow.getByRole('link', { name: /^230 jobs: / }).textContent()).toBe('230 jobs: 228 queued, 1 finished, 1 failed');
    expect(await page.getByTestId('jobs').locator('td', { hasText: 'run checks on table' }).count()).toBe(0);
    for (const answer of jobAnswers) expect(answer.rows).toBeLessThanOrEqual(100);
    expect(problems).toEqual([]);
  });

  it('a run opens its tables under its row, a page of 100 at a time, the URL keeping run and page across a reload', async () => {
    await page.getByTestId(`job-${runId}`).getByRole('link', { name: /^230 jobs/ }).click();
    const tables = page.getByTestId('run-tables');
    await tables.getByTestId('run-table-jobs').waitFor();
    // the URL and the rows follow the panel's first render: polled, not read once (a loaded CI machine)
    await expect.poll(() => new URL(page.url()).searchParams.get('run')).toBe(String(runId));
    // the panel is the row right under the run's
    expect(await page.getByTestId(`job-${runId}`).evaluate((row) => row.nextElementSibling?.querySelector('[data-testid=run-tables]') !== null)).toBe(true);
    await expect.poll(async () => (await jobIds('run-table-jobs')).length).toBe(100);
    const first = await jobIds('run-table-jobs');
    expect(await tables.locator('tbody tr').first().locator('td').nth(2).textContent()).toBe('shop_oltp/public.t_229');
    await tables.getByRole('link', { name: 'older ›' }).click();
    await tables.getByText('page 2').waitFor();
    await page.reload();
    await page.getByTestId('run-tables').getByText('page 2').waitFor();
    const second = await jobIds('run-table-jobs');
    expect(second.length).toBe(100);
    expect(Math.max(...second)).toBeLessThan(Math.min(...first));
    await page.getByTestId('run-tables').getByRole('link', { name: 'older ›' }).click();
    await page.getByTestId('run-tables').getByText('page 3').waitFor();
    const third = await jobIds('run-table-jobs');
    expect(new Set([...first, ...second, ...third]).size).toBe(TABLES);
    expect(await page.getByTestId('run-tables').locator('tbody tr').last().locator('td').nth(2).textContent()).toBe('shop_oltp/public.t_000 and 2 more tables');
    expect(await page.getByTestId('run-tables').getByRole('link', { name: 'older ›' }).count()).toBe(0);
    // the run's link closes its tables again
    await page.getByTestId(`job-${runId}`).getByRole('link', { name: /^230 jobs/ }).click();
    await page.getByTestId('run-tables').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.has('run')).toBe(false);
    for (const answer of jobAnswers) expect(answer.rows).toBeLessThanOrEqual(100);
    expect(problems).toEqual([]);
  });

  it('a search never shows a superseded answer: a slow answer to an earlier text is cancelled and never drawn', async () => {
    await page.goto(`${base}/objects`);
    await page.getByTestId('result-count').waitFor();
    // every text the list is drawn for, as the page draws it
    await page.evaluate(`(() => {
      window.__answered = [];
      const record = () => {
        const shown = document.querySelector('[data-testid=result-count]');
        const asked = shown && shown.getAttribute('data-answers');
        if (asked && window.__answered.at(-1) !== asked) window.__answered.push(asked);
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-answers'] });
    })()`);
    // the answer for "cus" is held back until the answer for "cust" has been drawn
    let releaseSlow: () => void = () => undefined;
    const slowHeld = new Promise<void>((done) => (releaseSlow = done));
    const aborted: string[] = [];
    await page.route('**/api/objects?*', async (route) => {
      const search = new URL(route.request().url()).searchParams.get('search');
      if (search === 'cus') {
        await slowHeld;
        await route.continue().catch(() => aborted.push(search));
      } else await route.continue();
    });
    page.on('requestfailed', (request) => {
      const search = new URL(request.url()).searchParams.get('search');
      if (search) aborted.push(search);
    });
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.fill('cus');
    await box.fill('cust');
    // (polled from here: the console's Content-Security-Policy refuses the string evaluation waitForFunction uses)
    const drawnFor = async () => {
      const asked = await page.getByTestId('result-count').getAttribute('data-answers');
      return asked ? new URL(asked, base).searchParams.get('search') : null;
    };
    await expect.poll(drawnFor, { timeout: 30_000 }).toBe('cust');
    releaseSlow();
    // time for the held answer to arrive, were it still wanted
    await page.waitForTimeout(500);
    const answered = ((await page.evaluate('window.__answered')) as string[]).map((url) => new URL(url, base).searchParams.get('search'));
    expect(answered.at(-1)).toBe('cust');
    expect(answered).not.toContain('cus');
    expect(aborted).toContain('cus');
    const rows = await page.locator('.orow:not(.ohead) .oname').allTextContents();
    expect(rows.length).toBeGreaterThan(0);
    for (const name of rows) expect(name.toLowerCase()).toContain('cust');
    await page.unroute('**/api/objects?*');
    // the prompt problems: the cancelled request is the page's own doing, not a failure to report
    expect(problems.filter((p) => !/cus\b/.test(p))).toEqual([]);
  });
});
