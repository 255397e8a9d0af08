/**
 * The baselines of the repository figures (issue 25), as plain Node.js (no tsx, nothing of dqctl loaded), so that a
 * whole process of it is what "simply reading the files" costs:
 *
 *   node bench/readBaseline.mjs parse DIR   # read + js-yaml load (CORE_SCHEMA) of every YAML file, 64 reads in flight
 *   node bench/readBaseline.mjs sha DIR     # read + sha256 of every YAML file, 64 reads in flight
 *
 * Prints one JSON line: { mode, files, ms } (ms in process, from the first listing to the last file).
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// js-yaml's CommonJS build: the faster of its two builds on Node 20 (the baseline the issue names)
const { CORE_SCHEMA, load } = createRequire(import.meta.url)('js-yaml');

const READS_IN_FLIGHT = 64;

/** Reads every YAML file of a DQOps user home (sources, rules, patterns…) and parses or hashes it; returns the count. */
export async function readEveryFile(dir, mode) {
  const files = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.yaml')) files.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  const each = mode === 'sha' ? (t) => createHash('sha256').update(t).digest('hex') : (t) => load(t, { schema: CORE_SCHEMA });
  let next = 0;
  await Promise.all(
    Array.from({ length: READS_IN_FLIGHT }, async () => {
      while (next < files.length) each(await readFile(files[next++], 'utf8'));
    }),
  );
  return files.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, dir] = process.argv.slice(2);
  if (!['parse', 'sha'].includes(mode) || !dir) {
    console.error('usage: node bench/readBaseline.mjs parse|sha DIR');
    process.exit(2);
  }
  const t0 = performance.now();
  const files = await readEveryFile(dir, mode);
  console.log(JSON.stringify({ mode, files, ms: Math.round(performance.now() - t0) }));
}
