/**
 * `npm run bench:dqopsdata`: what moving a large DQOps home costs. A `.data/` folder written here with DuckDB's
 * Parquet writer holds N readouts and their N check results (default 500,000 + 500,000 = 1,000,000 rows: 20 tables
 * × 25 checks × 1,000 days, one file per table, month and kind as DQOps writes them), and one whole
 * `dqctl import dqops-data HOME --database URL` process imports it into a fresh PostgreSQL store.
 * Target: under 60 s, wall clock of the process. Memory: its peak RSS (GNU time's maximum resident set size), which
 * must stay bounded (the files are streamed in batches, never loaded whole): it is also measured for a home of a
 * tenth of the size, and the two peaks are reported side by side.
 *
 *   npm run bench:dqopsdata                    # writes BENCHMARKS.md
 *   npm run bench:dqopsdata -- --days 100      # smoke run (a tenth); prints only
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 *
 * Correctness first: the store must hold every readout, each with its verdict, and the import's own counts must
 * agree, else the bench fails and BENCHMARKS.md is left alone.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { importDqopsData } from '../src/app/dqopsData.js';
import { openStore } from '../src/store/openStore.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/dqopsData.ts: DQOps history import (start) -->';
const SECTION_END = '<!-- bench/dqopsData.ts: DQOps history import (end) -->';
const TABLES = 20;
const CHECKS = 25;
const LIMIT_MS = 60_000;
const BIN = resolve(import.meta.dirname, '..', 'bin', 'dqctl.js');
const GNU_TIME = '/usr/bin/time';

function parseOptions(argv: string[]): { days: number; write: boolean } {
  const options = { days: 1000, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--days') options.days = Number(argv[++i]);
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.days !== 1000) options.write = false;
  return options;
}

const serverUrl = () => process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
function databaseUrl(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}
async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Writes `days` days of readouts and results of TABLES × CHECKS checks from 2022-01-01, one file per table, month and kind. */
export async function writeHome(home: string, days: number): Promise<{ files: number; rows: number; bytes: number }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const duck = await instance.connect();
  const q = (text: string) => `'${text.replace(/'/g, "''")}'`;
  try {
    await duck.run(`create table r as
      select 'r-' || t || '-' || c || '-' || strftime(d, '%Y%m%d') as id, (1000 + hash(t, c, d) % 100)::double as actual_value,
        d::timestamp as time_period, d::timestamptz as time_period_utc, 'day' as time_gradient, 'all data' as data_group_name,
        0::bigint as data_group_hash, 'bench' as connection_name, 'postgresql' as provider, 'public' as schema_name, 'table_' || t as table_name,
        null::varchar as column_name, (hash(t, c) >> 1)::bigint as check_hash, 'check_' || c as check_name, 'monitoring' as check_type,
        'volume' as check_category, 'Completeness' as quality_dimension, 'table/volume/row_count' as sensor_name,
        (d + interval 1 hour)::timestamptz as executed_at, 12::integer as duration_ms, t, strftime(d, '%Y-%m') as month
      from range(${TABLES}) a(t), range(${CHECKS}) b(c), generate_series(timestamp '2022-01-01', timestamp '2022-01-01' + interval ${days - 1} day, interval 1 day) g(d)`);
    const partitions = (await duck.runAndReadAll('select distinct t, month from r order by t, month')).getRowObjectsJson();
    const columns = 'id, actual_value, time_period, time_period_utc, time_gradient, data_group_name, data_group_hash, connection_name, provider, schema_name, table_name, column_name, check_hash, check_name, check_type, check_category, quality_dimension, sensor_name, executed_at, duration_ms';
    for (const { t, month } of partitions) {
      const folder = join('c=bench', `t=public.table_${t}`, `m=${month}-01`);
      const where = `from r where t = ${t} and month = ${q(String(month))}`;
      await mkdir(join(home, '.data', 'sensor_readouts', folder), { recursive: true });
      await mkdir(join(home, '.data', 'check_results', folder), { recursive: true });
      await duck.run(`copy (select ${columns} ${where}) to ${q(join(home, '.data', 'sensor_readouts', folder, 'sensor_readout.0.parquet'))} (format parquet)`);
      await duck.run(
        `copy (select ${columns}, (actual_value > 1090)::integer as severity, 0::bigint as incident_hash, true as include_in_kpi, 1090.0::double as warning_upper_bound ${where})
          to ${q(join(home, '.data', 'check_results', folder, 'check_results.0.parquet'))} (format parquet)`,
      );
    }
    const bytes = Number(execFileSync('du', ['-sb', join(home, '.data')], { encoding: 'utf8' }).split('\t')[0]);
    return { files: partitions.length * 2, rows: TABLES * CHECKS * days * 2, bytes };
  } finally {
    duck.closeSync();
    instance.closeSync();
  }
}

interface ImportRun {
  ms: number;
  peakRssMiB: number;
  kinds: Record<string, { rows: number; new: number }>;
}

/** One whole `dqctl import dqops-data` process under GNU time (its maximum resident set size). */
async function importProcess(home: string, storeUrl: string, workDir: string): Promise<ImportRun> {
  const timeFile = join(workDir, `time-${randomBytes(4).toString('hex')}.txt`);
  const started = performance.now();
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(GNU_TIME, ['-f', '%M', '-o', timeFile, process.execPath, BIN, 'import', 'dqops-data', home, '--database', storeUrl, '--format', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', fail);
    child.on('close', (exit) => done({ code: exit, stdout: out, stderr: err }));
  });
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`dqctl import dqops-data exited ${code}: ${stderr}`);
  const peakKiB = Number((await readFile(timeFile, 'utf8')).trim().split('\n').pop());
  return { ms, peakRssMiB: peakKiB / 1024, kinds: (JSON.parse(stdout) as { kinds: ImportRun['kinds'] }).kinds };
}

/** A fresh store database (migrated by a first `import` of an empty home would also do; an explicit migrate is clearer). */
async function freshStore(name: string): Promise<string> {
  await onServer(serverUrl(), (c) => c.query(`create database "${name}"`));
  return databaseUrl(name);
}

/**
 * The floor, measured in the same store right after the import: PostgreSQL itself copying the imported rows
 * into an empty table with the same columns and indexes (`insert … select`, no client, no parsing), so the
 * import's time can be read against what the writes alone cost on this machine at this load.
 */
async function floorMs(url: string): Promise<number> {
  return onServer(url, async (c) => {
    await c.query('create table dqctl.check_results_floor (like dqctl.check_results including all)');
    const started = performance.now();
    await c.query('insert into dqctl.check_results_floor select * from dqctl.check_results');
    const ms = performance.now() - started;
    await c.query('drop table dqctl.check_results_floor');
    return ms;
  });
}

/** The same import in this process (importDqopsData on a store opened here): the whole process less its start and migration. */
async function inProcessMs(home: string): Promise<number> {
  const name = `dqctl_bench_dqopsdata_${randomBytes(4).toString('hex')}`;
  const url = await freshStore(name);
  const store = await openStore({ databaseUrl: url });
  try {
    const started = performance.now();
    await importDqopsData(store, { home, dryRun: false });
    return performance.now() - started;
  } finally {
    await store.close();
    await onServer(serverUrl(), (c) => c.query(`drop database if exists "${name}" with (force)`));
  }
}

async function measure(days: number, workDir: string): Promise<{ days: number; home: Awaited<ReturnType<typeof writeHome>>; writeMs: number; run: ImportRun; floorMs: number; inProcessMs: number }> {
  const home = join(workDir, `home-${days}`);
  const writeStarted = performance.now();
  const written = await writeHome(home, days);
  const writeMs = performance.now() - writeStarted;
  const name = `dqctl_bench_dqopsdata_${randomBytes(4).toString('hex')}`;
  const url = await freshStore(name);
  try {
    const run = await importProcess(home, url, workDir);
    // correctness: every readout stored once, each with its verdict; the command's counts agree
    const half = written.rows / 2;
    const [row] = await onServer(url, async (c) => (await c.query<{ all: number; judged: number; hashes: number }>(
      `select count(*)::integer as all, count(*) filter (where verdict)::integer as judged, count(distinct check_hash)::integer as hashes from dqctl.check_results`,
    )).rows);
    if (row.all !== half || row.judged !== half) throw new Error(`the store holds ${row.all} rows (${row.judged} judged), expected ${half} (${half})`);
    if (run.kinds.sensor_readouts.new !== half || run.kinds.check_results.rows !== half) throw new Error(`import counts ${JSON.stringify(run.kinds)} disagree with ${half}`);
    return { days, home: written, writeMs, run, floorMs: await floorMs(url), inProcessMs: await inProcessMs(home) };
  } finally {
    await onServer(serverUrl(), (c) => c.query(`drop database if exists "${name}" with (force)`));
    await rm(home, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} (GNU time) is needed to measure the process's peak RSS`);
  if (!existsSync(join(import.meta.dirname, '..', 'dist', 'cli', 'main.js'))) throw new Error('build dist/ first: npx tsc -p tsconfig.build.json && node scripts/compile-validators.mjs');
  const workDir = await mkdtemp(join(tmpdir(), 'dqctl-bench-dqopsdata-'));
  try {
    const small = await measure(Math.max(1, Math.round(options.days / 10)), workDir);
    const large = await measure(options.days, workDir);
    const rows = (m: typeof large) =>
      `| ${fmt(m.home.rows)} (${fmt(m.home.rows / 2)} readouts + ${fmt(m.home.rows / 2)} results) | ${fmt(m.home.files)} | ${(m.home.bytes / 2 ** 20).toFixed(1)} MiB | ${fmt(m.run.ms)} ms | ${fmt(m.home.rows / (m.run.ms / 1000))} rows/s | ${fmt(m.run.peakRssMiB)} MiB | ${fmt(m.inProcessMs)} ms | ${fmt(m.floorMs)} ms |`;
    const pass = large.run.ms < LIMIT_MS;
    const section = [
      SECTION_START,
      '## DQOps history import: `dqctl import dqops-data` of 1,000,000 readouts and results into PostgreSQL',
      '',
      `Written by \`npm run bench:dqopsdata\` (bench/dqopsData.ts). Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).`,
      '',
      `A DQOps \`.data/\` folder written by DuckDB's Parquet writer: ${TABLES} tables × ${CHECKS} checks × N days of one connection, a readout and a check result per check and day, one file per table, month and kind (DQOps's layout). Each import is one whole process (\`node bin/dqctl.js import dqops-data HOME --database URL --format json\`: start, open and migrate a fresh store database, read every file in batches, upsert in one transaction, exit); its time is wall clock, its peak RSS GNU time's maximum resident set size of the process (the PostgreSQL server's memory is not counted).`,
      '',
      '| rows imported | files | size | whole process | rate | peak RSS | in-process import | floor: PostgreSQL copying the stored rows |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      rows(small),
      rows(large),
      '',
      `| target | measured | limit | result |`,
      '|---|---:|---:|---|',
      `| 1,000,000 readouts and results, whole process | ${fmt(large.run.ms)} ms | < ${fmt(LIMIT_MS)} ms | **${pass ? 'PASS' : 'FAIL'}** |`,
      `| memory bounded: peak RSS at 10× the rows | ${fmt(large.run.peakRssMiB)} MiB vs ${fmt(small.run.peakRssMiB)} MiB | (bounded) | **${large.run.peakRssMiB < small.run.peakRssMiB * 2 ? 'PASS' : 'FAIL'}** |`,
      '',
      'In-process: the same import called in the bench\'s own process (`importDqopsData` on a store opened there, a fresh database): the whole process less its start and the store\'s migration. The floor (same run, same store, right after the import): `insert into <empty copy of dqctl.check_results with its indexes> select * from dqctl.check_results`, what writing the imported rows costs PostgreSQL itself with no client and no parsing. The import reads every file with DuckDB (up to 100 files per query, each row built as a CSV line by DuckDB), stages the rows by COPY into temporary tables and stores them with one upsert per kind (src/store/dqopsDataRows.ts).',
      '',
      'Checked before writing: the store holds every readout once, each with its verdict, and the command\'s counts agree.',
      SECTION_END,
    ].join('\n');
    process.stdout.write(section + '\n');
    if (options.write) await writeBenchmarkSection(section, SECTION_START, SECTION_END);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
