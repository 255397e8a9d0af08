#!/usr/bin/env node
// Part of `npm run build`, after tsc: bundles dqctl's own compiled modules (dist/**/*.js, ~250 files for a
// `run checks`) into a few files under dist/bundle/ that bin/dqctl.js loads. Node.js resolves, reads and compiles
// each ES module of a graph one by one; one file per command loads in about half the CPU time (0.15 s instead of
// 0.3 s for `run checks`, see BENCHMARKS.md), which every CLI process pays before it does anything.
//
// Only our code is bundled: every package under node_modules stays external (loaded by Node.js as before, so
// DuckDB's and PGlite's native and WASM files, and their own workers, are found where they are installed), and
// each command's dynamic import becomes a chunk of its own, so `dqctl validate` still loads no store or data-source
// code. The parse workers' entry is a second entry point, dist/bundle/parseWorker.js. dist/ keeps the unbundled modules: tests, the precompiled validators and `DQCTL_BUNDLE=off` use them.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist', 'bundle');

const started = performance.now();
rmSync(OUT, { recursive: true, force: true });
const result = await build({
  // the parse workers' entry (src/manifest/parseWorkers.ts starts ./parseWorker.js beside its own module)
  entryPoints: { main: join(ROOT, 'dist', 'cli', 'main.js'), parseWorker: join(ROOT, 'dist', 'manifest', 'parseWorker.js') },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
});
const outputs = Object.entries(result.metafile.outputs);
const bytes = outputs.reduce((sum, [, output]) => sum + output.bytes, 0);
const inputs = Object.keys(result.metafile.inputs).length;
console.log(`dist/bundle: ${inputs} modules in ${outputs.length} files, ${(bytes / 1048576).toFixed(1)} MiB, in ${Math.round(performance.now() - started)} ms`);

// DuckDB's JavaScript API (@duckdb/node-api: ~156 CommonJS files) as one CommonJS file, its native bindings left
// where they are installed: Node.js resolves and reads the package's files one by one, which took 64-83 ms of a
// `run checks` on DuckDB; the one file loads in ~30 ms. Named by the package's version, which the loader
// (src/datasource/duckdb/duckdbDataSource.ts) compares with the installed one, so a package updated without a
// build is loaded from node_modules as before.
const duckdbStarted = performance.now();
const duckdbVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')).version;
await build({
  entryPoints: [join(ROOT, 'node_modules', '@duckdb', 'node-api', 'lib', 'index.js')],
  outfile: join(OUT, `duckdb-node-api-${duckdbVersion}.cjs`),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: ['@duckdb/node-bindings'],
  logLevel: 'warning',
  legalComments: 'none',
});
console.log(`dist/bundle: @duckdb/node-api ${duckdbVersion} in one file, in ${Math.round(performance.now() - duckdbStarted)} ms`);
