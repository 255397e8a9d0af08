/**
 * `npm run bench:incidents`: what incidents cost a check run, and how fast their messages arrive.
 *
 * (1) Grouping overhead. A real `run checks` (the run_checks executor, as the CLI runs it) on a PostgreSQL data
 *     source whose table has 400 data groups and 25 failing checks: 10,000 failed results per run, written to a
 *     PostgreSQL store and to the embedded (PGlite) one. The same run is timed with incident grouping disabled
 *     (the baseline) and enabled in two ways: DQOps's default grouping (table, dimension, category: one
 *     incident) and the finest (by check name and data group: 400 incidents, each with an outbox message). Runs
 *     alternate; incidents and results are emptied before each run, so every enabled run opens its incidents.
 *     Target: grouping adds < 10 %.
 * (1b) The same three variants as whole `dqctl run checks` processes on each store (what a user waits for).
 * (2) Delivery latency. A real `dqctl serve` (another process, on the PostgreSQL store) runs the deliverer; this
 *     process runs checks that open incidents, and a local HTTP receiver records when each message arrives.
 *     Latency = arrival - end of the run (the run's transaction committed). Target: p95 < 1 s.
 * Figures are wall times on this machine; written to BENCHMARKS.md in its own section.
 *
 *   npm run bench:incidents                  # writes BENCHMARKS.md
 *   npm run bench:incidents -- --rounds 2    # smoke run; prints only (add --write to write)
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { DataSources } from '../src/datasource/index.js';
import { runChecks } from '../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../src/model/index.js';
import { migrate } from '../src/store/migrate.js';
import { openSqlClient } from '../src/store/sql/openSqlClient.js';
import { createSqlStore } from '../src/store/sqlStore.js';
import type { OpenStoreOptions, Store } from '../src/store/store.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/incidents.ts: incidents and notifications (start) -->';
const SECTION_END = '<!-- bench/incidents.ts: incidents and notifications (end) -->';
const GROUPS = 400;
const COLUMNS = 25;
const ROWS_PER_GROUP = 50;
const OVERHEAD_LIMIT = 0.1;
const P95_LIMIT_MS = 1000;
const BIN = resolve(import.meta.dirname, '..', 'bin', 'dqctl.js');

interface Options {
  rounds: number;
  latencyRuns: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { rounds: 5, latencyRuns: 20, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => argv[++i] ?? '';
    if (arg === '--rounds') options.rounds = Number(next());
    else if (arg === '--latency-runs') options.latencyRuns = Number(next());
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if ((options.rounds !== 5 || options.latencyRuns !== 20) && !argv.includes('--write')) options.write = false;
  return options;
}

function serverUrl(): string {
  return process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

function databaseUrl(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** 400 groups × 50 rows; every column c1…c25 has nulls in every group, so every nulls check fails in every group. */
async function createSourceTable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = Array.from({ length: COLUMNS }, (_, i) => `c${i + 1}`);
    await client.query('create schema bench');
    await client.query(`create table bench.events (grp text not null, ${columns.map((c) => `${c} int`).join(', ')})`);
    await client.query(
      `insert into bench.events select 'group ' || lpad((g % ${GROUPS})::text, 3, '0'), ${columns.map((_, i) => `case when (g / ${GROUPS}) % 10 = ${i % 10} then null else g end`).join(', ')}
       from generate_series(1, ${GROUPS * ROWS_PER_GROUP}) as g`,
    );
    await client.query('vacuum analyze bench.events');
  } finally {
    await client.end();
  }
}

function tableSpec(): JsonObject {
  const columns: JsonObject = {};
  for (let i = 1; i <= COLUMNS; i++) columns[`c${i}`] = { monitoring_checks: { daily: { nulls: { daily_nulls_count: { error: { max_count: 0 } } } } } };
  return { groupings: { default: { level_1: { source: 'column_value', column: 'grp' } } }, columns };
}

function connectionSpec(source: URL, incidentGrouping: JsonObject): JsonObject {
  return {
    provider_type: 'postgresql',
    postgresql: { host: source.hostname, port: source.port || '5432', database: source.pathname.slice(1), user: decodeURIComponent(source.username || 'postgres'), password: '${DQCTL_BENCH_PASSWORD}' },
    parallel_jobs_limit: 2,
    incident_grouping: incidentGrouping,
  };
}

interface Receiver {
  url: string;
  arrivals: number[];
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals: number[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      arrivals.push(performance.timeOrigin + performance.now());
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals, server };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const median = (values: number[]): number => percentile(values, 50);

/** A store of the bench, opened on its own SQL client so the bench can empty the run's tables between runs. */
interface BenchStore {
  store: Store;
  objects: LiveObjects;
  emptyRunTables(): Promise<void>;
  close(): Promise<void>;
}

async function openBenchStore(options: OpenStoreOptions): Promise<BenchStore> {
  const client = await openSqlClient(options);
  await migrate(client);
  const store = createSqlStore(client);
  return {
    store,
    objects: new LiveObjects(store, { revisionCheckMs: 0 }),
    emptyRunTables: () => client.exec('truncate dqctl.check_results, dqctl.incidents, dqctl.notification_outbox restart identity'),
    close: () => store.close(),
  };
}

async function startServe(storeUrl: string): Promise<ChildProcess> {
  const port = await new Promise<number>((done) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });
  const child = spawn(process.execPath, [BIN, 'serve', '--no-schedules', '--log-level', 'warn', '--port', String(port), '--database', storeUrl], {
    env: { ...process.env, DQCTL_DATABASE_URL: '' },
  });
  let err = '';
  await new Promise<void>((done, fail) => {
    child.stderr!.on('data', (c) => {
      err += c;
      if (err.includes('is serving')) done();
    });
    child.on('exit', () => fail(new Error(`serve exited: ${err}`)));
  });
  return child;
}

/** One `dqctl run checks` of the bench connection as a separate process: its wall time, start to exit. */
async function runChecksProcess(storeArgs: readonly string[], password: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'run', 'checks', '--connection', 'bench', '--fail-at', 'fatal', ...storeArgs], {
    env: { ...process.env, DQCTL_DATABASE_URL: '', DQCTL_STATE_DIR: '', DQCTL_BENCH_PASSWORD: password },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`dqctl run checks exited ${code}: ${err}`);
  return performance.now() - started;
}

const VARIANTS = ['disabled', 'default', 'worst'] as const;
type Variant = (typeof VARIANTS)[number];

function incidentGroupings(receiverUrl: string): Record<Variant, JsonObject> {
  return {
    disabled: { disabled: true },
    default: { grouping_level: 'table_dimension_category', incident_notification: { incident_opened_addresses: receiverUrl } },
    worst: { grouping_level: 'table_dimension_category_name', divide_by_data_groups: true, incident_notification: { incident_opened_addresses: receiverUrl } },
  };
}

interface InProcessFigures {
  times: Record<Variant, number[]>;
  /** The results' transaction (store.recordCheckResults): the only part of a run the grouping changes. */
  transaction: Record<Variant, number[]>;
  shape: Record<Variant, { failed: number; incidents: number; messages: number }>;
}

/**
 * (1) The run_checks executor in this process on one store: warm up, then the variants in turn, incidents emptied
 * before each run. Besides the whole run, the results' transaction is timed: the grouping works only inside it
 * (reading before the results' insert, deciding while the database writes them, writing after), so its cost is
 * the difference between a variant's transaction and the disabled one's, which varies far less between runs than
 * the data source's queries do.
 */
async function measureInProcess(bench: BenchStore, sourceUrl: URL, groupings: Record<Variant, JsonObject>, dataSources: DataSources, rounds: number, label: string): Promise<InProcessFigures> {
  const now = new Date();
  let transactionMs = 0;
  const timedStore = new Proxy(bench.store, {
    get(target, property) {
      if (property === 'recordCheckResults') {
        return async (rows: Parameters<Store['recordCheckResults']>[0], work: Parameters<Store['recordCheckResults']>[1]) => {
          const started = performance.now();
          try {
            return await target.recordCheckResults(rows, work);
          } finally {
            transactionMs += performance.now() - started;
          }
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const runOnce = async (variant: Variant) => {
    await bench.objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, groupings[variant]) }));
    await bench.emptyRunTables();
    transactionMs = 0;
    const started = performance.now();
    const { result } = await runChecks({ store: timedStore, objects: bench.objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal, { now });
    const ms = performance.now() - started;
    const incidents = (await bench.store.incidents.list({ connection: 'bench', limit: 100_000 })).length;
    const messages = (await bench.store.outbox.list({ limit: 100_000 })).length;
    return { ms, transactionMs, failed: result.errors + result.warnings + result.fatals, incidents, messages };
  };
  process.stderr.write(`bench:incidents: ${label}: warming up…\n`);
  for (const variant of VARIANTS) await runOnce(variant);
  const figures: InProcessFigures = {
    times: { disabled: [], default: [], worst: [] },
    transaction: { disabled: [], default: [], worst: [] },
    shape: {} as InProcessFigures['shape'],
  };
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`bench:incidents: ${label}: round ${round + 1} of ${rounds}\n`);
    for (const variant of VARIANTS) {
      const run = await runOnce(variant);
      figures.times[variant].push(run.ms);
      figures.transaction[variant].push(run.transactionMs);
      figures.shape[variant] = { failed: run.failed, incidents: run.incidents, messages: run.messages };
    }
  }
  for (const [variant, s] of Object.entries(figures.shape)) {
    if (s.failed !== GROUPS * COLUMNS) throw new Error(`${label} ${variant}: expected ${GROUPS * COLUMNS} failed results, got ${s.failed}`);
  }
  if (figures.shape.worst.incidents !== GROUPS || figures.shape.default.incidents < 1 || figures.shape.disabled.incidents !== 0) {
    throw new Error(`${label}: unexpected incidents: ${JSON.stringify(figures.shape)}`);
  }
  return figures;
}

/**
 * (1b) The same variants as a user waits for them: a whole `dqctl run checks` process per run. The store is set
 * up (the variant's grouping, the run's tables emptied) in this process between runs, and closed while the CLI
 * runs (the embedded store takes one process at a time).
 */
async function measureWholeProcess(
  openBench: () => Promise<BenchStore>,
  storeArgs: readonly string[],
  sourceUrl: URL,
  groupings: Record<Variant, JsonObject>,
  rounds: number,
  label: string,
): Promise<Record<Variant, number[]>> {
  process.stderr.write(`bench:incidents: ${label}: whole dqctl run checks processes…\n`);
  const times: Record<Variant, number[]> = { disabled: [], default: [], worst: [] };
  for (let round = 0; round < rounds; round++) {
    for (const variant of VARIANTS) {
      const bench = await openBench();
      try {
        await bench.objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, groupings[variant]) }));
        await bench.emptyRunTables();
      } finally {
        await bench.close();
      }
      times[variant].push(await runChecksProcess(storeArgs, decodeURIComponent(sourceUrl.password)));
    }
  }
  return times;
}

/** (2) A real serve delivers; each run opens one incident (default grouping) whose message is timed. */
async function measureLatency(bench: BenchStore, storeUrl: string, sourceUrl: URL, groupings: Record<Variant, JsonObject>, dataSources: DataSources, receiver: Receiver, runs: number): Promise<number[]> {
  process.stderr.write('bench:incidents: delivery latency through a running dqctl serve…\n');
  await bench.objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, groupings.default) }));
  const serve = await startServe(storeUrl);
  try {
    const latencies: number[] = [];
    for (let i = 0; i < runs; i++) {
      await bench.emptyRunTables();
      const before = receiver.arrivals.length;
      await runChecks({ store: bench.store, objects: bench.objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal, { now: new Date() });
      const ended = performance.timeOrigin + performance.now();
      const deadline = Date.now() + 10_000;
      while (receiver.arrivals.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (receiver.arrivals.length === before) throw new Error(`run ${i + 1}: no message within 10 s`);
      latencies.push(receiver.arrivals[before]! - ended);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 300)); // runs do not line up with the poll
    }
    return latencies;
  } finally {
    serve.kill('SIGTERM');
    await new Promise((r) => serve.once('exit', r));
  }
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const pass = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const VARIANT_LABELS: Record<Variant, string> = {
  disabled: 'disabled (baseline)',
  default: 'DQOps default (table, dimension, category)',
  worst: 'finest (check name and data group: one incident per data group here, the 25 checks share a name)',
};

function inProcessRows(engine: string, f: InProcessFigures): string[] {
  const base = median(f.times.disabled);
  const baseTransaction = median(f.transaction.disabled);
  const cost = (v: Variant) => (median(f.transaction[v]) - baseTransaction) / base;
  return VARIANTS.map((v) =>
    v === 'disabled'
      ? `| ${engine} | ${VARIANT_LABELS[v]} | 0 | 0 | ${fmt(base)} | — | ${Math.round(baseTransaction)} ms | — | — |`
      : `| ${engine} | ${VARIANT_LABELS[v]} | ${f.shape[v].incidents.toLocaleString('en-US')} | ${f.shape[v].messages.toLocaleString('en-US')} | ${fmt(median(f.times[v]))} | ${pct(median(f.times[v]) / base - 1)} | ${Math.round(median(f.transaction[v]))} ms | ${Math.round(median(f.transaction[v]) - baseTransaction)} ms = ${pct(cost(v))} | ${pass(cost(v) < OVERHEAD_LIMIT)} |`,
  );
}

function wholeProcessRows(engine: string, times: Record<Variant, number[]>): string[] {
  const base = median(times.disabled);
  return VARIANTS.map((v) =>
    v === 'disabled'
      ? `| ${engine} | ${VARIANT_LABELS[v]} | ${fmt(base)} | — | — |`
      : `| ${engine} | ${VARIANT_LABELS[v]} | ${fmt(median(times[v]))} | ${pct(median(times[v]) / base - 1)} | ${pass(median(times[v]) / base - 1 < OVERHEAD_LIMIT)} |`,
  );
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const suffix = randomBytes(4).toString('hex');
  const sourceName = `dqctl_bench_incidents_source_${suffix}`;
  const storeName = `dqctl_bench_incidents_store_${suffix}`;
  await admin(async (client) => {
    await client.query(`create database "${sourceName}"`);
    await client.query(`create database "${storeName}"`);
  });
  const sourceUrl = new URL(databaseUrl(sourceName));
  const storeUrl = databaseUrl(storeName);
  const stateDir = await mkdtemp(join(tmpdir(), 'dqctl-bench-incidents-'));
  const dataSources = new DataSources({ env: { DQCTL_BENCH_PASSWORD: decodeURIComponent(sourceUrl.password) } });
  let receiver: Receiver | undefined;
  const open: BenchStore[] = [];
  try {
    await createSourceTable(sourceUrl.toString());
    receiver = await startReceiver();
    const groupings = incidentGroupings(receiver.url);
    const engines = [
      { label: 'PostgreSQL', options: { databaseUrl: storeUrl }, args: ['--database', storeUrl] },
      { label: 'embedded (PGlite)', options: { stateDir }, args: ['--state-dir', stateDir] },
    ];
    const inProcess: Array<[string, InProcessFigures]> = [];
    const wholeProcess: Array<[string, Record<Variant, number[]>]> = [];
    let latencies: number[] = [];
    for (const engine of engines) {
      const bench = await openBenchStore(engine.options);
      open.push(bench);
      await bench.objects.create('source', 'bench', connectionSpec(sourceUrl, groupings.disabled), { caller: 'bench' });
      await bench.objects.create('table', 'bench/bench.events', tableSpec(), { caller: 'bench' });
      inProcess.push([engine.label, await measureInProcess(bench, sourceUrl, groupings, dataSources, options.rounds, engine.label)]);
      if (engine.options.databaseUrl) latencies = await measureLatency(bench, storeUrl, sourceUrl, groupings, dataSources, receiver, options.latencyRuns);
      await bench.close();
      open.pop();
      wholeProcess.push([engine.label, await measureWholeProcess(() => openBenchStore(engine.options), engine.args, sourceUrl, groupings, options.rounds, engine.label)]);
    }
    const p95 = percentile(latencies, 95);
    const lines = [
      SECTION_START,
      '## Incidents and notifications (`npm run bench:incidents`)',
      '',
      `A real \`run checks\` of 25 nulls checks on a PostgreSQL table with ${GROUPS} data groups: ${(GROUPS * COLUMNS).toLocaleString('en-US')} failed results per run, ` +
        `results and incidents written in one transaction per table, to a PostgreSQL store and to the embedded one. Runs of the three groupings alternate; incidents are emptied before every run (so every run opens them).`,
      '',
      `In this process (the run_checks executor, as the CLI and the server call it), median of ${options.rounds} runs each:`,
      '',
      '| store | incident grouping | incidents opened | outbox messages | run checks (median) | vs. disabled | results\' transaction (median) | grouping: its transaction − the disabled one, of the disabled run | target < 10 % |',
      '|---|---|---|---|---|---|---|---|---|',
      ...inProcess.flatMap(([engine, f]) => inProcessRows(engine, f)),
      '',
      'The grouping works only inside the results\' transaction (it reads before their insert, decides what the incidents become while the database writes them, and writes after), so the pass/fail column takes its cost as the difference between that transaction\'s median and the disabled one\'s, against the disabled run; "vs. disabled" compares whole runs, whose data-source queries vary by more than the grouping costs. The embedded store runs PostgreSQL as WebAssembly on the thread of the run, so its inserts of the incidents and messages overlap with nothing (README, "What grouping costs a check run").',
      '',
      `Whole processes, as a user waits for them: \`dqctl run checks --connection bench\` started as its own process (open the store, run, write, exit), ${options.rounds} runs each, median wall time:`,
      '',
      '| store | incident grouping | dqctl run checks (median) | vs. disabled | target < 10 % |',
      '|---|---|---|---|---|',
      ...wholeProcess.flatMap(([engine, times]) => wholeProcessRows(engine, times)),
      '',
      `Delivery: a \`dqctl serve\` process on the PostgreSQL store delivers (polling the outbox every 250 ms; this process runs the checks, so no nudge reaches it); a local HTTP receiver. ` +
        `From the end of a run (its transaction committed) to the receiver getting the message, ${options.latencyRuns} runs: ` +
        `median ${Math.round(median(latencies))} ms, p95 ${Math.round(p95)} ms, max ${Math.round(Math.max(...latencies))} ms — target p95 < 1 s: ${pass(p95 < P95_LIMIT_MS)}.`,
      '',
      `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).`,
      SECTION_END,
    ];
    const text = lines.join('\n');
    process.stdout.write(`${text}\n`);
    if (options.write) {
      await writeBenchmarkSection(text, SECTION_START, SECTION_END);
      process.stderr.write('bench:incidents: wrote BENCHMARKS.md\n');
    } else {
      process.stderr.write('bench:incidents: BENCHMARKS.md left alone (smoke run; pass --write to write it)\n');
    }
  } finally {
    for (const bench of open) await bench.close();
    receiver?.server.closeAllConnections();
    receiver?.server.close();
    await dataSources.close();
    await rm(stateDir, { recursive: true, force: true });
    await admin(async (client) => {
      await client.query(`drop database if exists "${sourceName}" with (force)`);
      await client.query(`drop database if exists "${storeName}" with (force)`);
    });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:incidents failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
