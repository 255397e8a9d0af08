/**
 * Where the time of a no-change plan goes: generates the benchmark repository, applies it to a fresh store, then
 * runs `dqctl plan`'s work step by step with timings (open, load + validate, each store read, diff, plan, close),
 * and once more under the V8 CPU profiler (node:inspector, only around planRepository()), printing the functions
 * and files that take the time: self time, and inclusive time of dqctl's own functions.
 *
 *   node --expose-gc --import tsx bench/profilePlan.ts [--tables 10000] [--engine pglite|postgres] [--runs 2] [--top 25]
 *        [--cpuprofile out.cpuprofile] [--repository DIR (use an existing repository, generate nothing)]
 *        [--profile-apply (also profile the first applyPlan(), the bulk insert of everything)]
 *        [--change-one (change one table file after the apply: the plans then load, as after an edit)]
 *
 * PostgreSQL: a private database on BENCH_DATABASE_URL / TEST_DATABASE_URL (default the local server), dropped at
 * the end. The step breakdown re-creates planDesiredState()'s sequence from the exported functions: keep it in
 * step with src/app/planRepository.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadValidRepository, planRepository } from '../src/app/planRepository.js';
import { applyPlan } from '../src/apply/applyPlan.js';
import { diff, keysNeedingDetail, type DiffOptions } from '../src/diff/diff.js';
import { keyId } from '../src/model/index.js';
import { buildPlan, planEnvironment } from '../src/plan/plan.js';
import { openStore } from '../src/store/openStore.js';
import { generateRepository, mutateRepository } from './generateRepository.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Args {
  tables: number;
  engine: 'pglite' | 'postgres';
  runs: number;
  top: number;
  cpuprofile?: string;
  repository?: string;
  profileApply: boolean;
  /** Change one table file after the apply: the plans below then load (the store cannot answer them). */
  changeOne: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { tables: 10_000, engine: 'pglite', runs: 2, top: 25, profileApply: false, changeOne: false };
  for (let i = 0; i < argv.length; i++) {
    const v = () => argv[++i];
    switch (argv[i]) {
      case '--tables': a.tables = Number(v()); break;
      case '--engine': a.engine = v() as Args['engine']; break;
      case '--runs': a.runs = Number(v()); break;
      case '--top': a.top = Number(v()); break;
      case '--cpuprofile': a.cpuprofile = v(); break;
      case '--repository': a.repository = v(); break;
      case '--profile-apply': a.profileApply = true; break;
      case '--change-one': a.changeOne = true; break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  if (a.engine !== 'pglite' && a.engine !== 'postgres') throw new Error('--engine pglite|postgres');
  return a;
}

const ms = (x: number) => `${Math.round(x).toLocaleString('en-US').padStart(7)} ms`;

async function time<T>(rows: Array<[string, number]>, label: string, fn: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  rows.push([label, performance.now() - t0]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// CPU profile summary

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function where(url: string): string {
  if (!url) return '';
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(ROOT)) path = relative(ROOT, path);
  return path.replace(/^node_modules\/(\.pnpm\/)?/, 'node_modules/');
}

function summarize(profile: CpuProfile, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fnKey = (n: ProfileNode) => {
    const f = n.callFrame;
    const file = where(f.url);
    // tsx's transpiled src/ reports line 0 for everything: leave the line out there.
    return `${f.functionName || '(anonymous)'}  ${file ? (f.lineNumber > 0 ? `${file}:${f.lineNumber + 1}` : file) : ''}`.trim();
  };
  const fileKey = (n: ProfileNode) => where(n.callFrame.url) || n.callFrame.functionName || '(native)';
  const self = new Map<string, number>();
  const selfByFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  // timeDeltas[i] is the time before sample i; attribute sample i the delta of the next one (the time it ran).
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    total += dt;
    let node = byId.get(profile.samples[i])!;
    self.set(fnKey(node), (self.get(fnKey(node)) ?? 0) + dt);
    selfByFile.set(fileKey(node), (selfByFile.get(fileKey(node)) ?? 0) + dt);
    const seen = new Set<string>();
    for (;;) {
      const k = fnKey(node);
      if (!seen.has(k)) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
      }
      const p = parent.get(node.id);
      if (p === undefined) break;
      node = byId.get(p)!;
    }
  }
  const pct = (x: number) => `${((100 * x) / total).toFixed(1).padStart(5)}%`;
  const sorted = (m: Map<string, number>, filter: (k: string) => boolean = () => true) =>
    [...m].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, top);
  const out: string[] = [`profiled ${ms(total)} of samples`];
  out.push('', 'self time by function:');
  for (const [k, v] of sorted(self)) out.push(`  ${ms(v)} ${pct(v)}  ${k}`);
  out.push('', 'self time by file:');
  for (const [k, v] of sorted(selfByFile)) out.push(`  ${ms(v)} ${pct(v)}  ${k}`);
  out.push('', "inclusive time of dqctl's functions (src/):");
  for (const [k, v] of sorted(inclusive, (k) => k.includes(' src/'))) out.push(`  ${ms(v)} ${pct(v)}  ${k}`);
  out.push('', 'inclusive time of library functions (node_modules/):');
  for (const [k, v] of sorted(inclusive, (k) => k.includes('node_modules/'))) out.push(`  ${ms(v)} ${pct(v)}  ${k}`);
  return out;
}

/** Runs `fn` under the V8 sampling profiler (0.5 ms interval). */
async function profiled<T>(fn: () => Promise<T>): Promise<{ result: T; profile: CpuProfile; elapsed: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  const t0 = performance.now();
  const result = await fn();
  const elapsed = performance.now() - t0;
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  session.disconnect();
  return { result, profile, elapsed };
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const work = await mkdtemp(join(tmpdir(), 'dqctl-profile-'));
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let database: string | undefined;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  try {
    const repository = args.repository ? resolve(args.repository) : join(work, 'repository');
    if (!args.repository) {
      const g = await generateRepository(repository, { tables: args.tables });
      console.log(`generated ${g.files} files, ${(g.bytes / 1024 / 1024).toFixed(1)} MiB`);
    }
    let storeOptions: { stateDir?: string; databaseUrl?: string };
    if (args.engine === 'pglite') storeOptions = { stateDir: join(work, 'state') };
    else {
      database = `dqctl_bench_${randomBytes(6).toString('hex')}`;
      await admin(`create database ${database} template template0`);
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      storeOptions = { databaseUrl: url.toString() };
    }

    {
      const store = await openStore(storeOptions);
      const { plan } = await planRepository({ repository, store });
      const apply = () => applyPlan(plan, store, { holder: 'profile', appliedBy: 'profile', lockTimeoutMs: 30_000 });
      if (args.profileApply) {
        const { profile, elapsed } = await profiled(apply);
        console.log(`\napplyPlan() of ${plan.summary.add} objects under the profiler: ${ms(elapsed)}`);
        for (const line of summarize(profile, args.top)) console.log(line);
      } else await apply();
      await store.close();
      console.log(`applied ${plan.summary.add} objects to ${args.engine}`);
    }
    if (args.changeOne) {
      const [changed] = await mutateRepository(repository, Number.MIN_VALUE, 1);
      console.log(`changed ${relative(repository, changed)}`);
    }

    for (let run = 1; run <= args.runs; run++) {
      (globalThis as { gc?: () => void }).gc?.();
      const rows: Array<[string, number]> = [];
      const t0 = performance.now();
      const store = await time(rows, 'openStore', () => openStore(storeOptions));
      const desired = await time(rows, 'loadValidRepository (read, parse, validate, normalize, hash)', () => loadValidRepository(repository));
      const options: DiffOptions = {
        namespace: desired.settings.namespace,
        protectedPatterns: desired.settings.protected,
        pruneUnmanaged: desired.settings.prune.unmanaged,
        keepDrift: false,
      };
      const revision = await time(rows, 'store.revision()', () => store.revision());
      const summaries = await time(rows, `store.listSummaries()`, () => store.listSummaries());
      const needed = await time(rows, 'keysNeedingDetail()', () => keysNeedingDetail(desired.objects, summaries, options));
      const objects = await time(rows, `store.getObjects(${needed.length} keys)`, () => (needed.length ? store.getObjects(needed) : Promise.resolve([])));
      await time(rows, 'store.revision() again', () => store.revision());
      const result = await time(rows, 'diff()', () => diff(desired.objects, summaries, new Map(objects.map((o) => [keyId(o), o])), options));
      const plan = await time(rows, 'buildPlan()', () =>
        buildPlan(result, {
          repository: desired.repository,
          store: { engine: store.engine, description: store.description, revision },
          namespace: desired.settings.namespace,
          desiredFingerprint: desired.fingerprint,
          managedCount: summaries.length,
          options: { pruneUnmanaged: options.pruneUnmanaged, keepDrift: false, allowMassDelete: false, massDeleteThreshold: desired.settings.prune.massDeleteThreshold },
          environment: planEnvironment(desired.environment, null),
          createdAt: new Date().toISOString(),
        }),
      );
      await time(rows, 'store.close()', () => store.close());
      const total = performance.now() - t0;
      console.log(`\nrun ${run}: no-change plan step by step (${plan.summary.add}/${plan.summary.change}/${plan.summary.destroy}, ${summaries.length} live objects)`);
      for (const [label, v] of rows) console.log(`  ${ms(v)}  ${label}`);
      console.log(`  ${ms(total)}  total`);
    }

    // The real planRepository() under the profiler.
    const store = await openStore(storeOptions);
    const {
      result: { plan },
      profile,
      elapsed,
    } = await profiled(() => planRepository({ repository, store }));
    await store.close();
    console.log(`\nplanRepository() under the profiler: ${ms(elapsed)} (${plan.summary.change} changes)`);
    if (args.cpuprofile) {
      await writeFile(args.cpuprofile, JSON.stringify(profile));
      console.log(`wrote ${args.cpuprofile} (open it in Chrome DevTools or speedscope)`);
    }
    for (const line of summarize(profile, args.top)) console.log(line);
  } finally {
    if (database) await admin(`drop database if exists ${database} with (force)`).catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
