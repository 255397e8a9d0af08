/**
 * `npm run screenshots -- [URL] [EMPTY_URL]`: screenshots of every page of the web console at 1280 and 1920
 * pixels wide, taken with playwright-core and Debian's Chromium from a running server, by default the demo
 * (`npm start`, http://127.0.0.1:8888); EMPTY_URL, when given, is a server on an empty store (the empty states).
 * Writes docs/screenshots/<page>-<width>.png. Look at them before committing them.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';

const base = (process.argv[2] ?? 'http://127.0.0.1:8888').replace(/\/$/, '');
const emptyBase = process.argv[3]?.replace(/\/$/, '');
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'screenshots');
const WIDTHS = [1280, 1920];

interface Shot {
  name: string;
  path: string;
  ready: string;
  /** after the page is ready: a click or a hover that shows the state pictured */
  act?: (page: Page) => Promise<void>;
  /** only this element, not the whole page */
  element?: string;
}

const FULL: Shot[] = [
  { name: 'overview', path: '/', ready: '[data-testid=quality-counts]' },
  { name: 'objects', path: '/objects?kind=table', ready: '.orow:not(.ohead)' },
  { name: 'table', path: '/tables/shop_oltp/public/customers', ready: 'figure.chart canvas' },
  {
    name: 'table-chart',
    path: '/tables/shop_oltp/public/orders',
    ready: 'figure.chart canvas',
    element: 'section[aria-labelledby=h-readout-history]',
    // the tooltip of the newest readout
    act: async (page) => {
      const over = page.locator('figure.chart .u-over');
      const box = (await over.boundingBox())!;
      await over.hover({ position: { x: box.width - 4, y: box.height / 2 } });
    },
  },
  { name: 'plan', path: '/plan', ready: '[data-testid=history]' },
  {
    name: 'incidents',
    path: '/incidents?status=open',
    ready: '[data-testid=incidents]',
    act: async (page) => {
      await page.locator('[data-testid=incidents] tbody tr a.failed-checks').nth(2).click();
      await page.locator('[data-testid=incident-issues]').waitFor();
    },
  },
  { name: 'lineage', path: '/lineage/analytics_dwh/mart/daily_revenue?depth=3', ready: '[data-testid=lineage-graph]' },
  { name: 'lineage-picker', path: '/lineage', ready: '[data-testid=lineage-picker]' },
  { name: 'jobs', path: '/jobs', ready: '[data-testid=jobs]' },
  {
    // a check run over several tables (started through the API on the demo): its tables opened under its row
    name: 'jobs-run',
    path: '/jobs',
    ready: '[data-testid=jobs] .children a',
    act: async (page) => {
      await page.locator('[data-testid=jobs] .children a').first().click();
      await page.locator('[data-testid=run-table-jobs]').waitFor();
    },
  },
  { name: 'table-not-found', path: '/tables/shop_oltp/public/no_such_table', ready: '[data-testid=table-not-found]' },
];

const EMPTY: Shot[] = [
  { name: 'empty-overview', path: '/', ready: 'h2' },
  { name: 'empty-jobs', path: '/jobs', ready: '.empty' },
  { name: 'empty-lineage', path: '/lineage', ready: '.empty' },
];

await mkdir(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.DQCTL_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const width of WIDTHS) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const [from, shots] of [[base, FULL], ...(emptyBase ? [[emptyBase, EMPTY] as const] : [])] as const) {
      for (const shot of shots) {
        await page.goto(`${from}${shot.path}`);
        await page.locator(shot.ready).first().waitFor({ timeout: 30_000 });
        await shot.act?.(page);
        await page.waitForTimeout(400);
        const file = join(out, `${shot.name}-${width}.png`);
        if (shot.element) await page.locator(shot.element).screenshot({ path: file });
        else await page.screenshot({ path: file, fullPage: true });
        console.log(`wrote docs/screenshots/${shot.name}-${width}.png`);
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
}
