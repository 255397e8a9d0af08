/**
 * `npm run bench:statistics`: statistics collection (row count; per column nulls, distinct, min, max, mean,
 * text lengths and the 5 most common values) on a 1,000,000-row, 10-column table in a fresh PostgreSQL
 * database, against hand-written SQL computing the same results:
 *   (a) ONE hand-written query with the same aggregates (the lower bound of the aggregate scan), and
 *   (b) the most common values written by hand, one `GROUP BY … ORDER BY count(*) DESC LIMIT 5` per column.
 * Also one whole `collect_statistics` job (the table read from a live store on PostgreSQL, results stored).
 * Written to BENCHMARKS.md, in its own section. Correctness first: every value dqctl collects must equal the
 * hand-written queries' (else exit 1, BENCHMARKS.md untouched).
 *
 *   npm run bench:statistics                              # full size, writes BENCHMARKS.md
 *   npm run bench:statistics -- --rows 100000 --rounds 2  # smoke run; prints only (add --write to write)
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import pg from 'pg';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { collectTableStatistics, columnProfileOf, DataSources, describeTable, type StatisticsValue } from '../src/datasource/index.js';
import { aggregateStatement } from '../src/datasource/statisticsQuery.js';
import { POSTGRESQL } from '../src/datasource/dialects/index.js';
import { quoteQualified } from '../src/datasource/sensors/quoteIdent.js';
import { collectStatistics } from '../src/jobs/executors/collectStatistics.js';
import type { JsonObject } from '../src/model/index.js';
import { openStore } from '../src/store/openStore.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/statistics.ts: statistics collection (start) -->';
const SECTION_END = '<!-- bench/statistics.ts: statistics collection (end) -->';
const FULL_ROWS = 1_000_000;
const SCHEMA = 'Bench';
const TABLE = 'orders 1M';

interface Options {
  rows: number;
  rounds: number;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { rows: FULL_ROWS, rounds: 3, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (): string => argv[++i] ?? '';
    if (arg === '--rows') options.rows = Number(next());
    else if (arg === '--rounds') options.rounds = Number(next());
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

/** The table: 10 columns of the usual kinds, generated server-side (a few seconds), then VACUUM ANALYZE. */
async function createTable(client: pg.Client, rows: number): Promise<void> {
  await client.query(`create schema "Bench"`);
  await client.query(`
    create table "Bench"."orders 1M" (
      id bigint primary key, customer_id int, amount numeric(12,2), quantity int, email text, status text,
      country text, created_at timestamptz, score double precision, note text
    )`);
  await client.query(
    `insert into "Bench"."orders 1M"
     select g,
       case when g % 50 = 0 then null else (g * 7919) % 100000 end,
       case when g % 40 = 0 then null else ((g * 37) % 200000 - 10000) / 100.0 end,
       (g * 13) % 120,
       case when g % 30 = 0 then null when g % 97 = 0 then 'broken-' || g else 'user' || (g % 50000) || '@example.com' end,
       (array['new', 'paid', 'shipped', 'cancelled', 'N/A'])[1 + g % 5],
       (array['US', 'PL', 'DE', 'FR', 'GB', 'XX'])[1 + g % 6],
       timestamptz '2024-01-01' + (g % 600000) * interval '1 minute',
       (g % 1000) / 10.0,
       case when g % 11 = 0 then '' when g % 13 = 0 then '   ' else 'note ' || (g % 100) end
     from generate_series(1, $1::bigint) as g`,
    [rows],
  );
  await client.query(`vacuum analyze "Bench"."orders 1M"`);
}

const NUMERIC = ['id', 'customer_id', 'amount', 'quantity', 'score'];
const TEXT = ['email', 'status', 'country', 'note'];
const COLUMNS = ['id', 'customer_id', 'amount', 'quantity', 'email', 'status', 'country', 'created_at', 'score', 'note'];

/** (a): the same aggregates as dqctl's scan, as a person would write them for this table. */
function handWrittenAggregates(): string {
  const parts = ['count(*) as n'];
  for (const c of COLUMNS) {
    parts.push(`count(${c}) as ${c}_nn`, `count(distinct ${c}) as ${c}_d`, `min(${c})::text as ${c}_min`, `max(${c})::text as ${c}_max`);
    if (NUMERIC.includes(c)) parts.push(`avg(${c})::float8 as ${c}_mean`);
    if (TEXT.includes(c)) parts.push(`min(length(${c})) as ${c}_lmin`, `max(length(${c})) as ${c}_lmax`, `avg(length(${c}))::float8 as ${c}_lmean`);
  }
  return `select ${parts.join(',\n  ')}\nfrom "Bench"."orders 1M"`;
}

/** (b): the 5 most common values of one column (ties by text), as a person would write it. */
function handWrittenTopValues(column: string): string {
  return `select ${column}::text as v, count(*) as n from "Bench"."orders 1M" where ${column} is not null group by ${column} order by count(*) desc, ${column}::text collate "C" limit 5`;
}

async function timedQuery(client: pg.Client, text: string): Promise<{ ms: number; rows: Record<string, unknown>[] }> {
  const started = performance.now();
  await client.query('begin read only');
  const result = await client.query(text);
  await client.query('commit');
  return { ms: performance.now() - started, rows: result.rows as Record<string, unknown>[] };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;

function sameNumber(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

/** Every value dqctl collected, compared with the hand-written queries'; the differences. */
function compare(values: readonly StatisticsValue[], hand: Record<string, unknown>, handTop: Map<string, { value: string; count: number }[]>): string[] {
  const wrong: string[] = [];
  const get = (column: string | null, collector: string) => values.find((v) => v.columnName === column && v.collector === collector);
  const expect = (label: string, actual: unknown, expected: unknown, numeric = true) => {
    if (numeric ? !sameNumber(actual, expected) : actual !== expected) wrong.push(`${label}: dqctl ${String(actual)}, hand-written ${String(expected)}`);
  };
  expect('row_count', get(null, 'row_count')?.double, hand.n);
  for (const c of COLUMNS) {
    expect(`${c}.nulls_count`, get(c, 'nulls_count')?.double, Number(hand.n) - Number(hand[`${c}_nn`]));
    expect(`${c}.distinct_count`, get(c, 'distinct_count')?.double, hand[`${c}_d`]);
    expect(`${c}.min_value`, get(c, 'min_value')?.text, hand[`${c}_min`], false);
    expect(`${c}.max_value`, get(c, 'max_value')?.text, hand[`${c}_max`], false);
    if (NUMERIC.includes(c)) expect(`${c}.mean_value`, get(c, 'mean_value')?.double, hand[`${c}_mean`]);
    if (TEXT.includes(c)) {
      expect(`${c}.text_min_length`, get(c, 'text_min_length')?.double, hand[`${c}_lmin`]);
      expect(`${c}.text_max_length`, get(c, 'text_max_length')?.double, hand[`${c}_lmax`]);
      expect(`${c}.text_mean_length`, get(c, 'text_mean_length')?.double, hand[`${c}_lmean`]);
    }
    expect(`${c}.top_values`, JSON.stringify(get(c, 'top_values')?.json), JSON.stringify(handTop.get(c)), false);
  }
  return wrong;
}

interface Measured {
  dqctl: number[];
  dqctlAggregate: number[];
  handAggregates: number[];
  handAggregatesNoJit: number[];
  handTopValues: number[];
  job: number;
  jobResult: JsonObject;
  results: number;
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
  const spec: JsonObject = {
    provider_type: 'postgresql',
    postgresql: { host: url.hostname, port: url.port || '5432', database: name, user: decodeURIComponent(url.username || 'postgres'), password: '${DQCTL_BENCH_PASSWORD}' },
    parallel_jobs_limit: 2,
  };
  const dataSources = new DataSources({ env: { DQCTL_BENCH_PASSWORD: decodeURIComponent(url.password) } });
  try {
    await client.query(`set time zone 'UTC'`);
    process.stderr.write(`bench:statistics: loading ${options.rows.toLocaleString('en-US')} rows…\n`);
    const loadStarted = performance.now();
    await createTable(client, options.rows);
    const loadMs = performance.now() - loadStarted;
    const server: Record<string, string> = {};
    for (const setting of ['server_version', 'shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'jit']) {
      server[setting] = String((await client.query(`select current_setting($1) as v`, [setting])).rows[0].v);
    }
    server.table_size = String((await client.query(`select pg_size_pretty(pg_total_relation_size('"Bench"."orders 1M"')) as v`)).rows[0].v);
    const source = dataSources.get('bench', spec);

    // Correctness (and warm-up): every collected value against the hand-written queries.
    process.stderr.write('bench:statistics: checking the values…\n');
    const collected = await collectTableStatistics(source, { schema: SCHEMA, table: TABLE });
    const hand = (await timedQuery(client, handWrittenAggregates())).rows[0]!;
    const handTop = new Map<string, { value: string; count: number }[]>();
    for (const c of COLUMNS) handTop.set(c, (await timedQuery(client, handWrittenTopValues(c))).rows.map((r) => ({ value: String(r.v), count: Number(r.n) })));
    const wrong = compare(collected.values, hand, handTop);
    if (wrong.length > 0) throw new Error(`dqctl and the hand-written queries disagree:\n  ${wrong.join('\n  ')}`);

    // dqctl's aggregate scan alone, to split its time between the scan and the most common values
    const columns = await describeTable(source, SCHEMA, TABLE);
    const planned = columns.map((c) => {
      const profile = columnProfileOf(c);
      return { name: c.name, profile, distinct: true, range: profile !== 'bool' && profile !== 'other', mean: profile === 'numeric', lengths: profile === 'text' };
    });
    const aggregate = aggregateStatement({ dialect: POSTGRESQL, from: quoteQualified(SCHEMA, TABLE) }, planned, [], 1000);

    const m: Measured = { dqctl: [], dqctlAggregate: [], handAggregates: [], handAggregatesNoJit: [], handTopValues: [], job: 0, jobResult: {}, results: collected.values.length, loadMs, server };
    for (let round = 0; round < options.rounds; round++) {
      process.stderr.write(`bench:statistics: round ${round + 1} of ${options.rounds}\n`);
      let started = performance.now();
      await collectTableStatistics(source, { schema: SCHEMA, table: TABLE });
      m.dqctl.push(performance.now() - started);
      started = performance.now();
      await source.query(aggregate.text, aggregate.params, { settings: { jit: 'off' } });
      m.dqctlAggregate.push(performance.now() - started);
      m.handAggregates.push((await timedQuery(client, handWrittenAggregates())).ms);
      // the variants that only explain the figures run in the first two rounds (the run stays under ~3 minutes)
      if (round >= 2) continue;
      await client.query('set jit = off');
      m.handAggregatesNoJit.push((await timedQuery(client, handWrittenAggregates())).ms);
      await client.query('reset jit');
      started = performance.now();
      for (const c of COLUMNS) await timedQuery(client, handWrittenTopValues(c));
      m.handTopValues.push(performance.now() - started);
    }

    // The whole job once: the table read from a live store on PostgreSQL, the results written to it.
    process.stderr.write('bench:statistics: the whole collect_statistics job…\n');
    const store = await openStore({ databaseUrl: storeUrl.toString() });
    try {
      const objects = new LiveObjects(store, { revisionCheckMs: 0 });
      await objects.create('source', 'bench', spec, { caller: 'bench' });
      await objects.create('table', `bench/${SCHEMA}.${TABLE}`, {}, { caller: 'bench' });
      const started = performance.now();
      const run = await collectStatistics({ store, objects, dataSources }, { connection: 'bench' });
      m.job = performance.now() - started;
      m.jobResult = { ...run.result };
      if (run.tables[0]?.status !== 'ok') throw new Error(`the job failed: ${run.tables[0]?.error?.message}`);
    } finally {
      await store.close();
    }
    return m;
  } finally {
    await dataSources.close();
    await client.end();
    await withAdmin(async (admin) => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop database if exists ${storeName} with (force)`);
    });
  }
}

function report(options: Options, m: Measured, totalMs: number): string {
  const dq = median(m.dqctl);
  const agg = median(m.dqctlAggregate);
  const a = median(m.handAggregates);
  const aNoJit = median(m.handAggregatesNoJit);
  const b = median(m.handTopValues);
  const best = Math.min(a, aNoJit);
  const row = (label: string, values: number[], queries: string) =>
    `| ${label} | ${queries} | ${values.length} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} |`;
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const lines = [
    SECTION_START,
    '## Statistics collection',
    '',
    `Written by \`npm run bench:statistics\` (bench/statistics.ts) on ${when} UTC; the whole run took ${Math.round(totalMs / 1000)} s.`,
    '',
    `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end. ` +
      `PostgreSQL ${m.server.server_version} on the same machine (shared_buffers ${m.server.shared_buffers}, work_mem ${m.server.work_mem}, max_parallel_workers_per_gather ${m.server.max_parallel_workers_per_gather}, jit ${m.server.jit}).`,
    '',
    `Table \`"Bench"."orders 1M"\`: ${options.rows.toLocaleString('en-US')} rows, 10 columns (bigint primary key, int, numeric, int, 3 texts, timestamptz, double, text), ${m.server.table_size}, generated server-side in ${ms(m.loadMs)}, then VACUUM ANALYZE. ` +
      `dqctl collects ${m.results} statistics: the row count and, per column, nulls (count, percent), distinct values (count, percent, duplicates), min, max, mean (numbers), text lengths (min, max, mean) and the 5 most common values. ` +
      'Every value is first compared with the hand-written queries (any difference fails the run).',
    '',
    '| variant | queries | runs | median | min | max |',
    '|---|---:|---:|---:|---:|---:|',
    row('**dqctl statistics of the table** (`collectTableStatistics`: describe, aggregate scan, most common values)', m.dqctl, '4 (+ 1 per column of >10,000 values)'),
    row('… of which the aggregate scan alone', m.dqctlAggregate, '1'),
    row('(a) hand-written single query with the same aggregates, default settings', m.handAggregates, '1'),
    row('(a) the same with jit off (as dqctl runs it)', m.handAggregatesNoJit, '1'),
    row('(b) hand-written most common values, one query per column', m.handTopValues, '10'),
    `| the whole \`collect_statistics\` job (live store on PostgreSQL, results stored) | | 1 | ${ms(m.job)} | | |`,
    '',
    '| ratio (medians) | value |',
    '|---|---:|',
    `| dqctl aggregate scan / best (a) | ${(agg / best).toFixed(2)}x |`,
    `| dqctl statistics / best (a): the price of the most common values on top of the lower bound | ${(dq / best).toFixed(2)}x |`,
    `| dqctl statistics / (best (a) + (b)): against doing all of it by hand | ${(dq / (best + b)).toFixed(2)}x |`,
    '',
    `Job result: \`${JSON.stringify(m.jobResult)}\`.`,
    '',
    '### How it is measured, and what dqctl does',
    '',
    '- A fresh database; one `pg` client for the hand-written queries, each in `BEGIN READ ONLY` … `COMMIT`; dqctl through',
    '  its own pool (one read-only REPEATABLE READ session per table, `jit` off). Wall-clock time in the client.',
    '- The aggregate scan is ONE query: `count(*)` and, per column, `count`, `count(distinct)`, `min`, `max`, `avg`, text',
    '  lengths. `count(distinct …)` dominates it (PostgreSQL sorts each column once; no parallel workers).',
    '- The most common values come after the scan, chosen from what it found. Columns whose values are all distinct',
    '  (here `id`) are not grouped at all: every value occurs once, so the first 5 by text come from a top-N sort',
    '  (~0.1 s instead of ~1.5 s for grouping a unique million-value column). Columns of at most 10,000 distinct values',
    '  (here quantity, status, country, score, note) are ranked together in ONE scan (`GROUP BY GROUPING SETS`, one set',
    '  per column). Columns of more distinct values (customer_id, amount, email, created_at) get a query each, whose',
    '  top-N sort keeps only 5 groups: ranking their ~950,000 groups together in the GROUPING SETS query needs a full',
    '  sort of them (measured while choosing, jit off, idle machine: the nine columns in one GROUPING SETS query 4.1 s,',
    '  of which 1.6 s ranking; one query per column 3.0 s; the split 0.5 s + 2.3 s).',
    '- JIT is off in dqctl\'s sessions: compiling a query of ~50 aggregates cost more than it saved on a million rows',
    '  (compare the two (a) rows).',
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
    process.stderr.write('bench:statistics: wrote BENCHMARKS.md\n');
  } else {
    process.stderr.write('bench:statistics: BENCHMARKS.md left alone (not the full-size table; pass --write to write it)\n');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:statistics failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
