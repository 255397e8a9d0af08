/**
 * `npm run bench:console`: the web console in Debian's Chromium (playwright-core) against a server whose store
 * holds the generated 10,000-table repository plus a 501-table lineage graph, with check results on a fifth of
 * the tables. Written to BENCHMARKS.md.
 *
 *   npm run bench:console                               # full size, writes BENCHMARKS.md
 *   npm run bench:console -- --tables 500 --no-write    # smoke run
 *
 * Measured (median of --runs runs):
 *   first render   navigation start → the overview's data quality numbers in the DOM (performance.now() in the page)
 *   keystroke      objects list of every object: one character typed into the search box → the filtered list
 *                  rendered and a frame painted (measured in the page, from the input event)
 *   lineage        the 501-table graph: layout (dagre) + SVG drawn (performance marks of the page), and the whole
 *                  view from navigation (the API's lineage tree included)
 *   bundle         the console's JavaScript, gzipped
 * Targets: first render < 1.5 s; keystroke < 200 ms; 500-node lineage laid out and drawn < 2 s; JS < 300 kB gz.
 */
import { mkdir, readdir, readFile, rm, mkdtemp, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { applyPlan } from '../src/apply/applyPlan.js';
import { planRepository } from '../src/app/planRepository.js';
import { buildServer } from '../src/server/buildServer.js';
import { CONSOLE_DIR } from '../src/server/console.js';
import { openStore } from '../src/store/openStore.js';
import type { CheckResultInput } from '../src/store/readResults.js';
import { generateRepository } from './generateRepository.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/console.ts: web console benchmark (start) -->';
const SECTION_END = '<!-- bench/console.ts: web console benchmark (end) -->';
const CHROMIUM = process.env.DQCTL_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LAYERS = 10;
const PER_LAYER = 50;

interface Options {
  tables: number;
  runs: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, runs: 5, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--tables') options.tables = Number(argv[++i]);
    else if (arg === '--runs') options.runs = Number(argv[++i]);
    else if (arg === '--no-write') options.write = false;
    else if (arg === '--write') options.write = true;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.tables !== 10_000 && !argv.includes('--write')) options.write = false;
  return options;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const max = (values: number[]) => Math.max(...values);

/** A connection whose 501 tables form a layered graph: each table loads from two of the layer before; `sink` from the last layer. */
async function writeLineageGraph(repo: string): Promise<void> {
  const dir = join(repo, 'sources', 'lineage_bench');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'connection.dqoconnection.yaml'),
    'apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: localhost\n    database: lineage\n    user: bench\n',
  );
  const name = (layer: number, index: number) => `t_${layer}_${index}`;
  const source = (table: string) => `    - source_connection: lineage_bench\n      source_schema: s\n      source_table: ${table}\n`;
  for (let layer = 0; layer < LAYERS; layer++) {
    for (let index = 0; index < PER_LAYER; index++) {
      const sources = layer === 0 ? '' : `  source_tables:\n${source(name(layer - 1, index))}${source(name(layer - 1, (index + 1) % PER_LAYER))}`;
      await writeFile(join(dir, `s.${name(layer, index)}.dqotable.yaml`), `apiVersion: dqo/v1\nkind: table\nspec:\n  columns: {}\n${sources}`);
    }
  }
  const all = Array.from({ length: PER_LAYER }, (_, i) => source(name(LAYERS - 1, i))).join('');
  await writeFile(join(dir, 's.sink.dqotable.yaml'), `apiVersion: dqo/v1\nkind: table\nspec:\n  columns: {}\n  source_tables:\n${all}`);
}

/** How fast this machine runs JavaScript now: a fixed loop, for reading the figures on a shared machine. */
function calibrate(): number {
  const start = performance.now();
  let sum = 0;
  for (let i = 0; i < 1e8; i++) sum += i % 7;
  if (sum < 0) throw new Error('unreachable');
  return performance.now() - start;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const calibrationBefore = calibrate();
  if (!(await readdir(CONSOLE_DIR).catch(() => null))) throw new Error(`the console is not built in ${CONSOLE_DIR}: npm run build`);
  const root = await mkdtemp(join(tmpdir(), 'dqctl-bench-console-'));
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `dqctl_bench_console_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database} template template0`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const store = await openStore({ databaseUrl: url.toString() });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const repo = join(root, 'repo');
    console.error(`generating ${options.tables} tables and the lineage graph`);
    await generateRepository(repo, { tables: options.tables });
    await writeLineageGraph(repo);
    console.error('planning and applying');
    const { plan } = await planRepository({ repository: repo, store });
    await applyPlan(plan, store, { holder: 'bench', appliedBy: 'bench', lockTimeoutMs: 120_000 });
    const tables = (await store.listSummaries({ kind: 'table' })).map((t) => t.name);
    // results on every fifth table (a fifth of those failing) and on the lineage tables
    const rows: CheckResultInput[] = [];
    tables.forEach((name, i) => {
      if (i % 5 !== 0 && !name.startsWith('lineage_bench/')) return;
      const slash = name.indexOf('/');
      const dot = name.indexOf('.', slash + 1);
      rows.push({
        connectionName: name.slice(0, slash),
        schemaName: name.slice(slash + 1, dot),
        tableName: name.slice(dot + 1),
        checkType: 'monitoring',
        timeGradient: 'day',
        checkCategory: 'volume',
        checkName: 'daily_row_count',
        checkHash: 1,
        timePeriod: '2026-11-20T00:00:00.000Z',
        actualValue: i,
        severity: i % 25 === 0 ? 2 : i % 10 === 0 ? 1 : 0,
        executedAt: '2026-11-20T06:00:00.000Z',
      });
    });
    for (let i = 0; i < rows.length; i += 2000) await store.insertCheckResults(rows.slice(i, i + 2000));
    const objects = (await store.listSummaries()).length;

    const app = await buildServer({ store, schedules: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const firstRender: number[] = [];
      const keystrokes: number[] = [];
      const lineageDraw: number[] = [];
      const lineageTotal: number[] = [];
      let lineageNodes = 0;
      // one warm-up pass (server caches, the browser's code cache), then the measured runs
      for (let run = 0; run <= options.runs; run++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${base}/`, { waitUntil: 'commit' });
        await page.locator('[data-testid=quality-counts]').waitFor({ timeout: 60_000 });
        const rendered = (await page.evaluate('performance.now()')) as number;

        await page.goto(`${base}/objects`);
        await page.locator('input[type=search]').waitFor({ timeout: 60_000 });
        await page.locator('.orow:not(.ohead)').first().waitFor();
        const typed: number[] = [];
        let text = '';
        for (const char of 'conn_1/tab') {
          text += char;
          typed.push(
            (await page.evaluate(`(async () => {
              const input = document.querySelector('input[type=search]');
              const start = performance.now();
              input.value = ${JSON.stringify(text)};
              input.dispatchEvent(new Event('input', { bubbles: true }));
              await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
              return performance.now() - start;
            })()`)) as number,
          );
        }
        const shown = await page.locator('[data-testid=result-count]').textContent();
        if (!shown || !/ of /.test(shown)) throw new Error(`the search did not filter: ${shown}`);

        await page.goto(`${base}/lineage/lineage_bench/s/sink?depth=100`, { waitUntil: 'commit' });
        await page.locator('[data-testid=lineage-graph]').waitFor({ timeout: 60_000 });
        await page.waitForFunction(`performance.getEntriesByName('lineage-drawn').length > 0`, undefined, { timeout: 60_000 });
        const marks = (await page.evaluate(`(() => {
          const start = performance.getEntriesByName('lineage-layout-start')[0].startTime;
          const drawn = performance.getEntriesByName('lineage-drawn')[0].startTime;
          return { draw: drawn - start, total: drawn, nodes: document.querySelectorAll('[data-testid=lineage-graph] a.node').length };
        })()`)) as { draw: number; total: number; nodes: number };
        await context.close();
        if (run === 0) continue;
        firstRender.push(rendered);
        keystrokes.push(...typed);
        lineageDraw.push(marks.draw);
        lineageTotal.push(marks.total);
        lineageNodes = marks.nodes;
        console.error(`run ${run}: first render ${rendered.toFixed(0)} ms, keystroke max ${max(typed).toFixed(0)} ms, lineage ${marks.nodes} nodes drawn in ${marks.draw.toFixed(0)} ms (${marks.total.toFixed(0)} ms from navigation)`);
      }
      const assets = join(CONSOLE_DIR, 'assets');
      let js = 0;
      let jsGzip = 0;
      for (const file of await readdir(assets)) {
        if (!file.endsWith('.js')) continue;
        const bytes = await readFile(join(assets, file));
        js += bytes.length;
        jsGzip += gzipSync(bytes, { level: 9 }).length;
      }
      const figures = {
        firstRender: median(firstRender),
        firstRenderMax: max(firstRender),
        keystroke: median(keystrokes),
        keystrokeMax: max(keystrokes),
        lineageDraw: median(lineageDraw),
        lineageDrawMax: max(lineageDraw),
        lineageTotal: median(lineageTotal),
        lineageNodes,
        js,
        jsGzip,
      };
      const pass = (ok: boolean) => (ok ? 'pass' : '**FAIL**');
      const calibration = (calibrationBefore + calibrate()) / 2;
      const section = [
        SECTION_START,
        '## Web console (`npm run bench:console`)',
        '',
        `${options.tables.toLocaleString('en')} generated tables plus a ${PER_LAYER * LAYERS + 1}-table lineage graph (${objects.toLocaleString('en')} objects), check results on ${rows.length.toLocaleString('en')} tables, PostgreSQL store, Debian Chromium ${browser.version()} headless (playwright-core), median of ${options.runs} runs after a warm-up. ` +
          `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, load ${loadavg()[0].toFixed(1)} (shared with other work). ` +
          `Speed check: a fixed loop of 10^8 additions took ${calibration.toFixed(0)} ms in this run: compare runs by it; the higher it is, the busier the machine was with other work and the more every figure below is inflated.`,
        '',
        '| measure | median | worst | target | |',
        '|---|---|---|---|---|',
        `| first meaningful render (navigation → the overview's numbers) | ${figures.firstRender.toFixed(0)} ms | ${figures.firstRenderMax.toFixed(0)} ms | < 1,500 ms | ${pass(figures.firstRender < 1500)} |`,
        `| filtering ${objects.toLocaleString('en')} objects, per keystroke (input → list rendered and painted) | ${figures.keystroke.toFixed(0)} ms | ${figures.keystrokeMax.toFixed(0)} ms | < 200 ms | ${pass(figures.keystrokeMax < 200)} |`,
        `| lineage graph of ${figures.lineageNodes} tables: layout (dagre) + SVG drawn | ${figures.lineageDraw.toFixed(0)} ms | ${figures.lineageDrawMax.toFixed(0)} ms | < 2,000 ms | ${pass(figures.lineageDrawMax < 2000)} |`,
        `| the same view from navigation (the API's lineage tree included) | ${figures.lineageTotal.toFixed(0)} ms | | | |`,
        `| console JavaScript | ${(figures.js / 1024).toFixed(0)} kB, ${(figures.jsGzip / 1024).toFixed(1)} kB gzipped | | < 300 kB gzipped | ${pass(figures.jsGzip < 300 * 1024)} |`,
        '',
        'The objects list is virtualized (only the rows in view are in the DOM); the filter runs over a lower-cased index built once per load.',
        SECTION_END,
      ].join('\n');
      console.log(section);
      if (options.write) await writeBenchmarkSection(section, SECTION_START, SECTION_END);
    } finally {
      await app.close();
    }
  } finally {
    await browser.close();
    await store.close();
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
