/**
 * `npm run bench:reconcile`: latency of the reconcile loop with the 10,000-table generated repository loaded,
 * from a change to the live store holding it, p50/p95 over `--edits` edits (default 100), on both engines:
 *
 *   watch     `serve --repo`: a file is saved (writeFile of one table file, a new `priority`) → the folder watch
 *             (chokidar, 200 ms debounce) → a pass (incremental load, plan, apply) → the row in the store.
 *   webhook   `serve --git`: the edit is committed in a working copy and pushed to a bare remote, then
 *             POST /api/gitops/webhook (signed, real HTTP on loopback) → fetch → a pass → the row in the store.
 *             Measured from the start of `git push` (push + webhook + fetch + pass) and from the webhook alone.
 *
 * The loop runs in this process (the Reconciler of `dqctl serve`, its timer set to an hour so that only the
 * measured triggers run passes); "the store holds the change" is polled every 5 ms with a read of that one
 * object (on PostgreSQL from a connection of its own). Each edit starts once the loop is idle again.
 * Targets (the issue's): p95 < 1 s for the watch, p95 < 2 s for push + webhook.
 *
 *   npm run bench:reconcile                                   # full size, both engines, writes BENCHMARKS.md
 *   npm run bench:reconcile -- --tables 500 --edits 20        # smoke run (prints only)
 *   options: --tables N --edits N --engines pglite,postgres --modes watch,git --write / --no-write
 *            --verbose (every pass on stderr)
 *   env:     BENCH_DATABASE_URL (else TEST_DATABASE_URL, else the local server)
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { classifyPath } from '../src/manifest/objectPaths.js';
import { GitRevisions } from '../src/reconcile/gitRevisions.js';
import { Reconciler } from '../src/reconcile/reconciler.js';
import { FolderRevisions } from '../src/reconcile/revisionSource.js';
import type { PassRecord } from '../src/reconcile/status.js';
import { signWebhookBody } from '../src/reconcile/webhookSignature.js';
import { buildServer } from '../src/server/buildServer.js';
import { openStore } from '../src/store/openStore.js';
import type { Store } from '../src/store/store.js';
import { generateRepository } from './generateRepository.js';
import { git } from './git.js';
import { BENCHMARKS_FILE, writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/reconcile.ts: reconcile latency benchmark (start) -->';
const SECTION_END = '<!-- bench/reconcile.ts: reconcile latency benchmark (end) -->';
const TARGET_WATCH_P95_MS = 1_000;
const TARGET_WEBHOOK_P95_MS = 2_000;
const SECRET = 'bench-webhook-secret';
const POLL_MS = 5;
const LOAD_AT_START = loadavg()[0];

type Engine = 'pglite' | 'postgres';

interface Options {
  tables: number;
  edits: number;
  engines: Engine[];
  write: boolean;
  /** Log every pass of the loops to stderr. */
  verbose: boolean;
  /** Which loops to measure (default both). */
  modes: Array<'watch' | 'git'>;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, edits: 100, engines: ['pglite', 'postgres'], write: true, verbose: false, modes: ['watch', 'git'] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => argv[++i];
    if (arg === '--tables') options.tables = Number(next());
    else if (arg === '--edits') options.edits = Number(next());
    else if (arg === '--engines') options.engines = next().split(',') as Engine[];
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else if (arg === '--verbose') options.verbose = true;
    else if (arg === '--modes') options.modes = next().split(',') as Options['modes'];
    else throw new Error(`unknown option ${arg}`);
  }
  if ((options.tables !== 10_000 || options.edits !== 100 || options.modes.length < 2) && !argv.includes('--write')) options.write = false;
  return options;
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Table files of a generated repository (relative paths), in a stable order. */
async function tableFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const connection of (await readdir(join(dir, 'sources'))).sort()) {
    for (const file of (await readdir(join(dir, 'sources', connection))).sort()) if (file.endsWith('.dqotable.yaml')) out.push(`sources/${connection}/${file}`);
  }
  return out;
}

/** The object a table file defines, named as the loader names it (`%XX` decoded). */
function tableKey(file: string): { kind: 'table'; name: string } {
  const classified = classifyPath(file);
  if (classified.type !== 'object' || classified.kind !== 'table') throw new Error(`${file} is not a table file`);
  return { kind: 'table', name: classified.name };
}

/** Sets `priority` of a table file to a value it did not have; returns the new value. */
async function editPriority(dir: string, file: string, round: number): Promise<number> {
  const path = join(dir, file);
  const text = await readFile(path, 'utf8');
  const match = /^ {2}priority: (\d+)$/m.exec(text);
  if (!match) throw new Error(`no priority in ${file}`);
  const value = 10 + (round % 80) === Number(match[1]) ? 91 : 10 + (round % 80);
  await writeFile(path, text.replace(/^ {2}priority: \d+$/m, `  priority: ${value}`));
  return value;
}

interface Probe {
  priorityOf(key: { kind: 'table'; name: string }): Promise<unknown>;
  close(): Promise<void>;
}

async function probeFor(engine: Engine, store: Store, url?: string): Promise<Probe> {
  if (engine === 'pglite' || !url) {
    return { priorityOf: async (key) => (await store.getObjects([key]))[0]?.spec.priority, close: async () => {} };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    priorityOf: async (key) =>
      (await client.query<{ p: number }>(`select (spec->>'priority')::int as p from dqctl.objects where kind = $1 and name = $2`, [key.kind, key.name])).rows[0]?.p,
    close: () => client.end(),
  };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

async function idle(loop: Reconciler, timeoutMs = 120_000): Promise<PassRecord> {
  let last: PassRecord | null = null;
  await waitUntil(async () => {
    const status = await loop.status();
    last = status.last_pass;
    return last !== null && !status.pass_running && !status.pass_queued;
  }, timeoutMs, 'the loop to be idle');
  return last!;
}

interface Series {
  label: string;
  latencies: number[];
  passes: number[];
  parsed: number[];
  /** Per pass: the phases of PassRecord.timings. */
  timings: Record<'read_ms' | 'load_ms' | 'plan_ms' | 'apply_ms', number[]>;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

interface EngineResult {
  engine: Engine;
  initialPassMs: number;
  watchReadyMs: number;
  watch: Series;
  gitInitialPassMs: number;
  push: Series;
  webhook: Series;
  /** PostgreSQL: push + webhook sent to a follower replica, which hands it to the leader (NOTIFY). */
  follower: Series;
  pushOnly: number[];
  rssMiB: number;
}

async function openEngine(engine: Engine, work: string): Promise<{ store: Store; url?: string; drop(): Promise<void> }> {
  if (engine === 'pglite') return { store: await openStore({ stateDir: join(work, 'state') }), drop: async () => {} };
  const server = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `dqctl_bench_reconcile_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name} template template0`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    store: await openStore({ databaseUrl: url.toString() }),
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function benchEngine(engine: Engine, generated: string, options: Options): Promise<EngineResult> {
  const work = await mkdtemp(join(tmpdir(), `dqctl-bench-reconcile-${engine}-`));
  const opened = await openEngine(engine, work);
  const { store } = opened;
  const probe = await probeFor(engine, store, opened.url);
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const log = options.verbose ? (level: string, message: string, fields?: Record<string, unknown>) => process.stderr.write(`  [${level}] ${message} ${JSON.stringify(fields ?? {})}\n`) : undefined;
  const result: EngineResult = {
    engine,
    initialPassMs: NaN,
    watchReadyMs: NaN,
    watch: emptySeries('file save (watch)'),
    gitInitialPassMs: NaN,
    push: emptySeries('push + webhook'),
    webhook: emptySeries('webhook alone'),
    follower: emptySeries('push + webhook to a follower replica'),
    pushOnly: [],
    rssMiB: 0,
  };
  try {
    const files = await tableFiles(generated);
    if (options.modes.includes('watch')) {
      // --- serve --repo: the folder watch
      const folder = join(work, 'folder');
      await cp(generated, folder, { recursive: true });
      const loop = new Reconciler({ store, source: new FolderRevisions(folder), autoApply: true, intervalMs: 3_600_000, log });
      const started = performance.now();
      await loop.start();
      result.watchReadyMs = performance.now() - started;
      const first = await idle(loop, 600_000);
      if (first.result !== 'applied') throw new Error(`the first pass ended ${first.result}: ${first.error}`);
      result.initialPassMs = first.duration_ms;
      process.stderr.write(`bench:reconcile: ${engine}: first pass ${first.duration_ms} ms; ${options.edits} saved edits…\n`);
      for (let i = 0; i < options.edits; i++) {
        const file = files[(i * 97) % files.length];
        const key = tableKey(file);
        const t0 = performance.now();
        const value = await editPriority(folder, file, i);
        await waitUntil(async () => (await probe.priorityOf(key)) === value, 30_000, `edit ${i} in the store`);
        const pass = await idle(loop);
        if (pass.result !== 'applied') throw new Error(`edit ${i}: the pass ended ${pass.result}: ${pass.error}`);
        record(result.watch, performance.now() - t0, pass);
      }
      await loop.stop();
    }

    if (options.modes.includes('git')) {
      // --- serve --git: push + webhook
      const copy = join(work, 'git-work');
      await cp(generated, copy, { recursive: true });
      await git(copy, 'init', '-q', '-b', 'main');
      await git(copy, 'config', 'gc.auto', '0');
      await git(copy, 'add', '-A');
      await git(copy, 'commit', '-q', '-m', 'generated');
      const remote = join(work, 'remote.git');
      await git(work, 'clone', '-q', '--bare', copy, remote);
      await git(copy, 'remote', 'add', 'origin', remote);
      const gitLoop = new Reconciler({
        store,
        source: new GitRevisions({ url: `file://${remote}`, branch: 'main', cacheDir: join(work, 'git-cache') }),
        autoApply: true,
        intervalMs: 3_600_000,
        webhookSecret: SECRET,
        log,
      });
      const app = await buildServer({ store, reconciler: gitLoop, logger: false });
      try {
        const address = await app.listen({ port: 0, host: '127.0.0.1' });
        await gitLoop.start();
        const gitFirst = await idle(gitLoop, 600_000);
        if (gitFirst.result !== 'applied' && gitFirst.result !== 'no_changes') throw new Error(`the first git pass ended ${gitFirst.result}: ${gitFirst.error}`);
        result.gitInitialPassMs = gitFirst.duration_ms;
        process.stderr.write(`bench:reconcile: ${engine}: first git pass ${gitFirst.duration_ms} ms; ${options.edits} pushes + webhooks…\n`);
        /** One edit after another: commit, push, the webhook to `address`, until the store holds it; the leader's pass. */
        const pushes = async (address: string, offset: number, onEdit: (pushToStore: number, webhookToStore: number, push: number, pass: PassRecord) => void) => {
          for (let i = 0; i < options.edits; i++) {
            const file = files[(i * 89 + offset) % files.length];
            const key = tableKey(file);
            const value = await editPriority(copy, file, i + offset);
            await git(copy, 'commit', '-q', '-a', '-m', `edit ${offset}/${i}`);
            const t0 = performance.now();
            await git(copy, 'push', '-q', 'origin', 'main');
            const t1 = performance.now();
            const body = JSON.stringify({ ref: 'refs/heads/main', edit: i });
            const answer = await fetch(`${address}/api/gitops/webhook`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signWebhookBody(SECRET, body) },
              body,
              signal: AbortSignal.timeout(30_000),
            });
            if (answer.status !== 202) throw new Error(`webhook answered ${answer.status}: ${await answer.text()}`);
            await waitUntil(async () => (await probe.priorityOf(key)) === value, 30_000, `push ${offset}/${i} in the store`);
            const t2 = performance.now();
            const pass = await idle(gitLoop);
            if (pass.result !== 'applied') throw new Error(`push ${offset}/${i}: the pass ended ${pass.result}: ${pass.error}`);
            onEdit(t2 - t0, t2 - t1, t1 - t0, pass);
          }
        };
        await pushes(address, 13, (pushToStore, webhookToStore, push, pass) => {
          record(result.push, pushToStore, pass);
          result.webhook.latencies.push(webhookToStore);
          result.pushOnly.push(push);
        });
        if (engine === 'postgres' && opened.url) {
          // A second replica on the same database, with its own store connection and clone: it follows, and the
          // webhook sent to it reaches the leader through the store.
          const followerStore = await openStore({ databaseUrl: opened.url });
          const follower = new Reconciler({
            store: followerStore,
            source: new GitRevisions({ url: `file://${remote}`, branch: 'main', cacheDir: join(work, 'git-cache-follower') }),
            autoApply: true,
            intervalMs: 3_600_000,
            webhookSecret: SECRET,
            log,
          });
          const followerApp = await buildServer({ store: followerStore, reconciler: follower, logger: false });
          try {
            const followerAddress = await followerApp.listen({ port: 0, host: '127.0.0.1' });
            await follower.start();
            await idle(follower, 600_000);
            if (follower.isLeader) throw new Error('the second replica leads: the follower measurement needs the first to lead');
            process.stderr.write(`bench:reconcile: ${engine}: ${options.edits} pushes + webhooks to a follower replica…\n`);
            await pushes(followerAddress, 29, (pushToStore, _webhookToStore, _push, pass) => record(result.follower, pushToStore, pass));
          } finally {
            await followerApp.close();
            await follower.stop();
            await followerStore.close();
          }
        }
      } finally {
        await app.close();
        await gitLoop.stop();
      }
    }
    result.rssMiB = peakRss / 2 ** 20;
    return result;
  } finally {
    clearInterval(rssTimer);
    await probe.close();
    await store.close();
    await opened.drop();
    await rm(work, { recursive: true, force: true });
  }
}

function emptySeries(label: string): Series {
  return { label, latencies: [], passes: [], parsed: [], timings: { read_ms: [], load_ms: [], plan_ms: [], apply_ms: [] } };
}

function record(series: Series, latency: number, pass: PassRecord): void {
  series.latencies.push(latency);
  series.passes.push(pass.duration_ms);
  series.parsed.push(pass.files?.parsed ?? 0);
  for (const phase of ['read_ms', 'load_ms', 'plan_ms', 'apply_ms'] as const) series.timings[phase].push(pass.timings[phase]);
}

function formatReport(options: Options, repoInfo: { files: number; bytes: number }, results: EngineResult[], totalMs: number): string {
  const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
  const lines: string[] = [];
  lines.push(SECTION_START, '## Reconcile loop: from a change to the live store', '');
  lines.push(
    `Written by \`npm run bench:reconcile\` (bench/reconcile.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; the run took ${fmt(totalMs / 1000)} s.`,
    '',
  );
  lines.push(
    `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average (1 min) ${LOAD_AT_START.toFixed(2)} at the start and ${loadavg()[0].toFixed(2)} at the end. The machine may be shared: compare runs made under similar load.`,
    '',
  );
  lines.push(
    `Repository: ${fmt(options.tables)} generated tables (bench/generateRepository.ts, ${fmt(repoInfo.files)} files, ${(repoInfo.bytes / 2 ** 20).toFixed(1)} MiB), applied by the loop's first pass. ${options.edits} edits per row, one at a time: each changes the \`priority\` of one table file (a different table each time) and waits for the loop to be idle before the next. The loop runs in the benchmark process; the store is polled every ${POLL_MS} ms.`,
    '',
  );
  lines.push(
    '- **watch**: `serve --repo`: from `writeFile` of the table file to the store holding the new value (chokidar event, 200 ms debounce, one pass: incremental load, plan, apply).',
    '- **push + webhook**: `serve --git`: from the start of `git push` to a bare remote (file://) to the store holding it; the webhook (signed, real HTTP on loopback) is sent as soon as the push returns, and the pass fetches, reads the fetched tree (GitSource) and applies. **webhook** is the same edit from the webhook alone.',
    '- Passes are incremental: the loop keeps a ParseCache and re-parses only files whose version changed (size, mtime, ctime and inode for a folder; the blob id for git), and a pass of the folder watch stats only the paths the watch reported (any other pass lists the whole folder); the findings of one file are kept with its parse, and the store keeps the object summaries between reads, reading only the rows written since (src/store/summaryCache.ts); every cross-file check, the diff of all 10,000 objects against the store and the apply run in full every pass.',
    "- **push + webhook to a follower replica** (PostgreSQL): the same, with the webhook sent to a second replica (its own store connection and clone, not leading): it fetches and reports, and hands the push to the leader through the store (NOTIFY), whose pass applies it; the pass columns are the leader's.",
    '- The ↳ columns split the pass (PassRecord.timings, medians): read = listing the folder or fetching and reading the git tree, load = parse/validate/cross-file checks, plan = reading the store and diffing (twice when it applied: the second, after the commit, gives the status), apply = the transaction.',
    '',
  );
  const targets: string[] = ['| target | measured | limit | result |', '|---|---:|---:|---|'];
  for (const r of results) {
    if (r.watch.latencies.length > 0) {
      const watch95 = percentile(r.watch.latencies, 95);
      targets.push(`| ${r.engine}: watch p95 | ${fmt(watch95)} ms | < ${fmt(TARGET_WATCH_P95_MS)} ms | **${watch95 < TARGET_WATCH_P95_MS ? 'PASS' : 'FAIL'}** |`);
    }
    if (r.push.latencies.length > 0) {
      const push95 = percentile(r.push.latencies, 95);
      targets.push(`| ${r.engine}: push + webhook p95 | ${fmt(push95)} ms | < ${fmt(TARGET_WEBHOOK_P95_MS)} ms | **${push95 < TARGET_WEBHOOK_P95_MS ? 'PASS' : 'FAIL'}** |`);
    }
  }
  lines.push('### Targets', '', ...targets, '');
  for (const r of results) {
    lines.push(`### ${r.engine === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL'}`, '');
    lines.push(
      '| from | edits | p50 | p95 | max | mean | pass (median) | ↳ read | ↳ load | ↳ plan | ↳ apply | files parsed per pass |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    const ms = (values: number[]) => (values.length ? `${fmt(percentile(values, 50))} ms` : '');
    const row = (series: Series) => {
      const v = series.latencies;
      if (v.length === 0) return;
      lines.push(
        `| ${series.label} | ${v.length} | ${fmt(percentile(v, 50))} ms | ${fmt(percentile(v, 95))} ms | ${fmt(Math.max(...v))} ms | ${fmt(v.reduce((a, b) => a + b, 0) / v.length)} ms | ${ms(series.passes)} | ${ms(series.timings.read_ms)} | ${ms(series.timings.load_ms)} | ${ms(series.timings.plan_ms)} | ${ms(series.timings.apply_ms)} | ${series.parsed.length ? fmt(percentile(series.parsed, 50)) : ''} |`,
      );
    };
    row(r.watch);
    row(r.push);
    row(r.webhook);
    row({ ...emptySeries('(git push alone)'), latencies: r.pushOnly });
    row(r.follower);
    lines.push('');
    if (r.watch.latencies.length > 0) {
      lines.push(
        `- First pass (empty store, every file parsed, ${fmt(options.tables)} tables applied): ${fmt(r.initialPassMs)} ms; the folder watch was ready ${fmt(r.watchReadyMs)} ms after start (chokidar's initial scan; the first pass starts after it).`,
      );
    }
    if (r.push.latencies.length > 0) {
      lines.push(`- First pass of the git loop (clone of the remote, every blob parsed, the store already holding the tables): ${fmt(r.gitInitialPassMs)} ms.`);
    }
    lines.push(`- Peak RSS of the benchmark process (the store, the loops, the server): ${fmt(r.rssMiB)} MiB.`, '');
  }
  lines.push(SECTION_END);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'dqctl-bench-reconcile-repo-'));
  try {
    const repoInfo = await generateRepository(root, { tables: options.tables });
    const results: EngineResult[] = [];
    for (const engine of options.engines) {
      process.stderr.write(`bench:reconcile: ${engine}…\n`);
      results.push(await benchEngine(engine, root, options));
    }
    const report = formatReport(options, repoInfo, results, performance.now() - started);
    process.stdout.write(report + '\n');
    if (options.write) {
      await writeBenchmarkSection(report, SECTION_START, SECTION_END);
      process.stderr.write(`bench:reconcile: wrote ${BENCHMARKS_FILE}\n`);
    } else {
      process.stderr.write('bench:reconcile: BENCHMARKS.md left alone (not the full size; pass --write to write it)\n');
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:reconcile failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
