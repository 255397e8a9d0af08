/**
 * `npm run bench:incidents`: what incidents cost a check run, and how fast their messages arrive.
 *
 * (1) Grouping overhead. A real `run checks` (the run_checks executor, as the CLI runs it) on a PostgreSQL data
 *     source whose table has 400 data groups and 25 failing checks: 10,000 failed results per run, written to a
 *     PostgreSQL store. The same run is timed with incident grouping disabled (the baseline) and enabled in two
 *     ways: DQOps's default grouping (table, dimension, category: one incident) and the finest (by check name and
 *     data group: 400 incidents, each with an outbox message). Runs alternate; incidents and results are
 *     emptied before each run, so every enabled run opens its incidents. Target: grouping adds < 10 %.
 * (2) Delivery latency. A real `dqctl serve` (another process, on the same store) runs the deliverer; this
 *     process runs checks that open incidents, and a local HTTP receiver records when each message arrives.
 *     Latency = arrival - end of the run (the run's transaction committed). Target: p95 < 1 s.
 * (1b) The same three variants as whole `dqctl run checks` processes (what a user waits for).
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
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { DataSources } from '../src/datasource/index.js';
import { runChecks } from '../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../src/model/index.js';
import { openStore } from '../src/store/openStore.js';
import type { Store } from '../src/store/store.js';
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

async function emptyRunTables(store: Store, storeUrl: string): Promise<void> {
  void store;
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    await client.query('truncate dqctl.check_results, dqctl.incidents, dqctl.notification_outbox restart identity');
  } finally {
    await client.end();
  }
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
async function runChecksProcess(storeUrl: string, password: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'run', 'checks', '--connection', 'bench', '--fail-at', 'fatal', '--database', storeUrl], {
    env: { ...process.env, DQCTL_DATABASE_URL: '', DQCTL_BENCH_PASSWORD: password },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`dqctl run checks exited ${code}: ${err}`);
  return performance.now() - started;
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
  const dataSources = new DataSources({ env: { DQCTL_BENCH_PASSWORD: decodeURIComponent(sourceUrl.password) } });
  let store: Store | undefined;
  let serve: ChildProcess | undefined;
  let receiver: Receiver | undefined;
  try {
    await createSourceTable(sourceUrl.toString());
    store = await openStore({ databaseUrl: storeUrl });
    const objects = new LiveObjects(store, { revisionCheckMs: 0 });
    receiver = await startReceiver();
    const variants: Record<string, JsonObject> = {
      disabled: { disabled: true },
      default: { grouping_level: 'table_dimension_category', incident_notification: { incident_opened_addresses: receiver.url } },
      worst: { grouping_level: 'table_dimension_category_name', divide_by_data_groups: true, incident_notification: { incident_opened_addresses: receiver.url } },
    };
    await objects.create('source', 'bench', connectionSpec(sourceUrl, variants.disabled), { caller: 'bench' });
    await objects.create('table', 'bench/bench.events', tableSpec(), { caller: 'bench' });
    const now = new Date();
    // the same store, with the time spent grouping (the work after the results' insert, in their transaction) measured
    let groupingMs = 0;
    const timedStore = new Proxy(store, {
      get(target, property) {
        if (property === 'recordCheckResults') {
          return (rows: Parameters<Store['recordCheckResults']>[0], afterInsert: Parameters<Store['recordCheckResults']>[1]) =>
            target.recordCheckResults(rows, async (tx) => {
              const started = performance.now();
              await afterInsert(tx);
              groupingMs += performance.now() - started;
            });
        }
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runOnce = async (variant: string): Promise<{ ms: number; groupingMs: number; failed: number; incidents: number; messages: number }> => {
      await objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, variants[variant]!) }));
      await emptyRunTables(store!, storeUrl);
      groupingMs = 0;
      const started = performance.now();
      const { result } = await runChecks({ store: timedStore, objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal, { now });
      const ms = performance.now() - started;
      const incidents = (await store!.incidents.list({ connection: 'bench', limit: 100_000 })).length;
      const messages = (await store!.outbox.list({ limit: 100_000 })).length;
      return { ms, groupingMs, failed: result.errors + result.warnings + result.fatals, incidents, messages };
    };

    // (1) overhead: warm up, then alternate the variants
    process.stderr.write('bench:incidents: warming up…\n');
    for (const variant of Object.keys(variants)) await runOnce(variant);
    const times: Record<string, number[]> = { disabled: [], default: [], worst: [] };
    const grouping: Record<string, number[]> = { disabled: [], default: [], worst: [] };
    const shape: Record<string, { failed: number; incidents: number; messages: number }> = {};
    for (let round = 0; round < options.rounds; round++) {
      process.stderr.write(`bench:incidents: round ${round + 1} of ${options.rounds}\n`);
      for (const variant of Object.keys(variants)) {
        const run = await runOnce(variant);
        times[variant]!.push(run.ms);
        grouping[variant]!.push(run.groupingMs);
        shape[variant] = { failed: run.failed, incidents: run.incidents, messages: run.messages };
      }
    }
    for (const [variant, s] of Object.entries(shape)) {
      if (s.failed !== GROUPS * COLUMNS) throw new Error(`${variant}: expected ${GROUPS * COLUMNS} failed results, got ${s.failed}`);
    }
    if (shape.worst!.incidents !== GROUPS || shape.default!.incidents < 1 || shape.disabled!.incidents !== 0) {
      throw new Error(`unexpected incidents: ${JSON.stringify(shape)}`);
    }
    const base = median(times.disabled!);
    const overhead = (variant: string) => median(times[variant]!) / base - 1;
    // the direct measure: the grouping's own time against the rest of the same run (immune to run-to-run noise)
    const share = (variant: string) => median(times[variant]!.map((t, i) => grouping[variant]![i]! / (t - grouping[variant]![i]!)));

    // (1b) the same, as a user waits for it: a whole `dqctl run checks` process per run (start, store, run, exit)
    process.stderr.write('bench:incidents: whole-process runs of dqctl run checks…\n');
    const processTimes: Record<string, number[]> = { disabled: [], default: [], worst: [] };
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of Object.keys(variants)) {
        await objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, variants[variant]!) }));
        await emptyRunTables(store, storeUrl);
        processTimes[variant]!.push(await runChecksProcess(storeUrl, decodeURIComponent(sourceUrl.password)));
      }
    }
    const processOverhead = (variant: string) => median(processTimes[variant]!) / median(processTimes.disabled!) - 1;

    // (2) latency: a real serve delivers; each run opens one incident (default grouping) whose message is timed
    process.stderr.write('bench:incidents: delivery latency through a running dqctl serve…\n');
    await objects.update('source', 'bench', { caller: 'bench' }, () => ({ spec: connectionSpec(sourceUrl, variants.default!) }));
    serve = await startServe(storeUrl);
    const latencies: number[] = [];
    for (let i = 0; i < options.latencyRuns; i++) {
      await emptyRunTables(store, storeUrl);
      const before = receiver.arrivals.length;
      await runChecks({ store, objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal, { now });
      const ended = performance.timeOrigin + performance.now();
      const deadline = Date.now() + 10_000;
      while (receiver.arrivals.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (receiver.arrivals.length === before) throw new Error(`run ${i + 1}: no message within 10 s`);
      latencies.push(receiver.arrivals[before]! - ended);
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 300)); // runs do not line up with the poll
    }
    const p95 = percentile(latencies, 95);

    const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    const pass = (ok: boolean) => (ok ? 'pass' : 'FAIL');
    const load = loadavg()[0]!.toFixed(2);
    const lines = [
      SECTION_START,
      '## Incidents and notifications (`npm run bench:incidents`)',
      '',
      `A real \`run checks\` (the run_checks executor) of 25 nulls checks on a PostgreSQL table with ${GROUPS} data groups: ${(GROUPS * COLUMNS).toLocaleString('en-US')} failed results per run, ` +
        `results and incidents written to a PostgreSQL store in one transaction per table. Median of ${options.rounds} alternating runs each, incidents emptied before every run (so every run opens them).`,
      '',
      '| incident grouping | incidents opened | outbox messages | run checks (median) | vs. disabled | grouping inside the run (median) | grouping / rest of the run | target < 10 % |',
      '|---|---|---|---|---|---|---|---|',
      `| disabled (baseline) | 0 | 0 | ${fmt(base)} | — | ${Math.round(median(grouping.disabled!))} ms | ${pct(share('disabled'))} | — |`,
      `| DQOps default (table, dimension, category) | ${shape.default!.incidents} | ${shape.default!.messages} | ${fmt(median(times.default!))} | ${pct(overhead('default'))} | ${Math.round(median(grouping.default!))} ms | ${pct(share('default'))} | ${pass(share('default') < OVERHEAD_LIMIT)} |`,
      `| finest (check name and data group: one incident per data group here, the 25 checks share a name) | ${shape.worst!.incidents.toLocaleString('en-US')} | ${shape.worst!.messages.toLocaleString('en-US')} | ${fmt(median(times.worst!))} | ${pct(overhead('worst'))} | ${Math.round(median(grouping.worst!))} ms | ${pct(share('worst'))} | ${pass(share('worst') < OVERHEAD_LIMIT)} |`,
      '',
      'The pass/fail column uses the grouping\'s own time against the rest of the same run ("vs. disabled" compares medians of separate runs, which on this shared machine vary by more than the grouping costs).',
      '',
      `Whole process, as a user waits for it: \`dqctl run checks --connection bench\` started as its own process (open the store, run, write, exit), ${options.rounds} alternating runs each, median wall time:`,
      '',
      '| incident grouping | dqctl run checks (median) | vs. disabled | target < 10 % |',
      '|---|---|---|---|',
      `| disabled (baseline) | ${fmt(median(processTimes.disabled!))} | — | — |`,
      `| DQOps default | ${fmt(median(processTimes.default!))} | ${pct(processOverhead('default'))} | ${pass(processOverhead('default') < OVERHEAD_LIMIT)} |`,
      `| finest (400 incidents, 400 messages) | ${fmt(median(processTimes.worst!))} | ${pct(processOverhead('worst'))} | ${pass(processOverhead('worst') < OVERHEAD_LIMIT)} |`,
      '',
      `Delivery: a \`dqctl serve\` process on the same store delivers (polling the outbox every 250 ms; this process runs the checks, so no nudge reaches it); a local HTTP receiver. ` +
        `From the end of a run (its transaction committed) to the receiver getting the message, ${options.latencyRuns} runs: ` +
        `median ${Math.round(median(latencies))} ms, p95 ${Math.round(p95)} ms, max ${Math.round(Math.max(...latencies))} ms — target p95 < 1 s: ${pass(p95 < P95_LIMIT_MS)}.`,
      '',
      `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${load} at the end (the machine is shared). The first table and the latency are measured in this process (the run_checks executor, as the CLI and the server call it); the second table times whole processes.`,
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
    serve?.kill('SIGTERM');
    if (serve) await new Promise((r) => serve!.once('exit', r));
    receiver?.server.closeAllConnections();
    receiver?.server.close();
    await store?.close();
    await dataSources.close();
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
