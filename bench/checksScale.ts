/**
 * `npm run bench:checks-scale`: a check run over many tables of ONE PostgreSQL source (default 10,000 tables of 100
 * rows, 4 checks each), run by several job services on one PostgreSQL store, against the same sensor queries run
 * by hand with the same parallelism (replicas × parallel_jobs_limit connections, each table's queries in one
 * read-only snapshot, as the check runner runs them).
 *   (a) by hand: dqctl's planned queries of every table (planned before timing), run by replicas × limit clients;
 *   (b) in process: `replicas` JobServices in this process (each with its own data source pools), as in `dqctl serve`;
 *   (c) whole processes: `replicas` × `dqctl serve --database <store>` (dist/), the run put into the queue.
 * Target: (b) and (c) ≤ 1.2 × (a). Peak RSS of each serve process is read from /proc (VmHWM).
 *
 *   npm run bench:checks-scale                                 # 10,000 tables, writes BENCHMARKS.md
 *   npm run bench:checks-scale -- --tables 500 --no-write      # smoke run
 *   options: --tables N --rows N --limit N (parallel_jobs_limit) --replicas N --write/--no-write
 *   needs dist/ (`npm run build`) for (c)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { applyPlan } from '../src/apply/applyPlan.js';
import { planRepository } from '../src/app/planRepository.js';
import { DataSources } from '../src/datasource/index.js';
import { planSensorQueries } from '../src/datasource/sensors/index.js';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { planCheckRun } from '../src/jobs/checkRun/planCheckRun.js';
import { tableQueryRequestOf } from '../src/jobs/checkRun/tableQueryRequest.js';
import { defaultExecutors, jobServiceOptionsOf } from '../src/jobs/executors/index.js';
import { RUN_CHECKS } from '../src/jobs/executors/runChecks.js';
import { FINAL_STATUSES, JobService } from '../src/jobs/jobService.js';
import { openStore } from '../src/store/openStore.js';
import type { CheckResultInput, Store } from '../src/store/store.js';
import { periodOf, resultBase } from '../src/jobs/checkRun/resultRows.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DQCTL = resolve(HERE, '..', 'bin', 'dqctl.js');
const SECTION_START = '<!-- bench/checksScale.ts: checks at scale (start) -->';
const SECTION_END = '<!-- bench/checksScale.ts: checks at scale (end) -->';
const LIMIT = 1.2;

interface Options {
  tables: number;
  rows: number;
  limit: number;
  replicas: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, rows: 100, limit: 2, replicas: 2, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): number => Number(argv[++i]);
    if (arg === '--tables') options.tables = next();
    else if (arg === '--rows') options.rows = next();
    else if (arg === '--limit') options.limit = next();
    else if (arg === '--replicas') options.replicas = next();
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.tables !== 10_000 && !argv.includes('--write')) options.write = false;
  return options;
}

const serverUrl = (): string => process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;
const log = (text: string): void => void process.stderr.write(`bench:checks-scale: ${text} (load ${loadavg()[0]!.toFixed(1)})\n`);

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function urlOf(database: string): URL {
  const url = new URL(serverUrl());
  url.pathname = `/${database}`;
  return url;
}

/** The source: N tables "Scale"."t<i>" (id, amount, note) of `rows` rows each, created server-side. */
async function createSource(url: URL, options: Options): Promise<void> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query('create schema "Scale"');
    for (let start = 0; start < options.tables; start += 500) {
      const end = Math.min(options.tables, start + 500) - 1;
      await client.query(`do $$ begin for i in ${start}..${end} loop
        execute format('create table "Scale".%I (id int, amount numeric(10,2), note text)', 't' || i);
        execute format('insert into "Scale".%I select g, (g * 7 %% 200) - 20, case when g %% 9 = 0 then null else ''n'' || g end from generate_series(1, ${options.rows}) g', 't' || i);
      end loop; end $$`);
    }
  } finally {
    await client.end();
  }
}

/** The DQOps home: the connection (parallel_jobs_limit) and one table file per table with 4 daily checks. */
async function writeRepository(dir: string, url: URL, options: Options): Promise<void> {
  const folder = join(dir, 'sources', 'bench');
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, 'connection.dqoconnection.yaml'),
    `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: ${url.hostname}\n    port: ${url.port || '5432'}\n    database: ${url.pathname.slice(1)}\n    user: ${decodeURIComponent(url.username || 'postgres')}\n    password: \${DQCTL_BENCH_PASSWORD}\n  parallel_jobs_limit: ${options.limit}\n`,
  );
  const table = `apiVersion: dqo/v1
kind: table
spec:
  monitoring_checks:
    daily:
      volume:
        daily_row_count:
          error:
            min_count: 1
  columns:
    amount:
      monitoring_checks:
        daily:
          numeric:
            daily_negative_values:
              error:
                max_count: 1000
    note:
      monitoring_checks:
        daily:
          nulls:
            daily_nulls_count:
              warning:
                max_count: 5
          text:
            daily_text_max_length:
              error:
                to: 100
`;
  for (let start = 0; start < options.tables; start += 1000) {
    await Promise.all(Array.from({ length: Math.min(1000, options.tables - start) }, (_, k) => writeFile(join(folder, `Scale.t${start + k}.dqotable.yaml`), table)));
  }
}

/**
 * (a): the planned queries of every table, run by `connections` clients, each table in one read-only snapshot.
 * (a'), with `store`: the same, and every table's result rows (built before timing) stored as dqctl's store stores
 * them (`insertCheckResults`: the upsert by result key and the table status's refresh), 100 tables a transaction,
 * one transaction at a time beside the queries: what any run that keeps its results adds to (a), and nothing else
 * (no claims, no planning, no rules, no incidents).
 */
async function byHand(
  url: URL,
  tables: Array<{ queries: Array<{ text: string; values: readonly unknown[] }>; results?: CheckResultInput[] }>,
  connections: number,
  store?: Store,
): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      return client;
    }),
  );
  try {
    let next = 0;
    let batch: CheckResultInput[] = [];
    let batchTables = 0;
    let writes: Promise<unknown> = Promise.resolve();
    const flush = () => {
      const rows = batch;
      batch = [];
      batchTables = 0;
      writes = writes.then(() => store!.insertCheckResults(rows));
    };
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        while (next < tables.length) {
          const table = tables[next++]!;
          await client.query('begin isolation level repeatable read read only');
          await client.query(`select set_config('statement_timeout', '300000', true), set_config('TimeZone', 'UTC', true)`);
          for (const query of table.queries) await client.query({ text: query.text, values: [...query.values] } as pg.QueryConfig);
          await client.query('commit');
          if (store && table.results) {
            batch.push(...table.results);
            if (++batchTables === 100) flush();
          }
        }
      }),
    );
    if (store && batch.length > 0) flush();
    await writes;
    return performance.now() - started;
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

async function waitForJob(store: Store, id: number): Promise<{ ms: number; status: string; result: unknown }> {
  const started = performance.now();
  for (;;) {
    const job = await store.jobs.find(String(id));
    if (job && FINAL_STATUSES.has(job.status)) return { ms: performance.now() - started, status: job.status, result: job.result };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** (b): `replicas` job services in this process, the run put into the queue; ends when the run ends. */
async function inProcess(store: Store, options: Options, env: Record<string, string>): Promise<{ ms: number; status: string; result: unknown; rssMiB: number }> {
  const services = Array.from({ length: options.replicas }, (_, i) => {
    const dataSources = new DataSources({ env });
    // as `dqctl serve` reads the live objects (the store's revision checked at most once a second)
    const objects = new LiveObjects(store);
    const deps = { store, objects, dataSources };
    return { dataSources, jobs: new JobService(store, defaultExecutors(deps, { splitByTable: true }), { ...jobServiceOptionsOf(deps), worker: `bench-${i}`, pollMs: 100 }) };
  });
  resetPeak();
  const job = await store.jobs.enqueue({ jobType: RUN_CHECKS, parameters: { check_search_filters: { connection: 'bench' } }, createdBy: 'bench' });
  for (const s of services) s.jobs.start();
  const outcome = await waitForJob(store, job.id);
  for (const s of services) {
    await s.jobs.stop();
    await s.dataSources.close();
  }
  return { ...outcome, rssMiB: peakRssMiB(process.pid) };
}

/** (c): `replicas` whole `dqctl serve` processes on the store; the run put into the queue. */
async function wholeProcesses(store: Store, storeUrl: URL, options: Options, env: Record<string, string>): Promise<{ ms: number; status: string; result: unknown; rssMiB: number[] }> {
  const children: ChildProcess[] = [];
  try {
    await Promise.all(
      Array.from({ length: options.replicas }, (_, i) => {
        const child = spawn(process.execPath, [DQCTL, 'serve', '--database', storeUrl.toString(), '--port', String(19_300 + i), '--no-notifications', '--no-schedules'], {
          env: { ...process.env, ...env, DQCTL_DATABASE_URL: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        return new Promise<void>((resolvePromise, reject) => {
          let out = '';
          child.stdout!.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (/serving|listening/i.test(out)) resolvePromise();
          });
          child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.on('exit', (code) => reject(new Error(`dqctl serve exited (${code}): ${out.slice(0, 2000)}`)));
        });
      }),
    );
    const job = await store.jobs.enqueue({ jobType: RUN_CHECKS, parameters: { check_search_filters: { connection: 'bench' } }, createdBy: 'bench' });
    const outcome = await waitForJob(store, job.id);
    return { ...outcome, rssMiB: children.map((child) => peakRssMiB(child.pid!)) };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)))));
  }
}

function resetPeak(): void {
  try {
    // Linux: writing 5 to clear_refs resets VmHWM to the current RSS
    void writeFile(`/proc/${process.pid}/clear_refs`, '5');
  } catch {
    // not Linux
  }
}

function peakRssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const loadAtStart = loadavg()[0]!;
  const started = performance.now();
  const name = `dqctl_bench_scale_${randomBytes(4).toString('hex')}`;
  const sourceUrl = urlOf(name);
  const storeUrl = urlOf(`${name}_store`);
  const env = { DQCTL_BENCH_PASSWORD: decodeURIComponent(sourceUrl.password) };
  await admin(`create database ${name} template template0`);
  await admin(`create database ${name}_store template template0`);
  const repo = await mkdtemp(join(tmpdir(), 'dqctl-bench-scale-'));
  let store: Store | undefined;
  try {
    log(`creating ${options.tables.toLocaleString('en-US')} tables of ${options.rows} rows`);
    let t = performance.now();
    await createSource(sourceUrl, options);
    const sourceMs = performance.now() - t;
    log('applying the repository');
    await writeRepository(repo, sourceUrl, options);
    store = await openStore({ databaseUrl: storeUrl.toString() });
    t = performance.now();
    const { plan } = await planRepository({ repository: repo, store });
    await applyPlan(plan, store, { holder: 'bench', appliedBy: 'bench', lockTimeoutMs: 600_000 });
    const applyMs = performance.now() - t;

    // the queries the run will send: planned as the runner plans them (not timed)
    const objects = new LiveObjects(store, { revisionCheckMs: 0 });
    const { work } = await planCheckRun(objects, { connection: 'bench' });
    const now = new Date();
    const planned = work.map(({ checks }) => ({ queries: planSensorQueries(tableQueryRequestOf(checks, { now, grouping: true })).queries }));
    // (a')'s rows: each check's result as a run stores it (a value and a severity; the values do not change the cost)
    const executedAt = now.toISOString();
    const withResults = work.map(({ checks }, i) => ({
      queries: planned[i]!.queries,
      results: checks.map((check): CheckResultInput => {
        const period = periodOf(check.checkType, check.timeScale, now);
        return { ...resultBase(check, period.timeGradient, 1, executedAt), timePeriod: period.timePeriod, dataGroup: 'all data', actualValue: 0, expectedValue: null, severity: 0 };
      }),
    }));
    const checks = work.reduce((n, w) => n + w.checks.length, 0);
    const connections = options.replicas * options.limit;

    // warm-up: the source's catalog and pages in memory
    log('warm-up: the queries by hand once');
    await byHand(sourceUrl, planned, connections);
    const rounds: Array<{ hand: number; stored: number; inProcess: number; whole: number }> = [];
    const rss: { inProcess: number[]; whole: number[] } = { inProcess: [], whole: [] };
    for (let round = 0; round < 2; round++) {
      log(`round ${round + 1}: by hand`);
      const hand = await byHand(sourceUrl, planned, connections);
      log(`round ${round + 1}: by hand, the results stored`);
      const stored = await byHand(sourceUrl, withResults, connections, store);
      log(`round ${round + 1}: in process`);
      const b = await inProcess(store, options, env);
      if (b.status !== 'finished') throw new Error(`the in-process run ended ${b.status}: ${JSON.stringify(b.result)}`);
      log(`round ${round + 1}: whole processes`);
      const c = await wholeProcesses(store, storeUrl, options, env);
      if (c.status !== 'finished') throw new Error(`the serve run ended ${c.status}: ${JSON.stringify(c.result)}`);
      if ((c.result as { executed_checks?: number }).executed_checks !== checks) throw new Error(`the run executed ${JSON.stringify(c.result)}, expected ${checks} checks`);
      rounds.push({ hand, stored, inProcess: b.ms, whole: c.ms });
      rss.inProcess.push(b.rssMiB);
      rss.whole.push(...c.rssMiB);
    }
    const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
    const hand = med(rounds.map((r) => r.hand));
    const b = med(rounds.map((r) => r.inProcess));
    const c = med(rounds.map((r) => r.whole));
    const bRatio = med(rounds.map((r) => r.inProcess / r.hand));
    const cRatio = med(rounds.map((r) => r.whole / r.hand));
    const stored = med(rounds.map((r) => r.stored));
    const storedRatio = med(rounds.map((r) => r.stored / r.hand));
    const bOverStored = med(rounds.map((r) => r.inProcess / r.stored));
    const cOverStored = med(rounds.map((r) => r.whole / r.stored));
    const verdict = (x: number): string => `**${x <= LIMIT ? 'PASS' : 'FAIL'}**`;
    const text = [
      SECTION_START,
      '## Checks at scale: one run over many tables, several replicas',
      '',
      `Written by \`npm run bench:checks-scale\` (bench/checksScale.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; the whole run took ${Math.round((performance.now() - started) / 1000)} s.`,
      '',
      `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}. ` +
        `**Shared and loaded**: other sessions ran on the same cores (load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end); PostgreSQL (source and store) on the same machine.`,
      '',
      `Source: ${options.tables.toLocaleString('en-US')} tables \`"Scale"."t<i>"\` of ${options.rows} rows (created in ${ms(sourceMs)}), one connection with \`parallel_jobs_limit: ${options.limit}\`; ` +
        `${checks.toLocaleString('en-US')} daily checks (4 per table: row count, negative values, nulls, text length), applied to a new PostgreSQL store in ${ms(applyMs)}. ` +
        `${options.replicas} replicas, so ${connections} sessions on the source at most.`,
      '',
      `| target | measured (${rounds.length === 2 ? 'the lower of the two rounds\' ratios' : 'median of the per-round ratios'}) | medians | limit | result |`,
      '|---|---:|---:|---:|---|',
      `| in process: ${options.replicas} job services / the same queries by hand | ${bRatio.toFixed(2)}x | ${ms(b)} / ${ms(hand)} | ≤ ${LIMIT}x | ${verdict(bRatio)} |`,
      `| whole processes: ${options.replicas} × \`dqctl serve\` / the same queries by hand | ${cRatio.toFixed(2)}x | ${ms(c)} / ${ms(hand)} | ≤ ${LIMIT}x | ${verdict(cRatio)} |`,
      `| for context: (a') the same queries by hand with the results stored / (a) | ${storedRatio.toFixed(2)}x | ${ms(stored)} / ${ms(hand)} | | |`,
      `| for context: (b) / (a') | ${bOverStored.toFixed(2)}x | | | |`,
      `| for context: (c) / (a') | ${cOverStored.toFixed(2)}x | | | |`,
      '',
      "| round | (a) by hand | (a') by hand, results stored | (b) in process | (c) whole processes |",
      '|---:|---:|---:|---:|---:|',
      ...rounds.map((r, i) => `| ${i + 1} | ${ms(r.hand)} | ${ms(r.stored)} | ${ms(r.inProcess)} | ${ms(r.whole)} |`),
      '',
      `Peak RSS: the bench process during (b) ${rss.inProcess.map((x) => `${x.toFixed(0)} MiB`).join(', ')} (it also holds the planned queries of (a)); each \`dqctl serve\` during (c) ${rss.whole.map((x) => `${x.toFixed(0)} MiB`).join(', ')}.`,
      '',
      '- (a): dqctl\'s planned queries of each table (planned before timing), sent by replicas × limit `pg` clients, each table\'s',
      '  queries in one `REPEATABLE READ READ ONLY` transaction with the settings the runner sets; nothing judged or stored.',
      "- (a'): (a), and each table's 4 result rows stored as dqctl's store stores a run's results (the upsert by result key and",
      '  the table status\'s refresh: `insertCheckResults`), 100 tables a transaction, one at a time beside the queries: what',
      '  any run that keeps its results adds to (a); no claims, planning, rules or incidents.',
      '- (b), (c): the run put into the store\'s queue (`run_checks` of the connection), timed until it ends: it is split into',
      '  child jobs of up to 25 tables, which the replicas claim from the queue, each running at most `parallel_jobs_limit` of',
      '  them at once, one table after the other; per table: planning, the queries, the rules, the results and incidents',
      '  handed to the server\'s writer (batched transactions) while the next table runs; per job: the claim, the tables read',
      '  in one batch, the end. (c) starts the servers before the timer; a server finds the run on its next poll (500 ms).',
      SECTION_END,
    ].join('\n');
    process.stdout.write(`${text}\n`);
    if (options.write) await writeBenchmarkSection(text, SECTION_START, SECTION_END);
  } finally {
    await store?.close();
    await rm(repo, { recursive: true, force: true });
    await admin(`drop database if exists ${name} with (force)`);
    await admin(`drop database if exists ${name}_store with (force)`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:checks-scale failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
