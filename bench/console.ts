/**
 * `npm run bench:console`: the web console in Debian's Chromium (playwright-core) and the API it reads, against
 * a PostgreSQL store holding a generated DQOps home plus a 501-table lineage graph, with check results on a fifth
 * of the tables. The store is generated and applied once per run (bench/largeStore.ts) and read by two servers:
 * one in this process and a whole `dqctl serve` process (dist/, so build first). Written to BENCHMARKS.md.
 *
 *   npm run bench:console                                          # 10,000 tables, writes BENCHMARKS.md
 *   npm run bench:console -- --tables 100000 --connections 100     # 100,000 tables (the apply takes minutes)
 *   npm run bench:console -- --tables 500 --no-write               # smoke run
 *   options: --runs N  --requests N  --keep-database NAME (create once, reuse in later runs, never dropped)
 *
 * Measured, each on both servers (in process, whole process):
 *   page of tables p95     GET …/schemas/{s}/tables?page=P&limit=100 of the largest schema, pages spread over it
 *   overview p95           GET /api/overview
 *   objects page p95       GET /api/objects?limit=100 with a search (what a keystroke asks: the prefixes of
 *                          `connection/schema.` of the largest schema)
 *   first render           navigation start → the overview's data quality numbers in the DOM (performance.now())
 *   objects first render   navigation start → the first rows of the objects page in the DOM
 *   keystroke              one character of `connection/schema.` (the largest schema) typed into the objects'
 *                          search box → the server's answer for that text rendered and a frame painted (measured
 *                          in the page, from the input event)
 *   lineage                the 501-table graph: layout (dagre) + SVG drawn, and the whole view from navigation
 *   bundle                 the console's JavaScript, gzipped
 * Targets: page of tables p95 ≤ 100 ms; overview p95 ≤ 500 ms; first renders ≤ 1.5 s; keystroke ≤ 200 ms;
 * 500-node lineage laid out and drawn < 2 s; JS < 300 kB gz.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { buildServer } from '../src/server/buildServer.js';
import { CONSOLE_DIR } from '../src/server/console.js';
import { writeBenchmarkSection } from './benchmarksFile.js';
import { openLargeStore } from './largeStore.js';

/** One section per size: 10,000 tables keeps the section it always had, 100,000 tables gets its own beside it. */
function sectionMarkers(tables: number): { start: string; end: string } {
  const size = tables === 10_000 ? '' : ` at ${tables.toLocaleString('en')} tables`;
  return { start: `<!-- bench/console.ts: web console benchmark${size} (start) -->`, end: `<!-- bench/console.ts: web console benchmark${size} (end) -->` };
}
const CHROMIUM = process.env.DQCTL_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LAYERS = 10;
const PER_LAYER = 50;
const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'dqctl.js');

interface Options {
  tables: number;
  connections: number;
  runs: number;
  requests: number;
  keep: string | undefined;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, connections: 0, runs: 5, requests: 200, keep: undefined, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--tables') options.tables = Number(argv[++i]);
    else if (arg === '--connections') options.connections = Number(argv[++i]);
    else if (arg === '--runs') options.runs = Number(argv[++i]);
    else if (arg === '--requests') options.requests = Number(argv[++i]);
    else if (arg === '--keep-database') options.keep = argv[++i];
    else if (arg === '--no-write') options.write = false;
    else if (arg === '--write') options.write = true;
    else throw new Error(`unknown option ${arg}`);
  }
  // 10,000 tables = 50 connections × 200; 100,000 = 100 × 1,000 (issue 25's sizes)
  if (options.connections === 0) options.connections = options.tables >= 100_000 ? 100 : 50;
  if (![10_000, 100_000].includes(options.tables) && !argv.includes('--write')) options.write = false;
  return options;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const max = (values: number[]) => Math.max(...values);
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)];

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

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => done(port));
    });
  });
}

/** `dqctl serve` on the store, as a person runs it (dist/), until it answers its health check. */
async function serveProcess(databaseUrl: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--database', databaseUrl, '--port', String(port), '--no-schedules', '--no-notifications', '--log-level', 'silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 120_000; waited += 250) {
    if (child.exitCode !== null) throw new Error(`dqctl serve exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/api/healthcheck`).then((r) => r.ok, () => false);
    if (ok) return { base, child };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill();
  throw new Error('dqctl serve did not answer within 120 s');
}

/** Latencies of `count` sequential GETs (after one warm-up each), the URL chosen per request. */
async function latencies(count: number, url: (i: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = -1; i < count; i++) {
    const start = performance.now();
    const response = await fetch(url(Math.max(0, i)));
    const body = await response.text();
    if (!response.ok) throw new Error(`${url(i)} answered ${response.status}: ${body.slice(0, 200)}`);
    if (i >= 0) times.push(performance.now() - start);
  }
  return times;
}

interface ServerFigures {
  /** The first GET /api/objects of a fresh server (it builds the index of the objects). */
  objectsCold: number;
  tablesPage: number[];
  overview: number[];
  objectsSearch: number[];
  firstRender: number[];
  objectsRender: number[];
  keystrokes: number[];
  lineageDraw: number[];
  lineageTotal: number[];
  lineageNodes: number;
}

async function measureServer(browser: Browser, base: string, options: Options, largest: { connection: string; schema: string; tables: number }): Promise<ServerFigures> {
  const pages = Math.max(1, Math.ceil(largest.tables / 100));
  // what a person types to find the tables of the largest schema, one character at a time
  const typing = `${largest.connection}/${largest.schema}.`;
  const tablesUrl = `${base}/api/connections/${encodeURIComponent(largest.connection)}/schemas/${encodeURIComponent(largest.schema)}/tables`;
  // the first request of a fresh server builds the index of the objects (then kept until an object changes)
  const coldStart = performance.now();
  const cold = await fetch(`${base}/api/objects?limit=100&page=1`);
  if (!cold.ok) throw new Error(`GET /api/objects answered ${cold.status}`);
  await cold.text();
  const objectsCold = performance.now() - coldStart;
  const figures: ServerFigures = {
    objectsCold,
    tablesPage: await latencies(options.requests, (i) => `${tablesUrl}?page=${1 + ((i * 7) % pages)}&limit=100`),
    overview: await latencies(Math.max(10, Math.floor(options.requests / 5)), () => `${base}/api/overview`),
    objectsSearch: await latencies(Math.max(10, Math.floor(options.requests / 5)), (i) => `${base}/api/objects?limit=100&page=1&search=${encodeURIComponent(typing.slice(0, 1 + (i % typing.length)))}`),
    firstRender: [],
    objectsRender: [],
    keystrokes: [],
    lineageDraw: [],
    lineageTotal: [],
    lineageNodes: 0,
  };
  // one warm-up pass (server caches, the browser's code cache), then the measured runs
  for (let run = 0; run <= options.runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/`, { waitUntil: 'commit' });
    await page.locator('[data-testid=quality-counts]').waitFor({ timeout: 60_000 });
    const rendered = (await page.evaluate('performance.now()')) as number;

    await page.goto(`${base}/objects`, { waitUntil: 'commit' });
    await page.locator('.orow:not(.ohead)').first().waitFor({ timeout: 60_000 });
    const objectsRendered = (await page.evaluate('performance.now()')) as number;
    await page.locator('input[type=search]').waitFor();
    const typed: number[] = [];
    let text = '';
    for (const char of typing) {
      text += char;
      typed.push(
        (await page.evaluate(`(async () => {
          const input = document.querySelector('input[type=search]');
          const text = ${JSON.stringify(text)};
          const start = performance.now();
          input.value = text;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          // until the rows on screen are the server's answer for this text, then one painted frame
          const answered = () => {
            const shown = document.querySelector('[data-testid=result-count]');
            const request = shown && shown.getAttribute('data-answers');
            return request !== null && request !== undefined && new URL(request, location.origin).searchParams.get('search') === text;
          };
          while (!answered()) {
            if (performance.now() - start > 60000) throw new Error('no answer for ' + text);
            await new Promise((done) => requestAnimationFrame(done));
          }
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
          return performance.now() - start;
        })()`)) as number,
      );
    }
    const shown = await page.locator('[data-testid=result-count]').textContent();
    if (!shown || !/ of /.test(shown)) throw new Error(`the search did not filter: ${shown}`);

    await page.goto(`${base}/lineage/lineage_bench/s/sink?depth=100`, { waitUntil: 'commit' });
    // the first lineage request of a fresh server reads every table's sources (at 100,000 tables, on a busy machine: minutes)
    await page.locator('[data-testid=lineage-graph]').waitFor({ timeout: 300_000 });
    await page.waitForFunction(`performance.getEntriesByName('lineage-drawn').length > 0`, undefined, { timeout: 300_000 });
    const marks = (await page.evaluate(`(() => {
      const start = performance.getEntriesByName('lineage-layout-start')[0].startTime;
      const drawn = performance.getEntriesByName('lineage-drawn')[0].startTime;
      return { draw: drawn - start, total: drawn, nodes: document.querySelectorAll('[data-testid=lineage-graph] a.node').length };
    })()`)) as { draw: number; total: number; nodes: number };
    await context.close();
    if (run === 0) continue;
    figures.firstRender.push(rendered);
    figures.objectsRender.push(objectsRendered);
    figures.keystrokes.push(...typed);
    figures.lineageDraw.push(marks.draw);
    figures.lineageTotal.push(marks.total);
    figures.lineageNodes = marks.nodes;
    console.error(
      `run ${run}: first render ${rendered.toFixed(0)} ms, objects ${objectsRendered.toFixed(0)} ms, keystroke max ${max(typed).toFixed(0)} ms, lineage ${marks.nodes} nodes drawn in ${marks.draw.toFixed(0)} ms`,
    );
  }
  return figures;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const calibrationBefore = calibrate();
  if (!(await readdir(CONSOLE_DIR).catch(() => null))) throw new Error(`the console is not built in ${CONSOLE_DIR}: npm run build`);
  const large = await openLargeStore({
    tables: options.tables,
    connections: options.connections,
    keep: options.keep,
    extend: writeLineageGraph,
    withResults: (name) => name.startsWith('lineage_bench/'),
  });
  const { store } = large;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  let whole: ChildProcess | undefined;
  try {
    const summaries = await store.listSummaries();
    const objects = summaries.length;
    const tables = summaries.filter((s) => s.kind === 'table').length;
    // the schema with the most tables: the longest table list a client pages through
    const schemas = new Map<string, number>();
    for (const s of summaries) {
      if (s.kind !== 'table') continue;
      const dot = s.name.indexOf('.', s.name.indexOf('/') + 1);
      schemas.set(s.name.slice(0, dot), (schemas.get(s.name.slice(0, dot)) ?? 0) + 1);
    }
    const [largestKey, largestCount] = [...schemas.entries()].sort((a, b) => b[1] - a[1])[0];
    const largest = { connection: largestKey.slice(0, largestKey.indexOf('/')), schema: largestKey.slice(largestKey.indexOf('/') + 1), tables: largestCount };

    const app = await buildServer({ store, schedules: false, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    let inProcess: ServerFigures;
    let wholeProcess: ServerFigures;
    try {
      console.error('measuring the server in this process');
      inProcess = await measureServer(browser, base, options, largest);
    } finally {
      await app.close();
    }
    console.error('measuring a dqctl serve process');
    const served = await serveProcess(large.databaseUrl);
    whole = served.child;
    wholeProcess = await measureServer(browser, served.base, options, largest);

    const assets = join(CONSOLE_DIR, 'assets');
    let js = 0;
    let jsGzip = 0;
    for (const file of await readdir(assets)) {
      if (!file.endsWith('.js')) continue;
      const bytes = await readFile(join(assets, file));
      js += bytes.length;
      jsGzip += gzipSync(bytes, { level: 9 }).length;
    }
    const pass = (ok: boolean) => (ok ? 'pass' : '**FAIL**');
    const ms = (value: number) => `${Math.round(value).toLocaleString('en')} ms`;
    const calibration = (calibrationBefore + calibrate()) / 2;
    const row = (label: string, pick: (f: ServerFigures) => number[], stat: (v: number[]) => number, target: number, statName: string) => {
      const a = stat(pick(inProcess));
      const b = stat(pick(wholeProcess));
      return `| ${label} (${statName}) | ${ms(a)} | ${ms(b)} | ≤ ${target.toLocaleString('en')} ms | ${pass(Math.max(a, b) <= target)} |`;
    };
    const markers = sectionMarkers(options.tables);
    const section = [
      markers.start,
      `## Web console and the lists it reads at ${options.tables.toLocaleString('en')} tables (\`npm run bench:console\`)`,
      '',
      `Written by \`npm run bench:console -- --tables ${options.tables} --connections ${options.connections}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. ` +
        `${options.tables.toLocaleString('en')} generated tables in ${options.connections} connections plus a ${PER_LAYER * LAYERS + 1}-table lineage graph (${objects.toLocaleString('en')} objects, ${tables.toLocaleString('en')} tables), check results on ${large.tablesWithResults.toLocaleString('en')} tables, ` +
        `one PostgreSQL store generated and applied once for the run${large.generated ? ` (plan + apply ${large.applySeconds.toFixed(0)} s)` : ' (a kept database, reused)'}, read by a server in the bench's process and by a whole \`dqctl serve\` process (dist/). ` +
        `API figures: ${options.requests} sequential GETs for a page of tables (the largest schema, ${largest.connection}/${largest.schema}, ${largest.tables.toLocaleString('en')} tables, pages spread over it), ${Math.max(10, Math.floor(options.requests / 5))} for the overview and for a search of the objects, on loopback after a warm-up. ` +
        `Console: Debian Chromium ${browser.version()} headless (playwright-core), median of ${options.runs} runs after a warm-up. ` +
        `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}, ${platform()} ${release()}, load ${loadavg()[0].toFixed(1)} at the end (shared with other work). ` +
        `Speed check: a fixed loop of 10^8 additions took ${calibration.toFixed(0)} ms in this run: compare runs by it; the higher it is, the busier the machine was with other work and the more every figure below is inflated.`,
      '',
      '| measure | in process | whole process | target | |',
      '|---|---|---|---|---|',
      row('GET a page of 100 tables', (f) => f.tablesPage, p95, 100, 'p95'),
      row('GET /api/overview', (f) => f.overview, p95, 500, 'p95'),
      row('GET /api/objects, one page of a search', (f) => f.objectsSearch, p95, 200, 'p95'),
      `| GET /api/objects, the first request of a fresh server (it builds the index of the objects, kept until an object changes) | ${ms(inProcess.objectsCold)} | ${ms(wholeProcess.objectsCold)} | | |`,
      row("console: first render (navigation → the overview's numbers)", (f) => f.firstRender, median, 1500, 'median'),
      row('console: objects page first render (navigation → the first rows)', (f) => f.objectsRender, median, 1500, 'median'),
      row(`console: objects page, a search keystroke of "${largest.connection}/${largest.schema}." (input → the server’s answer rendered and painted)`, (f) => f.keystrokes, median, 200, 'median'),
      row('console: the same keystroke', (f) => f.keystrokes, max, 200, 'worst'),
      row(`console: lineage graph of ${inProcess.lineageNodes} tables, layout (dagre) + SVG drawn`, (f) => f.lineageDraw, median, 2000, 'median'),
      `| console: the same view from navigation (the API's lineage tree included) (median) | ${ms(median(inProcess.lineageTotal))} | ${ms(median(wholeProcess.lineageTotal))} | | |`,
      `| console JavaScript | ${(js / 1024).toFixed(0)} kB, ${(jsGzip / 1024).toFixed(1)} kB gzipped | | < 300 kB gzipped | ${pass(jsGzip < 300 * 1024)} |`,
      '',
      'The objects page asks the server for one page of 100 objects (GET /api/objects?page&limit&search…, searched and filtered on the server over an index of the objects kept per store revision) and draws it in a virtualised list; a keystroke cancels the request of the text it replaces (AbortController), so only the answer for the text in the box is drawn; the table list pages as DQOps’s does (page, limit, filter); the jobs page lists runs 50 at a time, a run’s tables under it 100 at a time. ' +
        'What a keystroke costs on the server: a search filters the matches of the longest recent search it extends (the first keystroke scans the index), the page’s tables read one row each from dqctl.table_status and its connections one folded row each (however many tables they hold); the overview reads one row per table with results; the index of the objects is built once per store revision (see the first request of a fresh server). ' +
        'The console’s first page loads only its own JavaScript (the table page with its chart library and the lineage views with their layout library load when first opened; the size above is every chunk); graphs over 150 tables keep dagre’s first order of each layer (no crossing-reduction sweeps).',
      markers.end,
    ].join('\n');
    console.log(section);
    if (options.write) await writeBenchmarkSection(section, markers.start, markers.end);
  } finally {
    whole?.kill();
    await browser.close();
    await large.close();
  }
}

await main();
