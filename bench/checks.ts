/**
 * `npm run bench:checks`: `dqctl run checks` of 30 configured checks on a 1,000,000-row, 10-column table (the
 * run_checks executor end to end: the table and its checks read from a live store on PostgreSQL, the merged
 * query on the data source, the rules, the 30 results written back), and its merged sensor query alone, in a
 * fresh PostgreSQL database, against
 *   (a) one hand-written SQL query computing the same aggregates (the lower bound of any check run), and
 *   (b) one query per sensor (how a tool without query merging runs checks).
 * Targets: run checks ≤ 1.3 × (a); (b) ≥ 5 × run checks. Written to BENCHMARKS.md, in its own section.
 *
 *   npm run bench:checks                              # full size, writes BENCHMARKS.md
 *   npm run bench:checks -- --rows 100000 --rounds 3  # smoke run; prints only (add --write to write)
 *   options: --rows N --rounds N --per-sensor-rounds N --write/--no-write
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 *
 * Correctness first: the merged query's 30 values must equal the hand-written query's, and each per-sensor
 * query's value the merged one's; otherwise the run fails (exit 1) and BENCHMARKS.md is left alone.
 * The workload (table, checks, hand-written query) lives in checksWorkload.ts for the `run checks` benchmark.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { DataSources } from '../src/datasource/index.js';
import { runChecks as runChecksOf, type RunChecksResult } from '../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../src/model/index.js';
import { openStore } from '../src/store/openStore.js';
import { planSensorQueries, type SensorQuery, type SensorReadouts } from '../src/datasource/sensors/index.js';
import { BENCH_CHECKS, BENCH_NOW, BENCH_SCHEMA, BENCH_TABLE, benchRequest, benchSensors, benchTableSpec, createBenchTable, handWrittenQuery } from './checksWorkload.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECTION_START = '<!-- bench/checks.ts: merged sensor queries (start) -->';
const SECTION_END = '<!-- bench/checks.ts: merged sensor queries (end) -->';
const FULL_ROWS = 1_000_000;
const MERGED_LIMIT = 1.3;
const PER_SENSOR_FACTOR = 5;
/** Sensors whose aggregate sorts its input (count(distinct …), percentile_cont): no parallel aggregation. */
const SORTING_SENSORS: ReadonlySet<string> = new Set([
  'column/uniqueness/distinct_count',
  'column/uniqueness/distinct_percent',
  'column/uniqueness/duplicate_count',
  'column/uniqueness/duplicate_percent',
  'column/accepted_values/expected_text_values_in_use_count',
  'column/accepted_values/expected_numbers_in_use_count',
  'table/uniqueness/duplicate_record_count',
  'table/uniqueness/duplicate_record_percent',
  'column/numeric/percentile',
]);

interface Options {
  rows: number;
  rounds: number;
  perSensorRounds: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { rows: FULL_ROWS, rounds: 7, perSensorRounds: 3, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => argv[++i] ?? '';
    if (arg === '--rows') options.rows = Number(next());
    else if (arg === '--rounds') options.rounds = Number(next());
    else if (arg === '--per-sensor-rounds') options.perSensorRounds = Number(next());
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.rows !== FULL_ROWS && !argv.includes('--write')) options.write = false;
  return options;
}

function serverUrl(): string {
  return process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Runs a query as the check runner does: in a read-only transaction. Returns the rows and the wall time. */
async function timed(client: pg.Client, query: { text: string; values: unknown[] }): Promise<{ ms: number; rows: Record<string, unknown>[] }> {
  const started = performance.now();
  await client.query('begin read only');
  const result = await client.query({ text: query.text, values: query.values, queryMode: 'extended' } as pg.QueryConfig);
  await client.query('commit');
  return { ms: performance.now() - started, rows: result.rows as Record<string, unknown>[] };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function same(a: number | null, b: unknown): boolean {
  const n = b === null || b === undefined ? null : Number(b);
  if (a === null || n === null) return a === n;
  return Math.abs(a - n) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(n));
}

const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;

interface Measured {
  handWritten: number[];
  merged: number[];
  /** `dqctl run checks` end to end (the run_checks executor on a live store). */
  runChecks: number[];
  runResult: RunChecksResult | undefined;
  perSensor: number[];
  /** `select count(*)`: the bare scan, for the analysis. */
  scan: number[];
  /** Each check's query alone, per round of (b). */
  perCheck: Map<string, number[]>;
  /** (c): the merged query of the checks whose aggregates can run in parallel (no sorts). */
  parallelMerged: number[];
  parallelIds: string[];
  perSensorQueries: number;
  mergedQuery: SensorQuery;
  loadMs: number;
  server: Record<string, string>;
}

async function measure(options: Options): Promise<Measured> {
  const name = `dqctl_bench_${randomBytes(5).toString('hex')}`;
  const storeName = `${name}_store`;
  await withAdmin(async (admin) => {
    await admin.query(`create database ${name} template template0`);
    await admin.query(`create database ${storeName} template template0`);
  });
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const storeUrl = new URL(serverUrl());
  storeUrl.pathname = `/${storeName}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const dataSources = new DataSources({ env: { DQCTL_BENCH_PASSWORD: decodeURIComponent(url.password) } });
  const store = await openStore({ databaseUrl: storeUrl.toString() });
  try {
    await client.query(`set time zone 'UTC'`);
    process.stderr.write(`bench:checks: loading ${options.rows.toLocaleString('en-US')} rows…\n`);
    const loadStarted = performance.now();
    await createBenchTable(client, options.rows);
    const loadMs = performance.now() - loadStarted;
    const server: Record<string, string> = {};
    for (const setting of ['server_version', 'shared_buffers', 'work_mem', 'max_parallel_workers_per_gather']) {
      server[setting] = String((await client.query(`select current_setting($1) as v`, [setting])).rows[0].v);
    }
    server.table_size = String((await client.query(`select pg_size_pretty(pg_total_relation_size('"Bench"."orders 1M"')) as v`)).rows[0].v);

    const sensors = benchSensors();
    const plan = planSensorQueries(benchRequest(sensors));
    if (plan.rejected.length > 0 || plan.queries.length !== 1) {
      throw new Error(`expected one merged query, got ${plan.queries.length} (rejected: ${JSON.stringify(plan.rejected)})`);
    }
    const mergedQuery = plan.queries[0]!;
    const perSensor = sensors.map((sensor) => {
      const single = planSensorQueries(benchRequest([sensor]));
      if (single.queries.length !== 1) throw new Error(`${sensor.id}: expected one query`);
      return single.queries[0]!;
    });
    const hand = handWrittenQuery();

    // Correctness (and warm-up): merged = hand-written = per-sensor, value by value.
    process.stderr.write('bench:checks: checking the values…\n');
    const merged = mergedQuery.parse((await timed(client, mergedQuery)).rows);
    const handRow = (await timed(client, hand)).rows[0]!;
    const wrong: string[] = [];
    for (const check of BENCH_CHECKS) {
      const value = merged.get(check.check)?.[0]?.actualValue ?? null;
      if (!same(value, handRow[check.check])) wrong.push(`${check.check}: merged ${value}, hand-written ${String(handRow[check.check])}`);
    }
    for (const query of perSensor) {
      const readouts: SensorReadouts = query.parse((await timed(client, query)).rows);
      for (const [id, values] of readouts) {
        if (!same(values[0]?.actualValue ?? null, merged.get(id)?.[0]?.actualValue)) wrong.push(`${id}: alone ${values[0]?.actualValue}, merged ${merged.get(id)?.[0]?.actualValue}`);
      }
    }
    if (wrong.length > 0) throw new Error(`the queries disagree:\n  ${wrong.join('\n  ')}`);

    // `dqctl run checks`: the connection and the table file's 30 checks in a live store, the executor as the CLI runs it
    const objects = new LiveObjects(store, { revisionCheckMs: 0 });
    const connection: JsonObject = {
      provider_type: 'postgresql',
      postgresql: { host: url.hostname, port: url.port || '5432', database: name, user: decodeURIComponent(url.username || 'postgres'), password: '${DQCTL_BENCH_PASSWORD}' },
      parallel_jobs_limit: 2,
    };
    await objects.create('source', 'bench', connection, { caller: 'bench' });
    await objects.create('table', `bench/${BENCH_SCHEMA}.${BENCH_TABLE}`, benchTableSpec() as JsonObject, { caller: 'bench' });
    // as `dqctl run checks` runs it, on the benchmark's fixed clock (freshness and future dates are measured against it)
    const runOnce = async (): Promise<{ ms: number; result: RunChecksResult }> => {
      const started = performance.now();
      const { result } = await runChecksOf({ store, objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal, { now: BENCH_NOW });
      return { ms: performance.now() - started, result };
    };
    const firstRun = await runOnce();
    const stored = await store.checkResults({ connectionName: 'bench', schemaName: BENCH_SCHEMA, tableName: BENCH_TABLE, newest: { of: 'runs', count: 1 } });
    if (firstRun.result.executed_checks !== BENCH_CHECKS.length || firstRun.result.execution_errors > 0) {
      const errors = stored.filter((r) => r.severity === null).map((r) => `${r.checkName}: ${r.errorMessage}`);
      throw new Error(`run checks: expected ${BENCH_CHECKS.length} checks without execution errors, got ${JSON.stringify(firstRun.result)}\n  ${errors.join('\n  ')}`);
    }
    for (const row of stored) {
      const id = BENCH_CHECKS.find((c) => c.check === row.checkName)?.check;
      if (id && !same(merged.get(id)?.[0]?.actualValue ?? null, row.actualValue)) wrong.push(`${id}: run checks stored ${row.actualValue}, merged ${merged.get(id)?.[0]?.actualValue}`);
    }
    if (stored.length !== BENCH_CHECKS.length) wrong.push(`run checks stored ${stored.length} results, expected ${BENCH_CHECKS.length}`);
    if (wrong.length > 0) throw new Error(`run checks disagrees:\n  ${wrong.join('\n  ')}`);

    const scanQuery = { text: 'select count(*) from "Bench"."orders 1M"', values: [] };
    const parallelQuery = planSensorQueries(benchRequest(sensors.filter((sensor) => !SORTING_SENSORS.has(sensor.sensorName)))).queries[0]!;
    const result: Measured = {
      handWritten: [],
      merged: [],
      runChecks: [],
      runResult: firstRun.result,
      perSensor: [],
      scan: [],
      perCheck: new Map(sensors.map((sensor) => [sensor.id, []])),
      parallelMerged: [],
      parallelIds: sensors.filter((sensor) => !SORTING_SENSORS.has(sensor.sensorName)).map((sensor) => sensor.id),
      perSensorQueries: perSensor.length,
      mergedQuery,
      loadMs,
      server,
    };
    for (let round = 0; round < options.rounds; round++) {
      process.stderr.write(`bench:checks: round ${round + 1} of ${options.rounds}\n`);
      // Alternate the order so that neither query always runs right after the other's cache effects.
      const pair = round % 2 === 0 ? (['hand', 'merged'] as const) : (['merged', 'hand'] as const);
      for (const which of pair) {
        if (which === 'hand') result.handWritten.push((await timed(client, hand)).ms);
        else {
          const started = performance.now();
          mergedQuery.parse((await timed(client, mergedQuery)).rows);
          result.merged.push(performance.now() - started);
        }
      }
      result.runChecks.push((await runOnce()).ms);
      result.scan.push((await timed(client, scanQuery)).ms);
      if (round < options.perSensorRounds) {
        const started = performance.now();
        parallelQuery.parse((await timed(client, parallelQuery)).rows);
        result.parallelMerged.push(performance.now() - started);
      }
      if (round < options.perSensorRounds) {
        const started = performance.now();
        for (const query of perSensor) {
          const one = performance.now();
          query.parse((await timed(client, query)).rows);
          result.perCheck.get(query.sensorIds[0]!)!.push(performance.now() - one);
        }
        result.perSensor.push(performance.now() - started);
      }
    }
    return result;
  } finally {
    await store.close();
    await dataSources.close();
    await client.end();
    await withAdmin(async (admin) => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop database if exists ${storeName} with (force)`);
    });
  }
}

function commitOf(): string {
  try {
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: HERE, encoding: 'utf8' }).trim();
    const changed = git('status', '--porcelain', '--', '../src/datasource', '../bench/checks.ts', '../bench/checksWorkload.ts').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${changed > 0 ? `, with ${changed} uncommitted changes in src/datasource and the benchmark` : ''}`;
  } catch {
    return 'unknown commit';
  }
}

function report(options: Options, m: Measured, totalMs: number): string {
  const a = median(m.handWritten);
  const merged = median(m.merged);
  const b = median(m.perSensor);
  const run = median(m.runChecks);
  const ratio = run / a;
  const speedup = b / run;
  const queryRatio = merged / a;
  const scan = median(m.scan);
  const minRatio = Math.min(...m.runChecks) / Math.min(...m.handWritten);
  const perCheck = [...m.perCheck].map(([id, times]) => ({ id, ms: median(times) })).sort((x, y) => y.ms - x.ms);
  const work = Math.max(0, merged - scan);
  const parallel = median(m.parallelMerged);
  const parallelAlone = [...m.perCheck].filter(([id]) => m.parallelIds.includes(id)).reduce((sum, [, times]) => sum + median(times), 0);
  const sortingAlone = perCheck.filter((c) => !m.parallelIds.includes(c.id));
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const lines = [
    SECTION_START,
    '## Check run benchmark: run checks and merged sensor queries',
    '',
    `Written by \`npm run bench:checks\` (bench/checks.ts) on ${when} UTC; the whole run took ${Math.round(totalMs / 1000)} s.`,
    '',
    `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end. ` +
      `PostgreSQL ${m.server.server_version} on the same machine (shared_buffers ${m.server.shared_buffers}, work_mem ${m.server.work_mem}, max_parallel_workers_per_gather ${m.server.max_parallel_workers_per_gather}); code: ${commitOf()}.`,
    '',
    `Table \`"Bench"."orders 1M"\`: ${options.rows.toLocaleString('en-US')} rows, 10 columns (bigint, int, numeric, int, 3 texts, timestamptz, double, text), ${m.server.table_size}, ` +
      `generated server-side in ${ms(m.loadMs)} with deliberate problems (nulls, negative amounts, broken e-mails, placeholders, blank notes), then VACUUM ANALYZE. ` +
      `30 daily monitoring checks (bench/checksWorkload.ts): row count, nulls, distinct and duplicate counts, min/max/mean/sum/median, range and threshold counts, text lengths, whitespace, placeholder, regex, e-mail format, accepted values, country codes, future dates, freshness, a custom SQL condition and duplicate records.`,
    '',
    '### Targets',
    '',
    '| target | measured | limit | result |',
    '|---|---:|---:|---|',
    `| \`run checks\` / hand-written query (medians) | ${ratio.toFixed(2)}x (${ms(run)} / ${ms(a)}); mins ${minRatio.toFixed(2)}x | ≤ ${MERGED_LIMIT}x | **${ratio <= MERGED_LIMIT ? 'PASS' : 'FAIL'}** |`,
    `| one query per sensor / \`run checks\` (medians) | ${speedup.toFixed(1)}x (${ms(b)} / ${ms(run)}) | ≥ ${PER_SENSOR_FACTOR}x | **${speedup >= PER_SENSOR_FACTOR ? 'PASS' : 'FAIL'}** |`,
    `| for reference: the merged query alone / hand-written query | ${queryRatio.toFixed(2)}x (${ms(merged)} / ${ms(a)}) | | |`,
    '',
    '### Runs',
    '',
    '| variant | queries | runs | median | min | max |',
    '|---|---:|---:|---:|---:|---:|',
    `| (a) hand-written single query (lower bound) | 1 | ${m.handWritten.length} | ${ms(a)} | ${ms(Math.min(...m.handWritten))} | ${ms(Math.max(...m.handWritten))} |`,
    `| **dqctl \`run checks\`** (run_checks executor: store reads, plan, merged query, rules, ${m.runResult?.executed_checks ?? 0} results written) | 1 | ${m.runChecks.length} | ${ms(run)} | ${ms(Math.min(...m.runChecks))} | ${ms(Math.max(...m.runChecks))} |`,
    `| dqctl merged query alone (planSensorQueries, incl. parsing the readouts) | 1 | ${m.merged.length} | ${ms(merged)} | ${ms(Math.min(...m.merged))} | ${ms(Math.max(...m.merged))} |`,
    `| (b) one query per sensor, one after another | ${m.perSensorQueries} | ${m.perSensor.length} | ${ms(b)} | ${ms(Math.min(...m.perSensor))} | ${ms(Math.max(...m.perSensor))} |`,
    `| reference: the bare scan, \`select count(*)\` | 1 | ${m.scan.length} | ${ms(scan)} | ${ms(Math.min(...m.scan))} | ${ms(Math.max(...m.scan))} |`,
    `| (c) merged query of the ${m.parallelIds.length} checks without sorts (parallel aggregation) | 1 | ${m.parallelMerged.length} | ${ms(parallel)} | ${ms(Math.min(...m.parallelMerged))} | ${ms(Math.max(...m.parallelMerged))} |`,
    `| (c') the same ${m.parallelIds.length} checks one query each (sum of the medians) | ${m.parallelIds.length} | ${m.perSensor.length} | ${ms(parallelAlone)} | | |`,
    '',
    speedup >= PER_SENSOR_FACTOR ? '### Where the time goes' : '### Why (b) is not 5x slower here',
    '',
    `\`run checks\` took ${ms(Math.max(0, run - merged))} more than its merged query alone (medians of runs made at different moments on a shared machine; reading the`,
    'table and its checks from the store, planning, the rules and writing the 30 results take about 15 ms of a run when timed apart).',
    `Merging saves the scans, not the aggregate work: the merged query costs about one scan plus the work of all 30 aggregates`,
    `(${ms(scan)} + ${ms(work)}), and (b) about 30 scans plus the same work (${m.perSensorQueries} × ${ms(scan)} + the work).`,
    `On this table the work dominates: its ${options.rows.toLocaleString('en-US')} rows, in memory, scan in ${ms(scan)}, while each of the ${sortingAlone.length} checks that sort`,
    `(\`count(distinct …)\`, the median, the duplicate-record count: a sort of every row's record text, spilling to disk with`,
    `work_mem ${m.server.work_mem}) costs several scans, ${ms(sortingAlone.reduce((sum, c) => sum + c.ms, 0))} together when run alone; that work is the same in (a), (b)`,
    'and the merged query. Worse for the merged query, those aggregates cannot be computed in parallel, so it runs in one',
    "process, while most of (b)'s queries get PostgreSQL's parallel workers (on a loaded machine, also a larger share of",
    `the CPU). Without the sorting checks, (c) shows the merge at work: ${m.parallelIds.length} checks in one parallel query take ${ms(parallel)},`,
    `one query each ${ms(parallelAlone)} (${(parallelAlone / parallel).toFixed(1)}x). The ratio (b) / merged reaches 5x only when the checks' own work is small`,
    `next to the scan (30 s + W ≥ 5 (s + W), i.e. W ≤ ${ms(((m.perSensorQueries - 5) * scan) / 4)} here): cheap checks on wide tables or on data`,
    "that is not in memory. Each check's query alone, the medians of (b):",
    '',
    '<details><summary>The 30 checks, slowest first</summary>',
    '',
    '| check | alone |',
    '|---|---:|',
    ...perCheck.map((c) => `| ${c.id} | ${ms(c.ms)} |`),
    '',
    '</details>',
    '',
    '### How it is measured',
    '',
    '- A fresh database on the server; one `pg` client; every query in its own `BEGIN READ ONLY` … `COMMIT` (as the check',
    '  runner runs them), sent with the extended protocol; wall-clock time in the client (`performance.now()`).',
    '- Before timing, the merged query\'s 30 values are compared with the hand-written query\'s and with each per-sensor',
    '  query\'s (any difference fails the run); this also warms the caches. Then rounds of (a) and the merged query in',
    '  alternating order, then `run checks`, and (b) in the first rounds. The first `run checks` (before timing) must store',
    '  30 results, each equal to the merged query\'s value.',
    '- (a) is what a person would write for this table: the same aggregates with literals. The merged query differs in',
    '  bound parameters, quoted identifiers, `::text` and `::double precision` casts and the `FILTER` clauses per sensor.',
    '- (b) runs the same sensor SQL one sensor per query (each is a full scan of the table; PostgreSQL may use',
    '  parallel workers for the simpler ones, which the merged query, holding `count(distinct …)` and',
    '  `percentile_cont`, cannot).',
    '',
    '<details><summary>The merged query</summary>',
    '',
    '```sql',
    m.mergedQuery.text,
    '```',
    '',
    `Bound values: \`${JSON.stringify(m.mergedQuery.values).slice(0, 400)}…\``,
    '',
    '</details>',
    '',
    SECTION_END,
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const measured = await measure(options);
  const text = report(options, measured, performance.now() - started);
  process.stdout.write(`${text}\n`);
  if (options.write) {
    await writeBenchmarkSection(text, SECTION_START, SECTION_END);
    process.stderr.write('bench:checks: wrote BENCHMARKS.md\n');
  } else {
    process.stderr.write('bench:checks: BENCHMARKS.md left alone (not the full-size table; pass --write to write it)\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:checks failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
