/**
 * `npm run bench:api`: throughput and latency of the REST facade with the 10,000-table generated repository
 * applied, against a bare node:http server answering the same JSON body from memory (the baseline), in the
 * same run, on loopback, bounded in time. Written to BENCHMARKS.md.
 *
 *   npm run bench:api                        # full size, both engines, writes BENCHMARKS.md
 *   npm run bench:api -- --tables 500 --duration 3 --no-write   # smoke run
 *   options: --tables N --duration SECONDS --connections N --engines pglite,postgres --write/--no-write
 *
 * Measured (autocannon, --connections concurrent connections, --duration seconds each):
 *   baseline   GET  bare node:http, the single-table JSON body from memory
 *   table      GET  /api/connections/{c}/schemas/{s}/tables/{t}   (one object)
 *   policies   GET  /api/policies/checks/column                    (a list: 100 column policies)
 *   put        PUT  /api/policies/checks/table/{name}/target       (a write: lock, transaction, revision)
 * Targets: single-object GET >= 50% of the baseline's requests/s with p99 < 20 ms; policy list p99 < 50 ms.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { applyPlan } from '../src/apply/applyPlan.js';
import { planRepository } from '../src/app/planRepository.js';
import { buildServer } from '../src/server/buildServer.js';
import { openStore } from '../src/store/openStore.js';
import type { Store } from '../src/store/store.js';
import { generateRepository } from './generateRepository.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const SECTION_START = '<!-- bench/api.ts: REST API benchmark (start) -->';
const SECTION_END = '<!-- bench/api.ts: REST API benchmark (end) -->';

interface Options {
  tables: number;
  duration: number;
  connections: number;
  engines: Array<'pglite' | 'postgres'>;
  write: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { tables: 10_000, duration: 10, connections: 50, engines: ['pglite', 'postgres'], write: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => argv[++i];
    if (arg === '--tables') options.tables = Number(next());
    else if (arg === '--duration') options.duration = Number(next());
    else if (arg === '--connections') options.connections = Number(next());
    else if (arg === '--engines') options.engines = next().split(',') as Options['engines'];
    else if (arg === '--write') options.write = true;
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown option ${arg}`);
  }
  if (options.tables !== 10_000 && !argv.includes('--write')) options.write = false;
  return options;
}

interface Measure {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

async function run(label: string, opts: autocannon.Options): Promise<Measure> {
  const result = await autocannon(opts);
  return {
    label,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as { port: number }).port;
}

async function benchEngine(engine: 'pglite' | 'postgres', repo: string, options: Options): Promise<{ engine: string; measures: Measure[]; applyMs: number }> {
  const work = await mkdtemp(join(tmpdir(), 'dqctl-bench-api-'));
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let store: Store;
  if (engine === 'postgres') {
    const server = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `dqctl_bench_api_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`create database ${name} template template0`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    database = {
      url: url.toString(),
      drop: async () => {
        const c = new pg.Client({ connectionString: server });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      },
    };
    store = await openStore({ databaseUrl: database.url });
  } else {
    store = await openStore({ stateDir: join(work, 'state') });
  }
  try {
    const started = performance.now();
    const { plan } = await planRepository({ repository: repo, store });
    await applyPlan(plan, store, { holder: 'bench', appliedBy: 'bench', lockTimeoutMs: 60_000 });
    const applyMs = performance.now() - started;

    const app = await buildServer({ store, logger: false });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const [table] = await store.listSummaries({ kind: 'table' });
    const [connection, rest] = [table.name.slice(0, table.name.indexOf('/')), table.name.slice(table.name.indexOf('/') + 1)];
    const schema = rest.slice(0, rest.indexOf('.'));
    const tableName = rest.slice(rest.indexOf('.') + 1);
    const tableUrl = `${address}/api/connections/${encodeURIComponent(connection)}/schemas/${encodeURIComponent(schema)}/tables/${encodeURIComponent(tableName)}`;
    const body = await (await fetch(tableUrl)).text();
    if (!body.startsWith('{')) throw new Error(`the table GET did not answer a model: ${body.slice(0, 200)}`);
    const [policy] = await store.listSummaries({ kind: 'default_table_checks' });
    const putUrl = `${address}/api/policies/checks/table/${encodeURIComponent(policy.name)}/target`;

    const baseline = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    const baselinePort = await listen(baseline);

    const common = { connections: options.connections, duration: options.duration };
    const measures: Measure[] = [];
    measures.push(await run('baseline: bare node:http, same body from memory', { ...common, url: `http://127.0.0.1:${baselinePort}/` }));
    measures.push(await run('GET one table (TableModel)', { ...common, url: tableUrl }));
    measures.push(await run('GET list of column policies', { ...common, url: `${address}/api/policies/checks/column` }));
    // the lineage routes walk an index of every table's lineage edges, built on the first request after a change
    let coldStarted = performance.now();
    const tree = await fetch(`${tableUrl}/lineage/tree`);
    const coldTreeMs = performance.now() - coldStarted;
    if (!tree.ok) throw new Error(`the lineage tree answered ${tree.status}`);
    coldStarted = performance.now();
    await (await fetch(`${tableUrl}/lineage/targets`)).text();
    const warmTargetsMs = performance.now() - coldStarted;
    measures.push(await run(`GET lineage tree of a table (first request, building the index: ${Math.round(coldTreeMs)} ms)`, { ...common, url: `${tableUrl}/lineage/tree` }));
    measures.push(await run(`GET lineage targets of a table (first: ${Math.round(warmTargetsMs)} ms)`, { ...common, url: `${tableUrl}/lineage/targets` }));
    let counter = 0;
    measures.push(
      await run('PUT a table policy target', {
        ...common,
        url: putUrl,
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ policy_name: policy.name, target_table: { table: `bench_${counter++ % 1000}_*` } }) }) }],
      }),
    );
    baseline.close();
    await app.close();
    return { engine, measures, applyMs };
  } finally {
    await store.close();
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  }
}

function formatReport(options: Options, repoInfo: { files: number; bytes: number }, results: Array<{ engine: string; measures: Measure[]; applyMs: number }>, totalMs: number): string {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines: string[] = [];
  lines.push(SECTION_START, '## REST API benchmark', '');
  lines.push(`Written by \`npm run bench:api\` (bench/api.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; the run took ${fmt(totalMs / 1000)} s.`, '');
  lines.push(`Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0].toFixed(2)} at the end.`, '');
  lines.push(`Repository: ${fmt(options.tables)} generated tables (${fmt(repoInfo.files)} files, ${(repoInfo.bytes / 2 ** 20).toFixed(1)} MiB) applied to the store. autocannon, ${options.connections} connections, ${options.duration} s per row, loopback; the server runs in the benchmark process (no request log).`, '');
  for (const r of results) {
    lines.push(`### ${r.engine === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL'}`, '');
    lines.push('| request | requests/s | p50 | p99 | errors / non-2xx |', '|---|---:|---:|---:|---:|');
    for (const m of r.measures) lines.push(`| ${m.label} | ${fmt(m.requestsPerSecond)} | ${m.p50} ms | ${m.p99} ms | ${m.errors} / ${m.non2xx} |`);
    const [baseline, single, list] = r.measures;
    const share = single.requestsPerSecond / baseline.requestsPerSecond;
    lines.push('', '| target | measured | result |', '|---|---:|---|');
    lines.push(`| single-object GET ≥ 50% of the baseline's requests/s | ${(share * 100).toFixed(0)}% | **${share >= 0.5 ? 'PASS' : 'FAIL'}** |`);
    lines.push(`| single-object GET p99 < 20 ms | ${single.p99} ms | **${single.p99 < 20 ? 'PASS' : 'FAIL'}** |`);
    lines.push(`| list of policies p99 < 50 ms | ${list.p99} ms | **${list.p99 < 50 ? 'PASS' : 'FAIL'}** |`, '');
  }
  lines.push(SECTION_END);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const root = await mkdtemp(join(tmpdir(), 'dqctl-bench-api-repo-'));
  try {
    const repoInfo = await generateRepository(root, { tables: options.tables });
    const results = [];
    for (const engine of options.engines) {
      process.stderr.write(`bench:api: ${engine}…\n`);
      results.push(await benchEngine(engine, root, options));
    }
    const report = formatReport(options, repoInfo, results, performance.now() - started);
    process.stdout.write(report + '\n');
    for (const r of results) for (const m of r.measures) if (m.errors > 0 || m.non2xx > 0) throw new Error(`${r.engine}: ${m.label} had ${m.errors} errors and ${m.non2xx} non-2xx answers`);
    if (options.write) {
      await writeBenchmarkSection(report, SECTION_START, SECTION_END);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench:api failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
