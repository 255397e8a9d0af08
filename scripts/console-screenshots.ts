/**
 * `npm run screenshots -- [URL]`: screenshots of the web console's main views for the README, taken with
 * playwright-core and Debian's Chromium from a running server, by default the demo (`npm start`,
 * http://127.0.0.1:8888). Writes docs/screenshots/<view>.png.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const base = (process.argv[2] ?? 'http://127.0.0.1:8888').replace(/\/$/, '');
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'screenshots');
const VIEWS: Array<[string, string, string]> = [
  ['overview', '/', '[data-testid=quality-counts]'],
  ['objects', '/objects?kind=table', '.orow:not(.ohead)'],
  ['table', '/tables/shop_oltp/public/customers', 'figure.chart'],
  ['plan', '/plan', '[data-testid=history]'],
  ['incidents', '/incidents?status=open', '[data-testid=incidents]'],
  ['lineage', '/lineage/analytics_dwh/mart/daily_revenue?depth=3', '[data-testid=lineage-graph]'],
  ['jobs', '/jobs', 'h1'],
];

await mkdir(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.DQCTL_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  for (const [name, path, ready] of VIEWS) {
    await page.goto(`${base}${path}`);
    await page.locator(ready).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(out, `${name}.png`) });
    console.log(`wrote docs/screenshots/${name}.png`);
  }
  // the readout chart of the table view, below its list of checks
  await page.goto(`${base}/tables/shop_oltp/public/customers`);
  await page.locator('section', { has: page.getByRole('heading', { name: 'Readout history' }) }).screenshot({ path: join(out, 'table-chart.png') });
  console.log('wrote docs/screenshots/table-chart.png');
} finally {
  await browser.close();
}
