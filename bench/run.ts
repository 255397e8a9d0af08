/**
 * `npm run bench`: the 10,000-table benchmark of the issue, on both engines, written to BENCHMARKS.md.
 *
 * Generates a synthetic DQOps user home (bench/generateRepository.ts: 10,000 tables of 10 columns, checks on
 * about half of them, 50 connections, 200 policies, 20 rules by default) into a temporary folder, then for each
 * engine, in a child process of its own (so that peak RSS and the heap of one engine do not leak into the other):
 *
 *   a. lower bound: list the YAML files, fs.readFile and js-yaml load() each, nothing else (and the same with
 *      the `yaml` package's parse(), for reference);
 *   b. validate: loadRepository();
 *   c. plan against an empty store: open the store, planRepository(), close (as `dqctl plan` does);
 *   d. apply everything: open, planRepository(), applyPlan(), close (as `dqctl apply --auto-approve` does), once;
 *   e. plan with no changes (asserted: 0 to add, change, destroy);
 *   f'. plan after changing one table file (mutateRepository), while the parse cache holds the others: asserted
 *      to change exactly that table;
 *   f. plan after mutateRepository(dir, 0.01): asserted to change exactly the mutated tables.
 *
 * Steps a, b, c, e and f run `--runs` times (default 3; median and min are reported), d once per engine on a
 * fresh store (PGlite: a new state folder; PostgreSQL: a new database created from template0 on the server of
 * BENCH_DATABASE_URL / TEST_DATABASE_URL, dropped at the end). The targets of the issue are checked in the same
 * run: a no-change plan and a one-file plan within 2x of the lower bound, validate with a warm parse cache within
 * 1.5x of it, and the apply of 10,000 tables within 10 s on PGlite.
 *
 *   npm run bench                          # full size; writes the section of BENCHMARKS.md
 *   npm run bench -- --tables 500          # smoke run; prints only (add --write to write BENCHMARKS.md)
 *   options: --tables N --connections N --policies N --rules N --columns N --seed N --runs N
 *            --engines pglite,postgres --write --no-write --strict (exit 1 when a target is missed)
 *   env:     BENCH_TABLES, BENCH_RUNS, BENCH_ENGINES, BENCH_SEED, BENCH_DATABASE_URL (else TEST_DATABASE_URL)
 *
 * Correctness assertions (wrong plan counts) always fail the run with exit code 1 and leave BENCHMARKS.md alone.
 */
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cp, copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { parse as yamlParse } from 'yaml';
import { generateRepository, mutateRepository } from './generateRepository.js';
import { BENCHMARKS_FILE, writeBenchmarkSection } from './benchmarksFile.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// js-yaml's CommonJS build: the faster of its two builds on Node 20 (the baseline the issue names)
const { CORE_SCHEMA, load } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
const SECTION_START = '<!-- bench/run.ts: repository benchmark (start) -->';
const SECTION_END = '<!-- bench/run.ts: repository benchmark (end) -->';
const READ_CONCURRENCY = 64; // as src/manifest/loadRepository.ts
const MUTATE_FRACTION = 0.01;
const TARGET_NO_CHANGE_RATIO = 2;
const TARGET_VALIDATE_RATIO = 1.5;
const TARGET_APPLY_MS = 10_000;
const TARGET_APPLY_MS_100K = 60_000;
const TARGET_PEAK_KIB = 1.5 * 1024 * 1024;

type Engine = 'pglite' | 'postgres';

interface Options {
  tables: number;
  connections: number;
  policies: number;
  rules: number;
  columns: number;
  seed: number;
  runs: number;
  engines: Engine[];
  write: boolean;
  strict: boolean;
  /** Steps left out (ids of the rounds: lower_bound_yaml, validate, validate_cached, plan_one_file, plan_one_percent; fresh_validate, fresh_plan). */
  skip: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Results shared by parent and children

/** One measured step: every run's duration in ms, and the RSS high-water mark (KiB) when it ended. */
interface Step {
  id: string;
  label: string;
  runs: number[];
  peakRssKiB: number;
  /** Parts of the step (open, plan, applyPlan, close), each with its runs. */
  parts?: Array<{ label: string; runs: number[] }>;
  note?: string;
}

interface EngineResult {
  engine: Engine;
  description: string;
  steps: Step[];
  peakRssKiB: number;
  objects: number;
  mutated: number;
  /** Commands run once each in a fresh process, after the steps. */
  fresh: FreshRun[];
}

interface RepositoryStats {
  files: number;
  yamlFiles: number;
  bytes: number;
  tables: number;
  tablesWithChecks: number;
  checks: number;
  connections: number;
  policies: number;
  rules: number;
  generateMs: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const min = (xs: number[]): number => Math.min(...xs);
/**
 * Peak RSS: Linux lets a process reset its high-water mark (`5` into /proc/self/clear_refs), so each run's peak is
 * its own; elsewhere the process-wide maxRSS (which only grows) is reported.
 */
let peakResettable = true;
const resetPeakRss = (): void => {
  if (!peakResettable) return;
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    peakResettable = false;
  }
};
const peakRssKiB = (): number => {
  if (peakResettable) {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
      if (m) return Number(m[1]);
    } catch {
      // fall through
    }
  }
  return process.resourceUsage().maxRSS;
};
const fmtMs = (ms: number): string => `${Math.round(ms).toLocaleString('en-US')} ms`;
const fmtMiB = (kib: number): string => `${Math.round(kib / 1024).toLocaleString('en-US')} MiB`;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/** Merges the one-run steps that `measure` recorded round by round into one step per id, in `order`. */
function mergeSteps(steps: Step[], order: string[]): void {
  const merged: Step[] = [];
  for (const id of order) {
    const same = steps.filter((s) => s.id === id);
    if (same.length === 0) continue;
    const parts = new Map<string, number[]>();
    for (const s of same) for (const p of s.parts ?? []) parts.set(p.label, [...(parts.get(p.label) ?? []), ...p.runs]);
    merged.push({
      id,
      label: same[0].label,
      runs: same.flatMap((s) => s.runs),
      peakRssKiB: Math.max(...same.map((s) => s.peakRssKiB)),
      parts: parts.size ? [...parts].map(([label, runs]) => ({ label, runs })) : undefined,
      note: same[0].note,
    });
  }
  steps.splice(0, steps.length, ...merged);
}

/** The YAML files dqctl reads (sources/, rules/, patterns/, dqctl.yaml), relative to `dir`, with '/'. */
async function yamlFilesOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const top of ['sources', 'rules', 'patterns']) {
    let entries: string[];
    try {
      entries = await readdir(join(dir, top), { recursive: true });
    } catch {
      continue;
    }
    for (const e of entries) if (e.endsWith('.yaml')) out.push(`${top}/${e.split(sep).join('/')}`);
  }
  try {
    await readFile(join(dir, 'dqctl.yaml'));
    out.push('dqctl.yaml');
  } catch {
    // no settings file
  }
  return out;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const o: Options = {
    tables: Number(env.BENCH_TABLES ?? 10_000),
    connections: 50,
    policies: 200,
    rules: 20,
    columns: 10,
    seed: Number(env.BENCH_SEED ?? 1),
    runs: Number(env.BENCH_RUNS ?? 3),
    engines: (env.BENCH_ENGINES ?? 'pglite,postgres').split(',').map((e) => e.trim()) as Engine[],
    write: false,
    strict: false,
    skip: [],
  };
  let write: boolean | undefined;
  const numeric: Record<string, keyof Options> = {
    '--tables': 'tables', '--connections': 'connections', '--policies': 'policies', '--rules': 'rules',
    '--columns': 'columns', '--seed': 'seed', '--runs': 'runs',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag in numeric) (o as unknown as Record<string, number>)[numeric[flag]] = Number(value());
    else if (flag === '--engines') o.engines = value().split(',').map((e) => e.trim()) as Engine[];
    else if (flag === '--write') write = true;
    else if (flag === '--no-write') write = false;
    else if (flag === '--strict') o.strict = true;
    else if (flag === '--skip') o.skip = value().split(',').map((e) => e.trim()).filter(Boolean);
    else throw new Error(`unknown option ${arg} (see the comment at the top of bench/run.ts)`);
  }
  for (const key of ['tables', 'connections', 'policies', 'rules', 'columns', 'seed', 'runs'] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 0) throw new Error(`--${key} must be a non-negative integer`);
  }
  if (o.runs < 1) throw new Error('--runs must be at least 1');
  for (const e of o.engines) if (e !== 'pglite' && e !== 'postgres') throw new Error(`unknown engine ${e} (pglite, postgres)`);
  const fullSize = (o.tables === 10_000 && o.connections === 50) || (o.tables === 100_000 && o.connections === 100);
  o.write = write ?? (fullSize && o.policies === 200 && o.rules === 20 && o.columns === 10);
  return o;
}

// ---------------------------------------------------------------------------------------------------------------
// Child: measures one engine

interface ChildRequest {
  engine: Engine;
  repository: string;
  pristineSources: string;
  stateDir?: string;
  databaseUrl?: string;
  runs: number;
  seed: number;
  skip: string[];
  /** 'all': every step; 'validate' / 'plan': one command in this fresh process (for its cold time and peak RSS). */
  mode: 'all' | 'validate' | 'plan';
}

/** One command run alone in a fresh process. */
interface FreshRun {
  label: string;
  ms: number;
  peakRssKiB: number;
}

async function runOnce(req: ChildRequest): Promise<FreshRun> {
  const [{ loadRepository }, { planRepository }, { openStore }] = await Promise.all([
    import('../src/manifest/loadRepository.js'),
    import('../src/app/planRepository.js'),
    import('../src/store/openStore.js'),
  ]);
  const t0 = performance.now();
  if (req.mode === 'validate') {
    const desired = await loadRepository(req.repository);
    if (desired.diagnostics.some((d) => d.severity === 'error')) throw new Error('validate: the repository has errors');
  } else {
    const store = await openStore(req.engine === 'pglite' ? { stateDir: req.stateDir } : { databaseUrl: req.databaseUrl });
    try {
      const { plan } = await planRepository({ repository: req.repository, store });
      if (plan.changes.length !== 0) throw new Error(`fresh no-change plan: ${JSON.stringify(plan.summary)}`);
    } finally {
      await store.close();
    }
  }
  const ms = performance.now() - t0;
  return {
    label: req.mode === 'validate' ? 'validate without a parse cache (loadRepository: the first run)' : 'plan, no changes (open + plan + close)',
    ms,
    peakRssKiB: process.resourceUsage().maxRSS,
  };
}

async function runEngine(req: ChildRequest): Promise<EngineResult> {
  const [{ loadRepository }, { planRepository }, { applyPlan }, { openStore }, { validateRepository }] = await Promise.all([
    import('../src/manifest/loadRepository.js'),
    import('../src/app/planRepository.js'),
    import('../src/apply/applyPlan.js'),
    import('../src/store/openStore.js'),
    import('../src/app/validateRepository.js'),
  ]);
  type Store = Awaited<ReturnType<typeof openStore>>;
  type PlanResult = Awaited<ReturnType<typeof planRepository>>;
  const dir = req.repository;
  const storeOptions = req.engine === 'pglite' ? { stateDir: req.stateDir } : { databaseUrl: req.databaseUrl };
  const steps: Step[] = [];
  const log = (text: string): void => void process.stderr.write(`[${req.engine}] ${text}\n`);

  /** Runs `fn` `count` times (gc first, untimed: every command starts with a fresh heap), records the step. */
  async function measure(
    id: string,
    label: string,
    count: number,
    fn: (parts: Map<string, number>) => Promise<void>,
    note?: string,
  ): Promise<void> {
    const runs: number[] = [];
    const partRuns = new Map<string, number[]>();
    let peak = 0;
    for (let i = 0; i < count; i++) {
      gc();
      resetPeakRss();
      const parts = new Map<string, number>();
      const t0 = performance.now();
      await fn(parts);
      const ms = performance.now() - t0;
      runs.push(ms);
      peak = Math.max(peak, peakRssKiB());
      for (const [k, v] of parts) partRuns.set(k, [...(partRuns.get(k) ?? []), v]);
      log(`${label}: run ${i + 1}/${count} ${fmtMs(ms)}${parts.size ? ` (${[...parts].map(([k, v]) => `${k} ${fmtMs(v)}`).join(', ')})` : ''}`);
    }
    steps.push({
      id,
      label,
      runs,
      peakRssKiB: peak,
      parts: partRuns.size ? [...partRuns].map(([l, r]) => ({ label: l, runs: r })) : undefined,
      note,
    });
  }

  const timed = async <T>(parts: Map<string, number>, name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      parts.set(name, performance.now() - t0);
    }
  };

  /** What `dqctl plan` does: open the store, plan, close. */
  const planCommand = async (parts: Map<string, number>): Promise<PlanResult> => {
    const store: Store = await timed(parts, 'open', () => openStore({ ...storeOptions, operation: 'bench plan' }));
    try {
      return await timed(parts, 'planRepository', () => planRepository({ repository: dir, store }));
    } finally {
      await timed(parts, 'close', () => store.close());
    }
  };

  // a. lower bound, b. validate and e. the no-change plan are measured in interleaved rounds (a, a', b, e; a, a',
  // b, e; ...) after the apply, so that their ratios compare runs made under the same load of the machine.
  const lowerBound = async (parse: (text: string) => unknown): Promise<void> => {
    const files = await yamlFilesOf(dir);
    let parsed = 0;
    await forEachLimited(files, READ_CONCURRENCY, async (file) => {
      const text = await readFile(join(dir, file), 'utf8');
      if (parse(text) !== undefined) parsed++;
    });
    if (parsed !== files.length) throw new Error(`lower bound: parsed ${parsed} of ${files.length} files`);
  };
  let objectCount = 0;
  const validate = async (): Promise<void> => {
    const desired = await loadRepository(dir);
    const errors = desired.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`validate: the generated repository has ${errors.length} errors, first: ${errors[0].summary}`);
    objectCount = desired.objects.length;
  };
  await validate(); // untimed: the object count the plan assertions need

  // c. plan against an empty store
  await measure('plan_empty', 'c. plan, empty store (open + plan + close)', req.runs, async (parts) => {
    const { plan } = await planCommand(parts);
    const s = plan.summary;
    if (s.add !== objectCount || s.change !== 0 || s.destroy !== 0) {
      throw new Error(`plan against the empty store: expected ${objectCount} to add, got ${JSON.stringify(s)}`);
    }
  }, req.engine === 'pglite' ? 'the first run creates the PGlite database in a new state folder' : undefined);

  // d. apply of everything, once, on the fresh store
  await measure('apply', 'd. apply everything (open + plan + applyPlan + close)', 1, async (parts) => {
    const store: Store = await timed(parts, 'open', () => openStore({ ...storeOptions, operation: 'bench apply' }));
    try {
      const { plan } = await timed(parts, 'planRepository', () => planRepository({ repository: dir, store }));
      if (plan.summary.add !== objectCount || plan.changes.length !== objectCount) {
        throw new Error(`apply: expected ${objectCount} objects to add, got ${JSON.stringify(plan.summary)}`);
      }
      const result = await timed(parts, 'applyPlan', () =>
        applyPlan(plan, store, { holder: `dqctl-bench (pid ${process.pid})`, appliedBy: 'dqctl-bench', lockTimeoutMs: 30_000 }),
      );
      if (result.applied.add !== objectCount) throw new Error(`apply: applied ${JSON.stringify(result.applied)}, expected ${objectCount} adds`);
    } finally {
      await timed(parts, 'close', () => store.close());
    }
  });

  // a, a', b, e in rounds
  const rounds: Array<Parameters<typeof measure>> = [
    ['lower_bound', 'a. lower bound: read + js-yaml load (CORE_SCHEMA)', 1, () => lowerBound((text) => load(text, { schema: CORE_SCHEMA }))],
    ['lower_bound_yaml', "a'. reference: read + yaml parse()", 1, () => lowerBound((text) => yamlParse(text))],
    ['read_sha256', "a''. read + sha256 of every file", 1, () => lowerBound((text) => createHash('sha256').update(text).digest('hex'))],
    ['validate', 'b. validate without a parse cache (loadRepository)', 1, validate],
    ['validate_cached', "b'. validate, what `dqctl validate` runs (validateRepository: the persisted parse cache, warm)", 1, async () => {
      const v = await validateRepository(dir);
      if (v.objectCount !== objectCount) throw new Error(`validate (cached): ${v.objectCount} objects, expected ${objectCount}`);
    }],
    ['plan_no_change', 'e. plan, no changes (open + plan + close)', 1, async (parts) => {
      const { plan } = await planCommand(parts);
      const s = plan.summary;
      if (s.add !== 0 || s.change !== 0 || s.destroy !== 0 || plan.changes.length !== 0) {
        throw new Error(`the plan right after apply must have no changes; it has ${JSON.stringify(s)} (${plan.changes.length} changes, first: ${
          plan.changes[0] ? `${plan.changes[0].action} ${plan.changes[0].key.kind} ${plan.changes[0].key.name}` : '-'})`);
      }
    }],
  ];
  for (let round = 0; round < req.runs; round++) for (const args of rounds) if (!req.skip.includes(args[0])) await measure(...args);
  mergeSteps(steps, ['plan_empty', 'apply', 'lower_bound', 'lower_bound_yaml', 'read_sha256', 'validate', 'validate_cached', 'plan_no_change']);

  /**
   * f. and f'. plan after changing some table files (open + plan + close), asserted to update exactly the tables
   * of the changed files; the files are put back as generated afterwards (for the next step and engine).
   */
  const planAfterMutating = async (id: string, fraction: number, label: (count: number) => string): Promise<number> => {
    const mutated = req.skip.includes(id) ? [] : await mutateRepository(dir, fraction, req.seed);
    const mutatedFiles = new Set(mutated.map((p) => relative(dir, p).split(sep).join('/')));
    if (mutated.length > 0) try {
      await measure(id, label(mutated.length), req.runs, async (parts) => {
        const { plan } = await planCommand(parts);
        const s = plan.summary;
        const changed = new Set<string>();
        for (const c of plan.changes) {
          if (c.action !== 'update' || c.key.kind !== 'table') throw new Error(`${id}: unexpected ${c.action} of ${c.key.kind} ${c.key.name}`);
          changed.add(c.desired.origin.file);
        }
        const missing = [...mutatedFiles].filter((f) => !changed.has(f));
        const extra = [...changed].filter((f) => !mutatedFiles.has(f));
        if (s.add !== 0 || s.destroy !== 0 || s.change !== mutated.length || missing.length > 0 || extra.length > 0) {
          throw new Error(
            `the plan after changing ${mutated.length} files must change exactly those tables; it has ${JSON.stringify(s)}` +
              (missing.length ? `; not planned: ${missing.slice(0, 5).join(', ')}` : '') +
              (extra.length ? `; planned but not changed: ${extra.slice(0, 5).join(', ')}` : ''),
          );
        }
      });
    } finally {
      await Promise.all(mutated.map((p) => copyFile(join(req.pristineSources, relative(join(dir, 'sources'), p)), p)));
    }
    return mutated.length;
  };
  // f'. first, while the parse cache holds the files as generated (e's runs): one file among all of them
  await planAfterMutating('plan_one_file', Number.MIN_VALUE /* one file */, () => "f'. plan after changing one table file (open + plan + close)");
  const mutated = await planAfterMutating('plan_one_percent', MUTATE_FRACTION, (count) => `f. plan after changing ${count} table files (open + plan + close)`);

  const order = ['lower_bound', 'lower_bound_yaml', 'read_sha256', 'validate', 'validate_cached', 'plan_empty', 'apply', 'plan_no_change', 'plan_one_file', 'plan_one_percent'];
  steps.sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id));
  return {
    engine: req.engine,
    description: req.engine === 'pglite' ? 'PGlite (embedded), new state folder' : 'PostgreSQL, new database',
    steps,
    peakRssKiB: Math.max(...steps.map((s) => s.peakRssKiB)),
    objects: objectCount,
    mutated,
    fresh: [],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Parent: repository, databases, children, report

async function repositoryStats(dir: string, files: number, bytes: number, generateMs: number): Promise<RepositoryStats> {
  const yamlFiles = await yamlFilesOf(dir);
  const stats: RepositoryStats = {
    files, yamlFiles: yamlFiles.length, bytes, tables: 0, tablesWithChecks: 0, checks: 0, connections: 0, policies: 0, rules: 0, generateMs,
  };
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const countContainer = (container: unknown, scaled: boolean): number => {
    if (!isObj(container)) return 0;
    const categoriesOf = scaled ? Object.values(container) : [container];
    let n = 0;
    for (const categories of categoriesOf) {
      if (!isObj(categories)) continue;
      for (const checks of Object.values(categories)) if (isObj(checks)) n += Object.keys(checks).length;
    }
    return n;
  };
  const checksOf = (spec: Record<string, unknown>): number =>
    countContainer(spec.profiling_checks, false) + countContainer(spec.monitoring_checks, true) + countContainer(spec.partitioned_checks, true);
  await forEachLimited(yamlFiles, READ_CONCURRENCY, async (file) => {
    if (file.endsWith('.dqoconnection.yaml')) stats.connections++;
    else if (file.endsWith('.dqorule.yaml')) stats.rules++;
    else if (file.endsWith('pattern.yaml')) stats.policies++;
    if (!file.endsWith('.dqotable.yaml')) return;
    const doc = load(await readFile(join(dir, file), 'utf8'), { schema: CORE_SCHEMA }) as { spec?: Record<string, unknown> };
    const spec = doc.spec ?? {};
    let n = checksOf(spec);
    if (isObj(spec.columns)) for (const column of Object.values(spec.columns)) if (isObj(column)) n += checksOf(column);
    stats.tables++;
    stats.checks += n;
    if (n > 0) stats.tablesWithChecks++;
  });
  return stats;
}

async function withAdmin<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  admin.on('error', () => {});
  try {
    await admin.connect();
  } catch (error) {
    const where = new URL(serverUrl);
    where.password = '';
    throw new Error(`PostgreSQL is not reachable at ${where.toString()} (${(error as Error).message}); start it or set BENCH_DATABASE_URL`);
  }
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

function runChild<T>(req: ChildRequest): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child'], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: T | undefined;
    let failure: string | undefined;
    child.on('message', (message: { result?: T; error?: string } | 'ready') => {
      if (message === 'ready') child.send(req);
      else if (typeof message === 'object' && message.result) result = message.result;
      else if (typeof message === 'object' && message.error) failure = message.error;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (result && code === 0) resolvePromise(result);
      else reject(new Error(`${req.engine}: ${failure ?? `the benchmark process ended with ${signal ?? `exit code ${code}`}`}`));
    });
  });
}

function machine(): string[] {
  const cpu = cpus();
  return [
    `CPU: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores`,
    `Memory: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `Node.js ${process.version}, ${platform()} ${release()}`,
  ];
}

/** The code measured: the commit, and whether src/ had changes not committed yet (the benchmark runs src/ as it is). */
function codeVersion(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: resolve(HERE, '..'), encoding: 'utf8' }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `commit ${commit}${dirty ? `, with ${dirty} uncommitted change${dirty === 1 ? '' : 's'} in src/` : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

interface Verdict {
  label: string;
  value: string;
  target: string;
  pass: boolean;
}

function verdicts(results: EngineResult[], tables: number): Verdict[] {
  const out: Verdict[] = [];
  const large = tables >= 100_000;
  const applyLimit = large ? TARGET_APPLY_MS_100K : TARGET_APPLY_MS;
  for (const r of results) {
    const step = (id: string) => r.steps.find((s) => s.id === id);
    const noChange = median(step('plan_no_change')!.runs);
    const ratio = noChange / median(step('lower_bound')!.runs);
    out.push({
      label: `${r.engine}: no-change plan / lower bound (medians)`,
      value: `${ratio.toFixed(2)}x (${fmtMs(noChange)} / ${fmtMs(median(step('lower_bound')!.runs))})`,
      target: `≤ ${TARGET_NO_CHANGE_RATIO}x`,
      pass: ratio <= TARGET_NO_CHANGE_RATIO,
    });
    const sha = median(step('read_sha256')!.runs);
    out.push({
      label: `${r.engine}: no-change plan / read + sha256 of every file (medians)`,
      value: `${(noChange / sha).toFixed(2)}x (${fmtMs(noChange)} / ${fmtMs(sha)})`,
      target: `≤ ${TARGET_NO_CHANGE_RATIO}x`,
      pass: noChange / sha <= TARGET_NO_CHANGE_RATIO,
    });
    const lowerBound = median(step('lower_bound')!.runs);
    const validateCached = step('validate_cached');
    if (validateCached) {
      const v = median(validateCached.runs);
      out.push({
        label: `${r.engine}: validate (warm parse cache) / lower bound (medians)`,
        value: `${(v / lowerBound).toFixed(2)}x (${fmtMs(v)} / ${fmtMs(lowerBound)})`,
        target: `≤ ${TARGET_VALIDATE_RATIO}x`,
        pass: v / lowerBound <= TARGET_VALIDATE_RATIO,
      });
    }
    const oneFile = step('plan_one_file');
    if (oneFile) {
      const v = median(oneFile.runs);
      out.push({
        label: `${r.engine}: plan of one changed file / lower bound (medians)`,
        value: `${(v / lowerBound).toFixed(2)}x (${fmtMs(v)} / ${fmtMs(lowerBound)})`,
        target: `≤ ${TARGET_NO_CHANGE_RATIO}x`,
        pass: v / lowerBound <= TARGET_NO_CHANGE_RATIO,
      });
    }
    if (r.engine === 'pglite' || large) {
      const apply = step('apply')!.runs[0];
      out.push({
        label: `${r.engine}: apply of all ${r.objects.toLocaleString('en-US')} objects to a new store (open + plan + applyPlan + close)`,
        value: fmtMs(apply),
        target: `≤ ${fmtMs(applyLimit)}`,
        pass: apply <= applyLimit,
      });
    }
    if (large) {
      const applyRss = step('apply')!.peakRssKiB;
      out.push({ label: `${r.engine}: peak RSS of the apply (the benchmark process)`, value: fmtMiB(applyRss), target: `≤ ${fmtMiB(TARGET_PEAK_KIB)}`, pass: applyRss <= TARGET_PEAK_KIB });
      const plan = r.fresh.find((f) => f.label.startsWith('plan'));
      if (plan) out.push({ label: `${r.engine}: peak RSS of a no-change plan in a fresh process`, value: fmtMiB(plan.peakRssKiB), target: `≤ ${fmtMiB(TARGET_PEAK_KIB)}`, pass: plan.peakRssKiB <= TARGET_PEAK_KIB });
    }
  }
  return out;
}

/** Facts worth a line under an engine's table. */
function notes(r: EngineResult): string[] {
  const out: string[] = [];
  const c = r.steps.find((s) => s.id === 'plan_empty');
  const open = c?.parts?.find((p) => p.label === 'open')?.runs;
  if (r.engine === 'pglite' && open && open.length > 0) {
    out.push(`c's first run opened a new state folder: creating the PGlite database took ${fmtMs(open[0])} of its open.`);
  }
  for (const f of r.fresh) {
    out.push(`In a fresh process (once, after the steps): ${f.label} ${fmtMs(f.ms)}, peak RSS of the process ${fmtMiB(f.peakRssKiB)} ` +
      '(the time leaves out loading the modules; the RSS includes them).');
  }
  return out;
}

/** Extra ratios, informative only (of the steps that ran). */
function ratios(r: EngineResult): string[] {
  const runs = (id: string) => r.steps.find((s) => s.id === id)?.runs;
  const part = (id: string, label: string) => r.steps.find((s) => s.id === id)?.parts?.find((p) => p.label === label)?.runs;
  const lb = median(runs('lower_bound')!);
  const noChange = median(runs('plan_no_change')!);
  const out = [
    `no-change plan / lower bound: ${(noChange / lb).toFixed(2)}x (target ≤ ${TARGET_NO_CHANGE_RATIO}x); with the mins: ${(
      min(runs('plan_no_change')!) / min(runs('lower_bound')!)).toFixed(2)}x`,
    `no-change plan without opening and closing the store (planRepository alone) / lower bound: ${(median(part('plan_no_change', 'planRepository') ?? [0]) / lb).toFixed(2)}x`,
    `no-change plan / read + sha256: ${(noChange / median(runs('read_sha256')!)).toFixed(2)}x; planRepository alone / read + sha256: ${(
      median(part('plan_no_change', 'planRepository') ?? [0]) / median(runs('read_sha256')!)).toFixed(2)}x`,
  ];
  const validate = runs('validate');
  const cached = runs('validate_cached');
  if (validate || cached) {
    out.push(`validate / lower bound: ${validate ? `${(median(validate) / lb).toFixed(2)}x without the parse cache` : 'not run without the cache'}, ${
      cached ? `${(median(cached) / lb).toFixed(2)}x with it` : 'not run with it'}`);
  }
  const oneFile = runs('plan_one_file');
  if (oneFile) out.push(`one-file plan / lower bound: ${(median(oneFile) / lb).toFixed(2)}x`);
  const onePercent = runs('plan_one_percent');
  if (onePercent) out.push(`1% plan / lower bound: ${(median(onePercent) / lb).toFixed(2)}x`);
  const yaml = runs('lower_bound_yaml');
  if (yaml) out.push(`lower bound with yaml / with js-yaml: ${(median(yaml) / lb).toFixed(2)}x`);
  return out;
}

function engineTable(r: EngineResult): string[] {
  const rows: string[] = [
    '| step | runs | median | min | peak RSS |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const s of r.steps) {
    rows.push(`| ${s.label} | ${s.runs.length} | ${fmtMs(median(s.runs))} | ${fmtMs(min(s.runs))} | ${fmtMiB(s.peakRssKiB)} |`);
    for (const p of s.parts ?? []) rows.push(`| &nbsp;&nbsp;↳ ${p.label} | ${p.runs.length} | ${fmtMs(median(p.runs))} | ${fmtMs(min(p.runs))} | |`);
  }
  return rows;
}

function report(options: Options, stats: RepositoryStats, results: EngineResult[], date: Date, totalMs: number, loadStart: string, code: string): string {
  const v = verdicts(results, options.tables);
  const [start, end] = sectionMarkers(options.tables);
  const lines: string[] = [
    start,
    `## Repository benchmark: validate, plan and apply a ${options.tables.toLocaleString('en-US')}-table repository`,
    '',
    `Written by \`npm run bench\` (bench/run.ts) on ${date.toISOString().replace('T', ' ').slice(0, 16)} UTC; the whole run took ${(totalMs / 1000).toFixed(0)} s.`,
    '',
    '### Machine and code',
    '',
    ...machine().map((m) => `- ${m}`),
    `- dqctl: ${code} (src/ run through tsx)`,
    '',
    '### Repository',
    '',
    `Generated by bench/generateRepository.ts (seed ${options.seed}) in ${fmtMs(stats.generateMs)}: ` +
      `${stats.files.toLocaleString('en-US')} files (${stats.yamlFiles.toLocaleString('en-US')} YAML), ${(stats.bytes / 1024 / 1024).toFixed(1)} MiB; ` +
      `${stats.tables.toLocaleString('en-US')} tables of ${options.columns} columns, ${stats.tablesWithChecks.toLocaleString('en-US')} of them with checks ` +
      `(${stats.checks.toLocaleString('en-US')} checks in all), ${stats.connections} connections, ${stats.policies} policies, ${stats.rules} custom rules.`,
    '',
    '### Targets',
    '',
    '| target | measured | limit | result |',
    '|---|---:|---:|---|',
    ...v.map((x) => `| ${x.label} | ${x.value} | ${x.target} | **${x.pass ? 'PASS' : 'FAIL'}** |`),
    '',
    '### How it is measured',
    '',
    '- Each engine runs in a child process of its own; every run starts after a forced GC. Times are wall-clock',
    '  (`performance.now()`), in process (no CLI start-up, no rendering of the plan); "median" and "min" are over the runs.',
    '- Steps c to f do what the command does: open the store (PGlite: load the WASM engine and the data folder;',
    '  PostgreSQL: connect; both: check the migrations), plan, (apply,) close. The ↳ rows split a step into its parts.',
    '- a is the lower bound of any plan: list the YAML files, `fs.readFile` and parse each with js-yaml (64 reads in flight,',
    "  as the loader does), nothing else. a' is the same with the `yaml` package's `parse()`, for reference. a'' reads and",
    '  hashes (sha256) every file: the lower bound of a plan that only asks whether anything changed.',
    '- e is what `dqctl plan` runs after an apply: it reads and hashes every file, and the store, asked whether the',
    '  namespace was last applied from exactly these files with nothing written since (migration 0013), answers that',
    '  nothing changed without a parse or a listing of the live objects (src/app/planRepository.ts).',
    '- Order: c (runs), d (once, on the new store), then rounds of a, a\', b, e (so that the ratios compare runs made under',
    "  the same load of the machine), then f' and f. e asserts 0 changes; f' changes one table file (its first run parses",
    "  that file and writes the parse cache's index and one shard of specs), f " + `${(MUTATE_FRACTION * 100).toFixed(0)}% of the table files, with`,
    '  `mutateRepository`, and both assert that the plan updates exactly those tables and nothing else.',
    '- Peak RSS is the highest resident set size of the benchmark process during the step (Linux: the high-water mark',
    '  is reset before each run). The process is long-lived, so it includes what earlier steps left allocated; PGlite',
    '  runs inside the process, the PostgreSQL server does not (its memory is not counted).',
    `- Load average of the machine (1 min) at the start and at the end: ${loadStart} / ${loadavg()[0].toFixed(2)}. The machine may be`,
    '  shared: compare mins as well as medians.',
    '',
  ];
  for (const r of results) {
    lines.push(`### ${r.description}`, '', ...engineTable(r), '', `Peak RSS of the benchmark process: ${fmtMiB(r.peakRssKiB)}.`, '');
    lines.push(...notes(r).map((x) => `- ${x}`), ...ratios(r).map((x) => `- ${x}`), '');
  }
  lines.push(end);
  return lines.join('\n');
}

/** The 10,000-table run keeps its section; a 100,000-table run writes one of its own. */
function sectionMarkers(tables: number): [string, string] {
  if (tables < 100_000) return [SECTION_START, SECTION_END];
  return ['<!-- bench/run.ts: repository benchmark at 100,000 tables (start) -->', '<!-- bench/run.ts: repository benchmark at 100,000 tables (end) -->'];
}

async function writeSection(section: string, tables: number): Promise<void> {
  const [start, end] = sectionMarkers(tables);
  await writeBenchmarkSection(section, start, end);
}

function printTable(results: EngineResult[], v: Verdict[]): void {
  const widths = [62, 5, 11, 11, 9];
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  for (const r of results) {
    console.log(`\n${r.description}`);
    console.log(row(['step', 'runs', 'median', 'min', 'peak RSS']));
    for (const s of r.steps) {
      console.log(row([s.label, String(s.runs.length), fmtMs(median(s.runs)), fmtMs(min(s.runs)), fmtMiB(s.peakRssKiB)]));
      for (const p of s.parts ?? []) console.log(row([`    ${p.label}`, String(p.runs.length), fmtMs(median(p.runs)), fmtMs(min(p.runs)), '']));
    }
    console.log(`peak RSS ${fmtMiB(r.peakRssKiB)}`);
    for (const x of [...notes(r), ...ratios(r)]) console.log(`  ${x}`);
  }
  console.log('\nTargets');
  for (const x of v) console.log(`  ${x.pass ? 'PASS' : 'FAIL'}  ${x.label}: ${x.value} (target ${x.target})`);
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env);
  const started = performance.now();
  const date = new Date();
  const loadStart = loadavg()[0].toFixed(2);
  const code = codeVersion();
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const work = await mkdtemp(join(tmpdir(), 'dqctl-bench-'));
  // plan and apply keep their parse cache (src/app/repositoryParseCache.ts) here, for this run only
  process.env.DQCTL_CACHE_DIR = join(work, 'parse-cache');
  let database: string | undefined;
  try {
    const repository = join(work, 'repository');
    console.error(`dqctl ${code}`);
    console.error(`generating ${options.tables.toLocaleString('en-US')} tables into ${repository} ...`);
    const t0 = performance.now();
    const generated = await generateRepository(repository, {
      tables: options.tables, connections: options.connections, policies: options.policies, rules: options.rules,
      columnsPerTable: options.columns, seed: options.seed,
    });
    const stats = await repositoryStats(repository, generated.files, generated.bytes, performance.now() - t0);
    console.error(`  ${stats.files} files, ${(stats.bytes / 1024 / 1024).toFixed(1)} MiB, ${stats.tables} tables (${stats.tablesWithChecks} with checks, ${stats.checks} checks) in ${fmtMs(stats.generateMs)}`);
    const pristineSources = join(work, 'pristine-sources');
    await cp(join(repository, 'sources'), pristineSources, { recursive: true });

    const results: EngineResult[] = [];
    for (const engine of options.engines) {
      const req: ChildRequest = { engine, repository, pristineSources, runs: options.runs, seed: options.seed, skip: options.skip, mode: 'all' };
      if (engine === 'pglite') req.stateDir = join(work, 'pglite-state');
      else {
        database = `dqctl_bench_${randomBytes(6).toString('hex')}`;
        // CREATE DATABASE takes no bind parameters; the name is hex digits only.
        await withAdmin(serverUrl, (admin) => admin.query(`create database ${database} template template0`));
        const url = new URL(serverUrl);
        url.pathname = `/${database}`;
        req.databaseUrl = url.toString();
      }
      console.error(`\n${engine}: measuring ...`);
      const result = await runChild<EngineResult>({ ...req, mode: 'all' });
      for (const mode of ['validate', 'plan'] as const) {
        if (options.skip.includes(`fresh_${mode}`)) continue;
        const fresh = await runChild<FreshRun>({ ...req, mode });
        console.error(`[${engine}] fresh process: ${fresh.label} ${fmtMs(fresh.ms)}, peak RSS ${fmtMiB(fresh.peakRssKiB)}`);
        result.fresh.push(fresh);
      }
      results.push(result);
      if (engine === 'postgres' && database) {
        const name = database;
        database = undefined;
        await withAdmin(serverUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`));
      }
    }

    const totalMs = performance.now() - started;
    const v = verdicts(results, options.tables);
    printTable(results, v);
    if (options.write) {
      await writeSection(report(options, stats, results, date, totalMs, loadStart, code), options.tables);
      console.log(`\nwrote ${relative(process.cwd(), BENCHMARKS_FILE) || BENCHMARKS_FILE}`);
    } else {
      console.log('\nBENCHMARKS.md left alone (not the full-size repository; pass --write to write it)');
    }
    console.log(`total ${(totalMs / 1000).toFixed(1)} s`);
    if (v.some((x) => !x.pass)) {
      console.log(`\n${v.filter((x) => !x.pass).length} target(s) missed: see FAIL above.`);
      return options.strict ? 1 : 0;
    }
    return 0;
  } finally {
    if (database) {
      const name = database;
      await withAdmin(serverUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)).catch((e: Error) =>
        console.error(`could not drop database ${name}: ${e.message}`),
      );
    }
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) {
  process.once('message', (req: ChildRequest) => {
    (req.mode === 'all' ? runEngine(req) : runOnce(req)).then(
      (result) => process.send!({ result }, () => process.exit(0)),
      (error: unknown) => {
        const message = error instanceof Error ? error.stack ?? error.message : String(error);
        process.send!({ error: message }, () => process.exit(1));
      },
    );
  });
  process.send!('ready');
} else {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`\nBENCHMARK FAILED: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
