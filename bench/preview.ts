/**
 * `npm run bench:preview`: `dqctl preview` of a policy change that reaches 5,000 tables. Target: within 30 s.
 *
 * A git repository with one PostgreSQL connection, 5,000 table files and one table policy (`daily_row_count`,
 * error min_count 1) reaching all of them; the pull request raises min_count to 10 000, so every table's check
 * is modified. The store (PostgreSQL) holds 30 days of readouts of that check on every table (150,000 rows, one
 * in twelve below 10 000); the data source has the 5,000 tables (a few rows each), of which the first
 * `--live-limit` (default 50) run live. Measured twice, with the same store and repository:
 * - in-process: previewRevisions + previewChecks (what `dqctl preview` and the server's route run), after one
 *   warm-up; also the backtest's store read alone;
 * - whole process: the real bin, `dqctl preview --database … --format json` (Node start, git, store, live run).
 * Written to BENCHMARKS.md in its own section, with the machine and the date.
 *
 *   npm run bench:preview                 # writes BENCHMARKS.md
 *   npm run bench:preview -- --tables 500 # smoke run; prints only (add --write to write)
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { previewChecks } from '../src/app/preview/previewChecks.js';
import type { PreviewDocument } from '../src/app/preview/previewDocument.js';
import { previewRevisions } from '../src/app/preview/previewRevisions.js';
import { DataSources } from '../src/datasource/index.js';
import { checkHashOf } from '../src/jobs/checkRun/plannedChecks.js';
import { GitSource } from '../src/manifest/gitSource.js';
import type { JsonObject } from '../src/model/index.js';
import { openStore } from '../src/store/openStore.js';
import type { CheckResultInput, Store } from '../src/store/store.js';
import { writeBenchmarkSection } from './benchmarksFile.js';
import { git } from './git.js';

const SECTION_START = '<!-- bench/preview.ts: dqctl preview (start) -->';
const SECTION_END = '<!-- bench/preview.ts: dqctl preview (end) -->';
const TARGET_MS = 30_000;
const DAYS = 30;
const BIN = resolve(import.meta.dirname, '..', 'bin', 'dqctl.js');
const execFileAsync = promisify(execFile);
const SERVER = process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TABLES = arg('--tables', 5000);
const LIVE_LIMIT = arg('--live-limit', 50);
const WRITE = process.argv.includes('--write') || TABLES === 5000;

const tableName = (i: number) => `t${String(i).padStart(5, '0')}`;
const policy = (minCount: number) =>
  `apiVersion: dqo/v1\nkind: default_table_checks\nspec:\n  priority: 100\n  target:\n    connection: "*"\n    table: "*"\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: ${minCount}\n`;

async function main(): Promise<void> {
  const name = `dqctl_bench_preview_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${name} template template0`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-bench-preview-'));
  let store: Store | undefined;
  const dataSources = new DataSources({ env: { ...process.env, DQ_USER: decodeURIComponent(url.username) || 'postgres' } });
  try {
    // the data source: TABLES small tables in schema bench
    const source = new pg.Client({ connectionString: databaseUrl });
    await source.connect();
    await source.query('create schema bench');
    await source.query(
      `do $$ begin for i in 0..${TABLES - 1} loop execute format('create table bench.%I as select g as id from generate_series(1, 10) g', 't' || lpad(i::text, 5, '0')); end loop; end $$`,
    );
    await source.end();

    // the repository: base with min_count 1, the pull request with 10 000
    const repo = join(dir, 'repo');
    await mkdir(join(repo, 'sources/db'), { recursive: true });
    await mkdir(join(repo, 'patterns'), { recursive: true });
    await git(repo, 'init', '-q', '-b', 'main');
    await writeFile(
      join(repo, 'sources/db/connection.dqoconnection.yaml'),
      `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: ${url.hostname}\n    port: "${url.port || 5432}"\n    database: ${name}\n    user: \${DQ_USER}\n`,
    );
    for (let i = 0; i < TABLES; i++) {
      await writeFile(join(repo, `sources/db/bench.${tableName(i)}.dqotable.yaml`), 'apiVersion: dqo/v1\nkind: table\nspec:\n  columns:\n    id:\n      type_snapshot:\n        column_type: integer\n');
    }
    await writeFile(join(repo, 'patterns/volume.dqotablepattern.yaml'), policy(1));
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'base');
    await git(repo, 'checkout', '-q', '-b', 'pr');
    await writeFile(join(repo, 'patterns/volume.dqotablepattern.yaml'), policy(10_000));
    await git(repo, 'commit', '-q', '-am', 'at least 10 000 rows a day');
    await git(repo, 'checkout', '-q', 'main');

    // the store: DAYS days of readouts of every table's check
    store = await openStore({ databaseUrl });
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    let rows: CheckResultInput[] = [];
    for (let i = 0; i < TABLES; i++) {
      // today and the 29 days before it: the backtest's window
      for (let day = 0; day < DAYS; day++) {
        const value = (i + day) % 12 === 0 ? 9_000 : 12_000; // one readout in twelve below 10 000
        rows.push({
          connectionName: 'db',
          schemaName: 'bench',
          tableName: tableName(i),
          columnName: null,
          checkType: 'monitoring',
          timeGradient: 'day',
          checkCategory: 'volume',
          checkName: 'daily_row_count',
          checkHash: checkHashOf(`db.bench.${tableName(i)}`, null, 'monitoring', 'daily', 'daily_row_count'),
          sensorName: 'table/volume/row_count',
          timePeriod: new Date(today - day * 86_400_000).toISOString(),
          actualValue: value,
          severity: 0,
        });
      }
      if (rows.length >= 20_000) {
        await store.insertCheckResults(rows);
        rows = [];
      }
    }
    if (rows.length > 0) await store.insertCheckResults(rows);

    const request = (liveLimit: number) => ({
      base: { source: new GitSource({ repository: repo, ref: 'main' }), ref: 'main' },
      head: { source: new GitSource({ repository: repo, ref: 'pr' }), ref: 'pr' },
      days: DAYS,
      live: true,
      liveLimit,
    });
    const inProcess = async (): Promise<{ ms: number; doc: PreviewDocument; backtestMs: number }> => {
      let backtestMs = 0;
      const timedStore: Pick<Store, 'backtestReadouts' | 'checkResults'> = {
        backtestReadouts: async (...args) => {
          const started = performance.now();
          try {
            return await store!.backtestReadouts(...args);
          } finally {
            backtestMs += performance.now() - started;
          }
        },
        checkResults: (filter) => store!.checkResults(filter),
      };
      const started = performance.now();
      const doc = await previewRevisions(request(LIVE_LIMIT), (body, head) => {
        const sources = new Map<string, JsonObject>(head.objects.filter((o) => o.kind === 'source').map((o) => [o.name, o.spec]));
        return previewChecks(body, { store: timedStore, connectionSpec: (c) => sources.get(c), dataSources, now: new Date(), signal: new AbortController().signal });
      });
      return { ms: performance.now() - started, doc, backtestMs };
    };
    await inProcess(); // warm-up: module loading, the catalog, the pools
    const measured = await inProcess();
    const doc = measured.doc;
    const ran = doc.checks.filter((c) => c.live?.status === 'ran').length;
    const backtested = doc.checks.filter((c) => c.backtest !== null);
    const alertsBefore = backtested.reduce((n, c) => n + c.backtest!.before.error, 0);
    const alertsAfter = backtested.reduce((n, c) => n + c.backtest!.after.error, 0);
    if (doc.checks.length !== TABLES || backtested.length !== TABLES) throw new Error(`expected ${TABLES} backtested checks, got ${doc.checks.length} / ${backtested.length}`);
    await store.close();
    store = undefined;

    const started = performance.now();
    const whole = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [BIN, 'preview', '--base', 'main', '--head', 'pr', repo, '--database', databaseUrl, '--format', 'json', '--live-limit', String(LIVE_LIMIT)], {
        env: { ...process.env, NO_COLOR: '1', DQ_USER: decodeURIComponent(url.username) || 'postgres' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
    const wholeMs = performance.now() - started;
    if (whole.code !== 0) throw new Error(`dqctl preview exited ${whole.code}: ${whole.stderr}`);
    const wholeDoc = JSON.parse(whole.stdout) as PreviewDocument;
    const markdownChars = await markdownLength(repo, databaseUrl, url);

    const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const pass = (ok: boolean) => (ok ? 'pass' : '**FAIL**');
    const lines = [
      SECTION_START,
      '## Pull-request preview (`npm run bench:preview`)',
      '',
      `A policy change (daily_row_count, error min_count 1 → 10 000) reaching ${TABLES.toLocaleString('en-US')} tables: ${doc.checks.length.toLocaleString('en-US')} modified checks, ` +
        `backtested on ${(TABLES * DAYS).toLocaleString('en-US')} stored readouts (${DAYS} days per table, a PostgreSQL store) in one store read for the check type, ` +
        `${ran} checks run live on the first ${LIVE_LIMIT} tables of a PostgreSQL data source (--live-limit), the rest not run. Backtest: ${alertsBefore} → ${alertsAfter.toLocaleString('en-US')} errors.`,
      '',
      '| measured | time | target ≤ 30 s |',
      '|---|---|---|',
      `| in-process (previewRevisions + previewChecks: two git revisions, changed checks, backtest, live run), after a warm-up | ${fmt(measured.ms)} | ${pass(measured.ms <= TARGET_MS)} |`,
      `| of which the backtest's store read (one statement) | ${fmt(measured.backtestMs)} | — |`,
      `| whole process: \`dqctl preview --database … --format json\` (the real bin) | ${fmt(wholeMs)} | ${pass(wholeMs <= TARGET_MS)} |`,
      '',
      `The whole-process run found the same ${wholeDoc.checks.length.toLocaleString('en-US')} checks; its markdown (\`--format markdown\`) is ${markdownChars.toLocaleString('en-US')} characters (limit 60,000).`,
      '',
      `Measured ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at the end (the machine is shared).`,
      SECTION_END,
    ];
    const text = lines.join('\n');
    process.stdout.write(`${text}\n`);
    if (WRITE) {
      await writeBenchmarkSection(text, SECTION_START, SECTION_END);
      process.stderr.write('bench:preview: wrote BENCHMARKS.md\n');
    } else process.stderr.write('bench:preview: BENCHMARKS.md left alone (smoke run; pass --write to write it)\n');
  } finally {
    await store?.close();
    await dataSources.close();
    await rm(dir, { recursive: true, force: true });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function markdownLength(repo: string, databaseUrl: string, url: URL): Promise<number> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [BIN, 'preview', '--base', 'main', '--head', 'pr', repo, '--database', databaseUrl, '--format', 'markdown', '--no-live'],
    { env: { ...process.env, NO_COLOR: '1', DQ_USER: decodeURIComponent(url.username) || 'postgres' }, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.length;
}

await main();
