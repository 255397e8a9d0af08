/**
 * `npm run bench:customrules`: what judging by a custom Python rule costs a check run. A table with 1,000 data
 * groups and two checks reading the same row count: `daily_row_count` judged by the built-in comparison/min_count,
 * and a custom check judged by `bench/min_count`, the same rule in Python. Each run is a whole `dqctl run checks`
 * process (open the store, run, judge 1,000 readouts, write, exit; the custom one also starts its python3
 * worker), the two variants alternating, on a PostgreSQL store and on the embedded one.
 * Target: the custom rule's run at most 1.5 s longer than the built-in one's (medians). Written to BENCHMARKS.md.
 *
 *   npm run bench:customrules                 # 5 rounds, writes BENCHMARKS.md
 *   npm run bench:customrules -- --rounds 2   # smoke run; prints only (add --write to write)
 *   server: DQCTL_BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres
 *
 * Correctness first: each run must store 1,000 valid results of its check, the custom rule's equal to the
 * built-in's, else the bench fails and BENCHMARKS.md is left alone.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { LiveObjects } from '../src/inspect/liveObjects.js';
import type { JsonObject } from '../src/model/index.js';
import { migrate } from '../src/store/migrate.js';
import { openSqlClient } from '../src/store/sql/openSqlClient.js';
import { createSqlStore } from '../src/store/sqlStore.js';
import type { OpenStoreOptions, Store } from '../src/store/store.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/customRules.ts: custom Python rules (start) -->';
const SECTION_END = '<!-- bench/customRules.ts: custom Python rules (end) -->';
const GROUPS = 1000;
const ROWS_PER_GROUP = 20;
const LIMIT_MS = 1500;
const BIN = resolve(import.meta.dirname, '..', 'bin', 'dqctl.js');
const VARIANTS = { builtIn: 'daily_row_count', custom: 'row_count_by_python' } as const;
type Variant = keyof typeof VARIANTS;

/** comparison/min_count, written as a DQOps rule module. */
const MIN_COUNT_PY = `
class RuleExecutionResult:
    def __init__(self, passed=None, expected_value=None, lower_bound=None, upper_bound=None):
        self.passed = passed
        self.expected_value = expected_value
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound


def evaluate_rule(rule_parameters):
    if not hasattr(rule_parameters, 'actual_value') or not hasattr(rule_parameters.parameters, 'min_count'):
        return RuleExecutionResult()
    low = rule_parameters.parameters.min_count
    return RuleExecutionResult(rule_parameters.actual_value >= low, low, low, None)
`;

function parseOptions(argv: string[]): { rounds: number; write: boolean } {
  const options = { rounds: 5, write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--rounds') options.rounds = Number(argv[++i]);
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.rounds !== 5 && !argv.includes('--write')) options.write = false;
  return options;
}

const serverUrl = () => process.env.DQCTL_BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
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

async function createSourceTable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create schema bench');
    await client.query('create table bench.events (grp text not null, id int not null)');
    await client.query(`insert into bench.events select 'group ' || lpad((g % ${GROUPS})::text, 4, '0'), g from generate_series(1, ${GROUPS * ROWS_PER_GROUP}) as g`);
    await client.query('vacuum analyze bench.events');
  } finally {
    await client.end();
  }
}

function tableSpec(): JsonObject {
  return {
    groupings: { default: { level_1: { source: 'column_value', column: 'grp' } } },
    monitoring_checks: {
      daily: {
        volume: { daily_row_count: { error: { min_count: 1 } } },
        custom: { [VARIANTS.custom]: { sensor_name: 'table/volume/row_count', rule_name: 'bench/min_count', error: { min_count: 1 } } },
      },
    },
  };
}

function connectionSpec(source: URL): JsonObject {
  return {
    provider_type: 'postgresql',
    postgresql: { host: source.hostname, port: source.port || '5432', database: source.pathname.slice(1), user: decodeURIComponent(source.username || 'postgres'), password: '${DQCTL_BENCH_PASSWORD}' },
    parallel_jobs_limit: 2,
  };
}

interface BenchStore {
  store: Store;
  objects: LiveObjects;
  emptyResults(): Promise<void>;
  close(): Promise<void>;
}

async function openBenchStore(options: OpenStoreOptions): Promise<BenchStore> {
  const client = await openSqlClient(options);
  await migrate(client);
  const store = createSqlStore(client);
  return {
    store,
    objects: new LiveObjects(store, { revisionCheckMs: 0 }),
    emptyResults: () => client.exec('truncate dqctl.check_results restart identity'),
    close: () => store.close(),
  };
}

async function runChecksProcess(storeArgs: readonly string[], check: string, password: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'run', 'checks', '--connection', 'bench', '--check', check, '--fail-at', 'fatal', ...storeArgs], {
    env: { ...process.env, DQCTL_DATABASE_URL: '', DQCTL_STATE_DIR: '', DQCTL_BENCH_PASSWORD: password },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  if (code !== 0) throw new Error(`dqctl run checks --check ${check} exited ${code}: ${err}`);
  return performance.now() - started;
}

/** The run's results of one check: 1,000 valid ones, with the same actual and expected values whatever judged them. */
async function resultsOf(bench: BenchStore, check: string): Promise<string[]> {
  const rows = await bench.store.checkResults({ connectionName: 'bench', schemaName: 'bench', tableName: 'events', checkName: check });
  if (rows.length !== GROUPS || rows.some((r) => r.severity !== 0)) throw new Error(`${check}: expected ${GROUPS} valid results, got ${rows.length} (${rows.filter((r) => r.severity !== 0).length} not valid)`);
  return rows.map((r) => `${r.dataGroup}=${r.actualValue}/${r.expectedValue}`).sort();
}

async function measure(options: OpenStoreOptions, storeArgs: readonly string[], password: string, rounds: number, label: string): Promise<Record<Variant, number[]>> {
  const times: Record<Variant, number[]> = { builtIn: [], custom: [] };
  for (let round = 0; round <= rounds; round++) {
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      const before = await openBenchStore(options);
      try {
        await before.emptyResults();
      } finally {
        await before.close();
      }
      const ms = await runChecksProcess(storeArgs, VARIANTS[variant], password);
      if (round > 0) times[variant].push(ms); // round 0 warms the caches (and checks the results)
      if (round === 0 && variant === 'custom') {
        const after = await openBenchStore(options);
        try {
          const custom = await resultsOf(after, VARIANTS.custom);
          if (custom.some((r) => !r.endsWith('=20/1'))) throw new Error('the custom rule stored other values than comparison/min_count would');
        } finally {
          await after.close();
        }
      }
      process.stderr.write(`bench:customrules: ${label} ${variant} round ${round}: ${Math.round(ms)} ms\n`);
    }
  }
  return times;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const suffix = randomBytes(4).toString('hex');
  const sourceName = `dqctl_bench_customrules_source_${suffix}`;
  const storeName = `dqctl_bench_customrules_store_${suffix}`;
  await admin(async (client) => {
    await client.query(`create database "${sourceName}"`);
    await client.query(`create database "${storeName}"`);
  });
  const sourceUrl = new URL(databaseUrl(sourceName));
  const storeUrl = databaseUrl(storeName);
  const stateDir = await mkdtemp(join(tmpdir(), 'dqctl-bench-customrules-'));
  const password = decodeURIComponent(sourceUrl.password);
  try {
    await createSourceTable(sourceUrl.toString());
    const engines = [
      { label: 'PostgreSQL', options: { databaseUrl: storeUrl } as OpenStoreOptions, args: ['--database', storeUrl] },
      { label: 'embedded (PGlite)', options: { stateDir } as OpenStoreOptions, args: ['--state-dir', stateDir] },
    ];
    const rows: string[] = [];
    let allPass = true;
    for (const engine of engines) {
      const bench = await openBenchStore(engine.options);
      try {
        await bench.objects.create('source', 'bench', connectionSpec(sourceUrl), { caller: 'bench' });
        await bench.objects.create('rule', 'bench/min_count', { type: 'python', mode: 'current_value', fields: [{ field_name: 'min_count', data_type: 'long' }] }, { caller: 'bench' }, { python_module: MIN_COUNT_PY });
        await bench.objects.create('table', 'bench/bench.events', tableSpec(), { caller: 'bench' });
      } finally {
        await bench.close();
      }
      const times = await measure(engine.options, engine.args, password, options.rounds, engine.label);
      const builtIn = median(times.builtIn);
      const custom = median(times.custom);
      const ok = custom - builtIn <= LIMIT_MS;
      allPass &&= ok;
      rows.push(`| ${engine.label} | ${fmt(builtIn)} | ${fmt(custom)} | ${custom - builtIn >= 0 ? '+' : ''}${fmt(custom - builtIn)} | ${ok ? 'pass' : 'FAIL'} |`);
    }
    const text = [
      SECTION_START,
      '## Custom Python rules (`npm run bench:customrules`)',
      '',
      `A whole \`dqctl run checks\` process (open the store, query, judge, write, exit) of one row-count check on a table with ${GROUPS.toLocaleString('en-US')} data groups: ` +
        `${GROUPS.toLocaleString('en-US')} results per run, judged by the built-in comparison/min_count or by the same rule written in Python (a custom rule: one python3 worker started by the run, ` +
        `the ${GROUPS.toLocaleString('en-US')} calls sent in one request). The variants alternate; median of ${options.rounds} runs each after one warm-up round; results emptied before every run.`,
      '',
      '| store | built-in rule (median) | custom Python rule (median) | difference | target ≤ +1.5 s |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      `Measured ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).`,
      SECTION_END,
    ].join('\n');
    process.stdout.write(`${text}\n`);
    if (options.write) {
      await writeBenchmarkSection(text, SECTION_START, SECTION_END);
      process.stderr.write('bench:customrules: wrote BENCHMARKS.md\n');
    } else {
      process.stderr.write('bench:customrules: BENCHMARKS.md left alone (smoke run; pass --write to write it)\n');
    }
    if (!allPass) process.exitCode = 1;
  } finally {
    await rm(stateDir, { recursive: true, force: true });
    await admin(async (client) => {
      await client.query(`drop database if exists "${sourceName}" with (force)`);
      await client.query(`drop database if exists "${storeName}" with (force)`);
    });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:customrules failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
