/**
 * `npm run bench:checks:dialects`: `dqctl run checks` of the 30 checks of bench:checks (bench/checksWorkload.ts) on a
 * 1,000,000-row table on DuckDB (a Parquet file read by a `duckdb` connection in files mode) and on MariaDB (a
 * `mariadb` connection to a private server), against ONE hand-written query computing the same values on the same
 * engine. Measured per engine, in the same run:
 *   (a) the hand-written query alone (through the same driver),
 *   (b) `run checks` in process: the run_checks executor as the CLI calls it (the checks read from a live store on
 *       PostgreSQL, the sensor queries on the data source, the rules, 30 results written back),
 *   (c) `run checks` as a whole process: `node bin/dqctl.js run checks --connection bench` (Node.js start, the
 *       store opened, everything of (b), exit), and for reference `node bin/dqctl.js --version`,
 *   (d) for context only (the target stays (c) ≤ 1.1 × (a)): the hand-written query as a whole process, a Node.js
 *       process that loads the same driver, connects (DuckDB: a new in-memory instance), runs it and exits.
 * The issue's target: (c) ≤ 1.1 × (a). Written to BENCHMARKS.md in its own section (medians of --rounds runs).
 *
 * Correctness first: every readout of dqctl's queries must equal the hand-written query's value (else exit 1 and
 * BENCHMARKS.md is left alone). MariaDB has no percentile aggregate (DQOps has no mysql/mariadb percentile
 * sensor either), so its workload is the 29 checks without the median. Needs dist/ built (npm run build) for (c).
 *
 *   npm run bench:checks:dialects                                   # both engines, 1,000,000 rows, writes BENCHMARKS.md
 *   npm run bench:checks:dialects -- --rows 100000 --rounds 2       # smoke run; prints only (add --write)
 *   options: --rows N --rounds N --engine duckdb|mariadb --write/--no-write
 *   the store: TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres (a scratch database, dropped)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { DataSources, type DataSource } from '../src/datasource/index.js';
import { planSensorQueries } from '../src/datasource/sensors/index.js';
import { COUNTRY_CODES, PATTERNS } from '../src/datasource/sensors/textPatterns.js';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import { runChecks as runChecksOf } from '../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../src/model/index.js';
import { openStore } from '../src/store/openStore.js';
import { MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../test/helpers/mariadbServer.js';
import { writeBenchmarkSection } from './benchmarksFile.js';
import { BENCH_CHECKS, BENCH_SCHEMA, BENCH_TABLE, benchRequest, benchSensors, benchTableSpec } from './checksWorkload.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const SECTION_START = '<!-- bench/checksDialects.ts: run checks on DuckDB and MariaDB (start) -->';
const SECTION_END = '<!-- bench/checksDialects.ts: run checks on DuckDB and MariaDB (end) -->';
const LIMIT = 1.1;
const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type EngineName = 'duckdb' | 'mariadb';

interface Options {
  rows: number;
  rounds: number;
  engines: EngineName[];
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const rows = Number(value('--rows') ?? 1_000_000);
  const engine = value('--engine') as EngineName | undefined;
  return {
    rows,
    rounds: Number(value('--rounds') ?? 5),
    engines: engine ? [engine] : ['duckdb', 'mariadb'],
    write: argv.includes('--write') || (!argv.includes('--no-write') && rows === 1_000_000 && engine === undefined),
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number): string => `${Math.round(value).toLocaleString('en-US')} ms`;

function same(a: number | null, b: unknown): boolean {
  const n = b === null || b === undefined ? null : Number(b);
  if (a === null || n === null) return a === n;
  return Math.abs(a - n) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(n));
}

// ---------------------------------------------------------------------------------------------------------------
// The table and the hand-written queries per engine (the rows of checksWorkload.ts's createBenchTable)

const STATUSES = ['new', 'paid', 'shipped', 'cancelled', 'N/A'];
const COUNTRIES = ['US', 'PL', 'DE', 'FR', 'GB', 'XX'];
const sqlList = (values: readonly string[]): string => values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');

/** The table as DuckDB writes it to Parquet: the same values as the PostgreSQL benchmark's generate_series. */
function duckdbGenerator(rows: number, file: string): string {
  return `copy (select
    g::bigint as id,
    case when g % 50 = 0 then null else ((g * 7919) % 100000)::integer end as customer_id,
    case when g % 40 = 0 then null else (((g * 37) % 200000 - 10000) / 100.0)::decimal(12,2) end as amount,
    ((g * 13) % 120)::integer as quantity,
    case when g % 30 = 0 then null when g % 97 = 0 then 'broken-' || g else 'user' || (g % 50000) || '@example.com' end as email,
    ([${sqlList(STATUSES)}])[1 + g % 5] as status,
    ([${sqlList(COUNTRIES)}])[1 + g % 6] as country,
    timestamptz '2024-01-01 00:00:00+00' + to_minutes((g % 600000)::bigint) as created_at,
    ((g % 1000) / 10.0)::double as score,
    case when g % 11 = 0 then '' when g % 13 = 0 then '   ' else 'note ' || (g % 100) end as note
  from range(1, ${rows + 1}) as t(g)) to '${file.replaceAll("'", "''")}' (format parquet)`;
}

function mariadbGenerator(rows: number): string[] {
  const table = `\`${BENCH_SCHEMA}\`.\`${BENCH_TABLE}\``;
  return [
    "set time_zone = '+00:00'",
    `create database \`${BENCH_SCHEMA}\` character set utf8mb4 collate utf8mb4_nopad_bin`,
    `create table ${table} (id bigint, customer_id int, amount decimal(12,2), quantity int, email text, status text, country text, created_at timestamp(6) null, score double, note text)`,
    `insert into ${table}
     select seq,
       case when seq % 50 = 0 then null else (seq * 7919) % 100000 end,
       case when seq % 40 = 0 then null else ((seq * 37) % 200000 - 10000) / 100.0 end,
       (seq * 13) % 120,
       case when seq % 30 = 0 then null when seq % 97 = 0 then concat('broken-', seq) else concat('user', seq % 50000, '@example.com') end,
       elt(1 + seq % 5, ${sqlList(STATUSES)}),
       elt(1 + seq % 6, ${sqlList(COUNTRIES)}),
       timestamp '2024-01-01 00:00:00' + interval (seq % 600000) minute,
       (seq % 1000) / 10.0,
       case when seq % 11 = 0 then '' when seq % 13 = 0 then '   ' else concat('note ', seq % 100) end
     from (select cast(seq as signed) as seq from \`${BENCH_SCHEMA}\`.seq_1_to_${rows}) as numbers`,
    `analyze table ${table}`,
  ];
}

/** dqctl's null placeholders and texts that mean "missing" (textPatterns.ts), lower-cased and untrimmed. */
const PLACEHOLDERS = ['', '-', '""', "\\'\\'", '#n/d', 'blank', 'empty', 'missing', 'n/a', 'na', 'nan', 'none', 'null', 'undefined'];

/** The 30 values on DuckDB, written by hand as one would for this table alone. */
function duckdbHandWritten(from: string): string {
  return `select
  count(*) as daily_row_count,
  count(*) - count(email) as daily_nulls_count,
  100.0 * (count(*) - count(amount)) / count(*) as daily_nulls_percent,
  count(customer_id) as daily_not_nulls_count,
  count(distinct status) as daily_distinct_count,
  100.0 * count(distinct country) / count(country) as daily_distinct_percent,
  count(id) - count(distinct id) as daily_duplicate_count,
  min(amount) as daily_min_in_range,
  max(amount) as daily_max_in_range,
  avg(score) as daily_mean_in_range,
  sum(quantity) as daily_sum_in_range,
  count(*) filter (where amount < 0) as daily_negative_values,
  count(*) filter (where quantity < 1) as daily_number_below_min_value,
  count(*) filter (where quantity > 100) as daily_number_above_max_value,
  100.0 * count(*) filter (where score between 0 and 90) / count(score) as daily_number_in_range_percent,
  max(length(note)) as daily_text_max_length,
  avg(length(email)) as daily_text_mean_length,
  count(*) filter (where note = '') as daily_empty_text_found,
  count(*) filter (where note <> '' and trim(note) = '') as daily_whitespace_text_found,
  count(*) filter (where lower(status) in (${sqlList(PLACEHOLDERS)})) as daily_null_placeholder_text_found,
  count(*) filter (where not regexp_matches(status, '^[a-z]+$')) as daily_text_not_matching_regex_found,
  count(*) filter (where not regexp_matches(email, '${PATTERNS.email.replaceAll("'", "''")}')) as daily_invalid_email_format_found,
  100.0 * count(*) filter (where status in ('new', 'paid', 'shipped', 'cancelled')) / count(status) as daily_text_found_in_set_percent,
  100.0 * count(*) filter (where upper(country) in (${sqlList(COUNTRY_CODES)})) / count(country) as daily_text_valid_country_code_percent,
  count(distinct status) filter (where status in ('new', 'paid', 'refunded')) as daily_expected_text_values_in_use_count,
  100.0 * count(*) filter (where created_at > timestamptz '2025-01-01 00:00:00+00') / count(created_at) as daily_date_values_in_future_percent,
  extract(epoch from timestamptz '2025-01-01 00:00:00+00' - max(created_at)) / 86400 as daily_data_freshness,
  count(*) filter (where not (quantity >= 0 and amount > -50)) as daily_sql_condition_failed_on_table,
  (select count(*) from (select 1 from ${from} where customer_id is not null or country is not null group by customer_id, country having count(*) > 1)) as daily_duplicate_record_count,
  quantile_cont(amount, 0.5) as daily_median_in_range
from ${from}`;
}

/** The 29 values on MariaDB (no percentile aggregate), written by hand: CASE for FILTER, REGEXP, char_length. */
function mariadbHandWritten(): string {
  const table = `\`${BENCH_SCHEMA}\`.\`${BENCH_TABLE}\``;
  const when = (condition: string): string => `sum(case when ${condition} then 1 else 0 end)`;
  return `select
  count(*) as daily_row_count,
  count(*) - count(email) as daily_nulls_count,
  100.0 * (count(*) - count(amount)) / count(*) as daily_nulls_percent,
  count(customer_id) as daily_not_nulls_count,
  count(distinct status) as daily_distinct_count,
  100.0 * count(distinct country) / count(country) as daily_distinct_percent,
  count(id) - count(distinct id) as daily_duplicate_count,
  min(amount) as daily_min_in_range,
  max(amount) as daily_max_in_range,
  avg(score) as daily_mean_in_range,
  sum(quantity) as daily_sum_in_range,
  ${when('amount < 0')} as daily_negative_values,
  ${when('quantity < 1')} as daily_number_below_min_value,
  ${when('quantity > 100')} as daily_number_above_max_value,
  100.0 * ${when('score between 0 and 90')} / count(score) as daily_number_in_range_percent,
  max(char_length(note)) as daily_text_max_length,
  avg(cast(char_length(email) as double)) as daily_text_mean_length,
  ${when("note = ''")} as daily_empty_text_found,
  ${when("note <> '' and trim(note) = ''")} as daily_whitespace_text_found,
  ${when(`lower(status) in (${PLACEHOLDERS.map((p) => `'${p.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`).join(', ')})`)} as daily_null_placeholder_text_found,
  ${when("status not regexp '(?-i)^[a-z]+$'")} as daily_text_not_matching_regex_found,
  ${when(`email not regexp '(?-i)${PATTERNS.email.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`)} as daily_invalid_email_format_found,
  100.0 * ${when("status in ('new', 'paid', 'shipped', 'cancelled')")} / count(status) as daily_text_found_in_set_percent,
  100.0 * ${when(`upper(country) in (${sqlList(COUNTRY_CODES)})`)} / count(country) as daily_text_valid_country_code_percent,
  count(distinct case when status in ('new', 'paid', 'refunded') then status end) as daily_expected_text_values_in_use_count,
  100.0 * ${when("created_at > timestamp '2025-01-01 00:00:00'")} / count(created_at) as daily_date_values_in_future_percent,
  timestampdiff(second, max(created_at), timestamp '2025-01-01 00:00:00') / 86400e0 as daily_data_freshness,
  ${when('not (quantity >= 0 and amount > -50)')} as daily_sql_condition_failed_on_table,
  (select count(*) from (select 1 from ${table} where customer_id is not null or country is not null group by customer_id, country having count(*) > 1) as repeated) as daily_duplicate_record_count
from ${table}`;
}

// ---------------------------------------------------------------------------------------------------------------

interface Measured {
  engine: EngineName;
  checks: number;
  version: string;
  loadMs: number;
  handWritten: number[];
  inProcess: number[];
  wholeProcess: number[];
  nodeStart: number[];
  handProcess: number[];
  queries: number;
}

async function timedQuery(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function measureEngine(engine: EngineName, options: Options, folder: string): Promise<Measured> {
  const storeName = `dqctl_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${storeName} template template0`);
  const storeUrl = new URL(SERVER);
  storeUrl.pathname = `/${storeName}`;
  const store = await openStore({ databaseUrl: storeUrl.toString() });
  const dataSources = new DataSources({ env: { BENCH_MARIADB_PASSWORD: MARIADB_PASSWORD } });
  let server: MariadbServer | undefined;
  try {
    process.stderr.write(`bench:checks:dialects: ${engine}: loading ${options.rows.toLocaleString('en-US')} rows…\n`);
    const loadStarted = performance.now();
    let connection: JsonObject;
    let hand: string;
    let version: string;
    if (engine === 'duckdb') {
      const dir = join(folder, BENCH_SCHEMA, BENCH_TABLE);
      mkdirSync(dir, { recursive: true });
      const instance = await DuckDBInstance.create(':memory:');
      const writer = await instance.connect();
      await writer.run("set TimeZone = 'UTC'");
      await writer.run(duckdbGenerator(options.rows, join(dir, 'part-0.parquet')));
      writer.closeSync();
      instance.closeSync();
      connection = { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'parquet', directories: { [BENCH_SCHEMA]: join(folder, BENCH_SCHEMA) } }, parallel_jobs_limit: 2 };
      hand = '';
      version = '';
    } else {
      server = await startMariadb({ bufferPoolSize: '512M' });
      await server.admin(mariadbGenerator(options.rows));
      connection = { provider_type: 'mariadb', mariadb: { host: '127.0.0.1', port: String(server.port), database: BENCH_SCHEMA, user: MARIADB_USER, password: '${BENCH_MARIADB_PASSWORD}' }, parallel_jobs_limit: 2 };
      hand = mariadbHandWritten();
      version = '';
    }
    const loadMs = performance.now() - loadStarted;
    const source: DataSource = dataSources.get('bench', connection);
    const target = await source.sqlTarget(BENCH_SCHEMA, BENCH_TABLE);
    if (engine === 'duckdb') hand = duckdbHandWritten(target.relation!);
    version = String((await source.query<{ v: string }>(engine === 'duckdb' ? 'select version() as v' : 'select version() as v'))[0]!.v);

    // the workload: MariaDB has no percentile aggregate (nor a DQOps mysql/mariadb percentile sensor)
    const checks = BENCH_CHECKS.filter((c) => engine === 'duckdb' || c.check !== 'daily_median_in_range');
    const sensors = benchSensors().filter((s) => checks.some((c) => c.check === s.id));
    const plan = planSensorQueries({ ...benchRequest(sensors), ...target });
    if (plan.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(plan.rejected)}`);

    // correctness: dqctl's readouts = the hand-written values
    const readouts = new Map<string, number | null>();
    for (const query of plan.queries) for (const [id, values] of query.parse(await source.query(query.text, query.values))) readouts.set(id, values[0]?.actualValue ?? null);
    const handRow = (await source.query<Record<string, unknown>>(hand))[0]!;
    const wrong = checks.filter((c) => !same(readouts.get(c.check) ?? null, handRow[c.check])).map((c) => `${c.check}: dqctl ${readouts.get(c.check)}, hand-written ${String(handRow[c.check])}`);
    if (wrong.length > 0) throw new Error(`${engine}: dqctl and the hand-written query disagree:\n  ${wrong.join('\n  ')}`);

    // the live store: the connection and the table file's checks, as `dqctl apply` leaves them
    const objects = new LiveObjects(store, { revisionCheckMs: 0 });
    await objects.create('source', 'bench', connection, { caller: 'bench' });
    const spec = benchTableSpec() as JsonObject;
    if (engine !== 'duckdb') {
      const columns = spec.columns as Record<string, { monitoring_checks: { daily: Record<string, Record<string, unknown>> } }>;
      delete columns.amount!.monitoring_checks.daily.numeric?.daily_median_in_range;
    }
    await objects.create('table', `bench/${BENCH_SCHEMA}.${BENCH_TABLE}`, spec, { caller: 'bench' });
    const inProcess = async (): Promise<number> => {
      const started = performance.now();
      // the clock of the whole-process runs (the CLI's), so both write the same day's results and incidents
      const { result } = await runChecksOf({ store, objects, dataSources }, { check_search_filters: { connection: 'bench' } }, new AbortController().signal);
      if (result.executed_checks !== checks.length || result.execution_errors > 0) throw new Error(`${engine}: run checks: ${JSON.stringify(result)}`);
      return performance.now() - started;
    };
    const env = { ...process.env, DQCTL_DATABASE_URL: storeUrl.toString(), BENCH_MARIADB_PASSWORD: MARIADB_PASSWORD, NO_COLOR: '1' };
    const wholeProcess = (): number => {
      const started = performance.now();
      const child = spawnSync(process.execPath, [join(ROOT, 'bin/dqctl.js'), 'run', 'checks', '--connection', 'bench'], { env, encoding: 'utf8' });
      const elapsed = performance.now() - started;
      // exit 0 (valid) or the exit code of a failed check (the workload has problems on purpose); not an execution error
      if (!/Ran \d+ checks/.test(child.stdout) || /[1-9]\d* execution errors/.test(child.stdout)) throw new Error(`${engine}: dqctl run checks: ${child.stdout}\n${child.stderr}`);
      return elapsed;
    };
    // (d): the hand-written query in a process of its own, through the same driver, for context
    const handScript =
      engine === 'duckdb'
        ? `const { DuckDBInstance } = require('@duckdb/node-api');
           (async () => { const instance = await DuckDBInstance.create(':memory:'); const connection = await instance.connect();
             await connection.run("set TimeZone = 'UTC'"); const reader = await connection.runAndReadAll(process.env.BENCH_HAND_QUERY);
             process.stdout.write(String(reader.getRowObjectsJS().length)); connection.closeSync(); instance.closeSync(); })();`
        : `const mysql = require('mysql2/promise');
           (async () => { const connection = await mysql.createConnection({ host: '127.0.0.1', port: Number(process.env.BENCH_MARIADB_PORT), user: process.env.BENCH_MARIADB_USER, password: process.env.BENCH_MARIADB_PASSWORD, database: process.env.BENCH_MARIADB_DATABASE });
             const [rows] = await connection.query(process.env.BENCH_HAND_QUERY); process.stdout.write(String(rows.length)); await connection.end(); })();`;
    const handEnv = { ...env, BENCH_HAND_QUERY: hand, BENCH_MARIADB_PORT: String(server?.port ?? ''), BENCH_MARIADB_USER: MARIADB_USER, BENCH_MARIADB_DATABASE: BENCH_SCHEMA };
    const handProcess = (): number => {
      const started = performance.now();
      const child = spawnSync(process.execPath, ['-e', handScript], { env: handEnv, encoding: 'utf8', cwd: ROOT });
      const elapsed = performance.now() - started;
      if (child.status !== 0 || child.stdout !== '1') throw new Error(`${engine}: the hand-written query as a process: ${child.stdout}\n${child.stderr}`);
      return elapsed;
    };
    const nodeStart = (): number => {
      const started = performance.now();
      spawnSync(process.execPath, [join(ROOT, 'bin/dqctl.js'), '--version'], { env, encoding: 'utf8' });
      return performance.now() - started;
    };
    // warm-up: the engine's caches, the store's first reads
    await inProcess();
    wholeProcess();
    handProcess();
    const measured: Measured = { engine, checks: checks.length, version, loadMs, handWritten: [], inProcess: [], wholeProcess: [], nodeStart: [], handProcess: [], queries: plan.queries.length };
    for (let round = 0; round < options.rounds; round++) {
      process.stderr.write(`bench:checks:dialects: ${engine}: round ${round + 1} of ${options.rounds}\n`);
      measured.handWritten.push(await timedQuery(() => source.query(hand)));
      measured.inProcess.push(await inProcess());
      measured.wholeProcess.push(wholeProcess());
      measured.nodeStart.push(nodeStart());
      measured.handProcess.push(handProcess());
      // each round's figures, to judge the spread on a loaded machine
      process.stderr.write(`  (a) ${ms(measured.handWritten[round]!)}  (b) ${ms(measured.inProcess[round]!)}  (c) ${ms(measured.wholeProcess[round]!)}  (d) ${ms(measured.handProcess[round]!)}  load ${loadavg()[0]!.toFixed(1)}\n`);
    }
    return measured;
  } finally {
    await dataSources.close();
    await store.close();
    await server?.stop();
    await admin.query(`drop database if exists ${storeName} with (force)`);
    await admin.end();
  }
}

function report(options: Options, results: Measured[], totalMs: number): string {
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: HERE, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const lines = [
    SECTION_START,
    '## Check runs on DuckDB and MariaDB (`npm run bench:checks:dialects`)',
    '',
    `Written by bench/checksDialects.ts on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (commit ${commit}); the whole run took ${Math.round(totalMs / 1000)} s. ` +
      `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared with other sessions, so the figures move between runs).`,
    '',
    `The table of \`npm run bench:checks\` (${options.rows.toLocaleString('en-US')} rows, 10 columns, the same values) as one Parquet file read by a \`duckdb\` connection, and as an InnoDB table of a private MariaDB server (buffer pool 512 MiB); the 30 checks of bench/checksWorkload.ts (29 on MariaDB: no median, MariaDB has no percentile aggregate). Every dqctl readout equals the hand-written query's value (checked before timing). The store is a PostgreSQL database on the same machine. Medians of ${options.rounds} rounds.`,
    '',
    '| engine | (a) hand-written query | (b) run checks, in process | (c) run checks, whole process | (b) / (a) | (c) / (a) | target (c) ≤ 1.1 × (a) | Node.js start + `--version` | (d) hand-written query, whole process | (c) / (d) |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const r of results) {
    const a = median(r.handWritten);
    const b = median(r.inProcess);
    const c = median(r.wholeProcess);
    lines.push(`| ${r.engine === 'duckdb' ? `DuckDB ${r.version}, Parquet` : `MariaDB ${r.version}`} (${r.checks} checks, ${r.queries} queries) | ${ms(a)} | ${ms(b)} | ${ms(c)} | ${(b / a).toFixed(2)}x | ${(c / a).toFixed(2)}x | **${c / a <= LIMIT ? 'PASS' : 'FAIL'}** | ${ms(median(r.nodeStart))} | ${ms(median(r.handProcess))} | ${(c / median(r.handProcess)).toFixed(2)}x |`);
  }
  lines.push(
    '',
    'What the ratios hold: (b) adds to the data source\'s work the store reads, the rules and the 30 results written in one transaction; (c) adds the start of a Node.js process that loads dqctl, opens the store and exits (the `--version` column: a process that loads dqctl and exits). (d), for context only: the hand-written query as a whole process (Node.js started, the driver loaded, a new DuckDB instance or one MariaDB connection, the query, exit); the target is still measured against (a). dqctl\'s sensor SQL runs the 29 aggregate checks in ONE scan plus the duplicate-record query of its own, as the hand-written query does in one statement with a subquery; on MariaDB, whose statements run on one core, the duplicate-record query runs beside the scan on a second session of the connection.',
    SECTION_END,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const folder = mkdtempSync(join(tmpdir(), 'dqctl-bench-dialects-'));
  try {
    const results: Measured[] = [];
    for (const engine of options.engines) results.push(await measureEngine(engine, options, folder));
    const text = report(options, results, performance.now() - started);
    console.log(text);
    if (options.write) {
      await writeBenchmarkSection(text, SECTION_START, SECTION_END);
      console.log('BENCHMARKS.md updated');
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
