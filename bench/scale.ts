/**
 * `npm run bench:scale`: the repository figures of issue 25 as a user meets them: whole `dqctl` processes (the built
 * CLI, bin/dqctl.js) against the baselines (bench/readBaseline.mjs, plain Node.js), each command in a process of its
 * own, baseline and command one after the other in each round, the median of the rounds' ratios reported.
 *
 *   npm run build && npm run bench:scale -- --tables 100000 --connections 100 --write
 *   options: --tables N (10000) --connections N (50) --rounds N (3) --engines postgres,pglite (both)
 *            --repository DIR (a repository of bench/generateRepository.ts to copy instead of generating one)
 *            --write (write the section of BENCHMARKS.md for this size)
 *   env:     BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres): the server
 *            on which the PostgreSQL stores are created (and dropped at the end)
 *
 * Steps: validate without a parse cache (the first run of a clone) and with it; per engine: apply into a new store
 * (warm parse cache), plan with nothing changed since that apply (the store answers), and plan after one table file
 * was changed (a different file each round, changed back afterwards; the plan is asserted to update exactly that
 * table). Peak RSS is each process's own (process.resourceUsage().maxRSS, written at its exit by bench/peakRss.cjs).
 * Everything runs in temporary folders: the parse cache (DQCTL_CACHE_DIR), the embedded store, the copy of the
 * repository.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { generateRepository, mutateRepository } from './generateRepository.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'dqctl.js');
const BASELINE = join(ROOT, 'bench', 'readBaseline.mjs');
const PEAK_RSS = join(ROOT, 'bench', 'peakRss.cjs');
const GIB_KIB = 1024 * 1024;

type Engine = 'postgres' | 'pglite';

interface Options {
  tables: number;
  connections: number;
  rounds: number;
  engines: Engine[];
  repository: string | null;
  write: boolean;
}

/** One process: its wall time (what a user waits for), its peak RSS and its stdout. */
interface Run {
  ms: number;
  peakKiB: number;
  stdout: string;
  load: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, connections: 50, rounds: 3, engines: ['postgres', 'pglite'], repository: null, write: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--tables') options.tables = Number(value());
    else if (flag === '--connections') options.connections = Number(value());
    else if (flag === '--rounds') options.rounds = Number(value());
    else if (flag === '--engines') options.engines = value().split(',') as Engine[];
    else if (flag === '--repository') options.repository = resolve(value());
    else if (flag === '--write') options.write = true;
    else throw new Error(`unknown option ${flag} (see the comment at the top of bench/scale.ts)`);
  }
  if (!(options.tables > 0 && options.connections > 0 && options.rounds > 0)) throw new Error('--tables, --connections and --rounds must be positive');
  for (const e of options.engines) if (e !== 'postgres' && e !== 'pglite') throw new Error(`unknown engine ${e}`);
  return options;
}

/** Runs one process to its end and measures it; a non-zero exit (other than `okCodes`) fails the bench with its stderr. */
async function runProcess(args: string[], env: NodeJS.ProcessEnv, okCodes: number[] = [0]): Promise<Run> {
  const rssFile = join(tmpdir(), `dqctl-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const load = loadavg()[0];
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', PEAK_RSS, ...args], { env: { ...env, DQCTL_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const code = await new Promise<number>((done, fail) => {
    child.on('error', fail);
    child.on('close', (c) => done(c ?? 1));
  });
  const ms = performance.now() - started;
  if (!okCodes.includes(code)) throw new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`);
  let peakKiB = 0;
  try {
    peakKiB = Number(await readFile(rssFile, 'utf8'));
    await rm(rssFile, { force: true });
  } catch {
    // the process left no figure (killed): reported as 0
  }
  return { ms, peakKiB, stdout, load };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const ratio = (x: number): string => `${x.toFixed(2)}x`;
const mib = (kib: number): string => (kib >= GIB_KIB ? `${(kib / GIB_KIB).toFixed(2)} GiB` : `${Math.round(kib / 1024)} MiB`);

/** The plan's summary from `dqctl plan --format json`. */
function planSummary(stdout: string): { add: number; change: number; destroy: number; changes: string[] } {
  const plan = JSON.parse(stdout) as { summary: { add: number; change: number; destroy: number }; changes?: Array<{ address: string; actions: string[] }> };
  const changes = (plan.changes ?? []).map((c) => `${c.actions.join('+')} ${c.address}`);
  return { ...plan.summary, changes };
}

interface Figure {
  label: string;
  measured: string;
  limit: string;
  pass: boolean;
}

interface RoundPair {
  baseline: Run;
  command: Run;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (the bench runs the built CLI)');
  const startedAt = new Date();
  const loadAtStart = loadavg()[0];
  const work = await mkdtemp(join(tmpdir(), 'dqctl-bench-scale-'));
  const repo = join(work, 'repository');
  const cache = join(work, 'cache');
  // the store is always named on the command line, the parse cache is the run's own
  const { DQCTL_DATABASE_URL: _ignored, DQCTL_STATE_DIR: _ignoredToo, ...inherited } = process.env;
  const env = { ...inherited, DQCTL_CACHE_DIR: cache, NO_COLOR: '1' };
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const databases: string[] = [];
  const figures: Figure[] = [];
  const lines: string[] = [];
  const log = (text: string): void => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
  try {
    if (options.repository) {
      log(`copying ${options.repository}`);
      await cp(options.repository, repo, { recursive: true });
    } else {
      log(`generating ${options.tables} tables in ${options.connections} connections`);
      await generateRepository(repo, { tables: options.tables, connections: options.connections, seed: 1 });
    }
    const baseline = (mode: 'parse' | 'sha') => runProcess([BASELINE, mode, repo], env);
    const dqctl = (args: string[], okCodes?: number[]) => runProcess([CLI, ...args], env, okCodes);
    const version = await dqctl(['--version']);
    log(`dqctl --version: ${seconds(version.ms)}`);

    /** Rounds of (baseline, command); the command checks its own outcome. */
    const rounds = async (name: string, mode: 'parse' | 'sha', command: (round: number) => Promise<Run>): Promise<RoundPair[]> => {
      const pairs: RoundPair[] = [];
      for (let round = 0; round < options.rounds; round++) {
        const b = await baseline(mode);
        const c = await command(round);
        log(`${name} round ${round + 1}: ${seconds(c.ms)} (${mib(c.peakKiB)}), ${mode} ${seconds(b.ms)} → ${ratio(c.ms / b.ms)} (load ${c.load.toFixed(1)})`);
        pairs.push({ baseline: b, command: c });
      }
      return pairs;
    };
    const report = (label: string, pairs: RoundPair[], baselineLabel: string, limit: number): void => {
      const ratios = pairs.map((p) => p.command.ms / p.baseline.ms);
      const m = median(ratios);
      figures.push({ label: `${label} / ${baselineLabel}`, measured: `${ratio(m)} (${seconds(median(pairs.map((p) => p.command.ms)))} / ${seconds(median(pairs.map((p) => p.baseline.ms)))}; rounds ${ratios.map(ratio).join(', ')})`, limit: `≤ ${limit}x`, pass: m <= limit });
      const peak = Math.max(...pairs.map((p) => p.command.peakKiB));
      lines.push(`- ${label}: ${pairs.map((p) => seconds(p.command.ms)).join(', ')}; peak RSS ${mib(peak)}; loads ${pairs.map((p) => p.command.load.toFixed(1)).join(', ')}`);
    };
    const memory = (label: string, peakKiB: number): void => {
      figures.push({ label: `peak RSS of ${label}`, measured: mib(peakKiB), limit: '≤ 1.5 GiB', pass: peakKiB <= 1.5 * GIB_KIB });
    };

    // validate: the first run (no parse cache: removed before each round, as a fresh clone's CI job has none), then warm
    const parseFirst = await baseline('parse');
    report(
      'validate without a parse cache (the first run)',
      await rounds('validate without a parse cache', 'parse', async () => {
        await rm(cache, { recursive: true, force: true });
        return dqctl(['validate', repo, '--quiet']);
      }),
      'read + js-yaml parse',
      1.5,
    );
    report('validate (warm parse cache)', await rounds('validate', 'parse', () => dqctl(['validate', repo, '--quiet'])), 'read + js-yaml parse', 1.5);

    for (const engine of options.engines) {
      let storeArgs: string[];
      if (engine === 'postgres') {
        const name = `dqctl_bench_scale_${process.pid}_${Date.now()}`;
        const admin = new pg.Client({ connectionString: serverUrl });
        await admin.connect();
        await admin.query(`create database ${name} template template0`);
        await admin.end();
        databases.push(name);
        const url = new URL(serverUrl);
        url.pathname = `/${name}`;
        storeArgs = ['--database', url.toString()];
      } else {
        storeArgs = ['--state-dir', join(work, 'state')];
        // A machine's first new embedded store makes the store template (initdb in WASM, kept in DQCTL_CACHE_DIR);
        // every later one copies it. That first apply is reported; the target is checked on the next one.
        const first = await dqctl(['apply', repo, '--auto-approve', '--quiet', '--state-dir', join(work, 'state-first')]);
        log(`${engine}: the machine's first apply into a new store ${seconds(first.ms)} (${mib(first.peakKiB)})`);
        lines.push(`- ${engine}: the machine's first apply into a new store (it makes the store template): ${seconds(first.ms)}, peak RSS ${mib(first.peakKiB)}, load ${first.load.toFixed(1)}`);
        await rm(join(work, 'state-first'), { recursive: true, force: true });
      }
      const apply = await dqctl(['apply', repo, '--auto-approve', '--quiet', ...storeArgs]);
      log(`${engine}: apply into a new store ${seconds(apply.ms)} (${mib(apply.peakKiB)})`);
      const applyLimit = options.tables >= 100_000 ? 60_000 : 10_000;
      figures.push({ label: `${engine}: apply of ${options.tables.toLocaleString('en-US')} tables into a new store (warm parse cache)`, measured: seconds(apply.ms), limit: `≤ ${seconds(applyLimit)}`, pass: apply.ms <= applyLimit });
      memory(`${engine}: apply`, apply.peakKiB);
      lines.push(`- ${engine}: apply into a new store: ${seconds(apply.ms)}, peak RSS ${mib(apply.peakKiB)}, load ${apply.load.toFixed(1)}`);

      const plan = async (expectChanges: number): Promise<Run> => {
        const run = await dqctl(['plan', repo, '--format', 'json', '--quiet', ...storeArgs]);
        const summary = planSummary(run.stdout);
        const count = summary.add + summary.change + summary.destroy;
        if (count !== expectChanges) throw new Error(`${engine}: the plan has ${count} changes, expected ${expectChanges}: ${summary.changes.slice(0, 5).join('; ')}`);
        return run;
      };
      const unchanged = await rounds(`${engine}: no-change plan`, 'sha', () => plan(0));
      report(`${engine}: plan with nothing changed since the apply`, unchanged, 'read + sha256', 2);
      figures.push({ label: `${engine}: the same plan / read + js-yaml parse`, measured: ratio(median(unchanged.map((p) => p.command.ms)) / parseFirst.ms), limit: '≤ 2x', pass: median(unchanged.map((p) => p.command.ms)) / parseFirst.ms <= 2 });
      memory(`${engine}: plan (nothing changed)`, Math.max(...unchanged.map((p) => p.command.peakKiB)));

      const oneChange = await rounds(`${engine}: one-change plan`, 'parse', async (round) => {
        const originals = new Map<string, string>();
        const [file] = await mutateRepository(repo, 1 / (options.tables * 10), 1000 + round, originals);
        const original = originals.get(file)!;
        try {
          // mutateRepository wrote the change: this plan is the first after the edit (it parses that file)
          return await plan(1);
        } finally {
          await writeFile(file, original);
          log(`  changed ${relative(repo, file)} and changed it back`);
        }
      });
      report(`${engine}: plan of one changed table file (the first plan after the edit)`, oneChange, 'read + js-yaml parse', 2);
      memory(`${engine}: plan (one change)`, Math.max(...oneChange.map((p) => p.command.peakKiB)));
    }

    const section = [
      `<!-- bench/scale.ts: ${options.tables} tables (start) -->`,
      `## Whole processes at ${options.tables.toLocaleString('en-US')} tables (\`npm run bench:scale\`)`,
      '',
      `Written by bench/scale.ts on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; the whole run took ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s. ` +
        `Machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; ` +
        `load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end. Repository: ${options.tables.toLocaleString('en-US')} tables in ${options.connections} connections (bench/generateRepository.ts, seed 1). ` +
        `Each figure is a whole process of the built CLI (\`node bin/dqctl.js …\`, what a user waits for, Node.js's start included: \`dqctl --version\` took ${seconds(version.ms)}) against a whole process of the baseline (bench/readBaseline.mjs: plain Node.js, js-yaml's CommonJS build), one after the other in each of ${options.rounds} rounds; the ratio is the median of the rounds' ratios. In-process figures of the same steps: \`npm run bench\` (10,000 tables) and bench/scaleStep.ts.`,
      '',
      '| target | measured | limit | result |',
      '|---|---:|---:|---|',
      ...figures.map((f) => `| ${f.label} | ${f.measured} | ${f.limit} | ${f.pass ? 'PASS' : '**FAIL**'} |`),
      '',
      ...lines,
      `<!-- bench/scale.ts: ${options.tables} tables (end) -->`,
    ].join('\n');
    console.log(`\n${section}`);
    if (options.write) await writeBenchmarkSection(section, `<!-- bench/scale.ts: ${options.tables} tables (start) -->`, `<!-- bench/scale.ts: ${options.tables} tables (end) -->`);
  } finally {
    if (databases.length) {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      for (const name of databases) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
