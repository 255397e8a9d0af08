/**
 * One command's cost at a size `npm run bench` cannot reach on a loaded machine (its 100,000-table run takes hours
 * there): run it once per process, under GNU time for the peak RSS, e.g.
 *
 *   node --import tsx bench/scaleStep.ts sha   DIR x                     # read + sha256 of every YAML file (the baseline)
 *   node --import tsx bench/scaleStep.ts parse DIR x                     # read + js-yaml load of every YAML file (the baseline)
 *   node --import tsx bench/scaleStep.ts validate DIR x                  # what `dqctl validate` runs (validateRepository)
 *   node --import tsx bench/scaleStep.ts apply DIR postgres://…/db       # open + plan + applyPlan + close (a new store)
 *   node --import tsx bench/scaleStep.ts plan  DIR STATE_DIR             # open + plan + close (after the apply: no change)
 *
 * The store opens beside the plan's reads, as in `dqctl plan` and `apply`: `open` is when it was open, `plan` when
 * the plan was made (both from the start).
 *
 * DIR is a repository of bench/generateRepository.ts (`--tables 100000 --connections 100`); the third argument is a
 * PostgreSQL URL or a PGlite state folder. Prints one JSON line: the time, its parts and whether the store answered
 * the plan ("nothing changed since revision N") without a parse. The parse cache is the one of DQCTL_CACHE_DIR.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { planRepository } from '../src/app/planRepository.js';
import { validateRepository } from '../src/app/validateRepository.js';
import { applyPlan } from '../src/apply/applyPlan.js';
import { openStore } from '../src/store/openStore.js';
// js-yaml's CommonJS build: the faster of its two builds on Node 20 (the baseline the issue names)
const { CORE_SCHEMA, load } = createRequire(import.meta.url)('js-yaml') as typeof import('js-yaml');
const [mode, dir, target = 'x'] = process.argv.slice(2);
const storeOptions = target.startsWith('postgres') ? { databaseUrl: target } : { stateDir: target };
const t0 = performance.now();
if (mode === 'sha' || mode === 'parse') {
  let files: string[] = [];
  for (const top of ['sources', 'rules', 'patterns']) files.push(...(await readdir(join(dir, top), { recursive: true })).filter((f) => f.endsWith('.yaml')).map((f) => join(top, f)));
  let next = 0;
  const each = mode === 'sha' ? (t: string) => createHash('sha256').update(t).digest('hex') : (t: string) => load(t, { schema: CORE_SCHEMA });
  await Promise.all(Array.from({ length: 64 }, async () => { while (next < files.length) { const t = await readFile(join(dir, files[next++]), 'utf8'); each(t); } }));
  console.log(JSON.stringify({ mode, files: files.length, ms: Math.round(performance.now() - t0) }));
} else if (mode === 'validate') {
  const validation = await validateRepository(dir);
  console.log(JSON.stringify({ mode, objects: validation.objectCount, diagnostics: validation.diagnostics.length, ms: Math.round(performance.now() - t0) }));
} else {
  const parts: Record<string, number> = {};
  let t = performance.now();
  // as `dqctl plan` does: the store opens while the plan reads and hashes the files (open: when it was open)
  const opening = openStore(storeOptions).then((opened) => {
    parts.open = Math.round(performance.now() - t);
    return opened;
  });
  const { plan, desired } = await planRepository({ repository: dir, store: opening });
  const store = await opening;
  parts.plan = Math.round(performance.now() - t);
  if (mode === 'apply') {
    t = performance.now();
    await applyPlan(plan, store, { holder: 'bench', appliedBy: 'bench', lockTimeoutMs: 60_000 });
    parts.applyPlan = Math.round(performance.now() - t);
  }
  t = performance.now();
  await store.close();
  parts.close = Math.round(performance.now() - t);
  const first = plan.changes.slice(0, 5).map((c) => `${c.action} ${c.key.kind} ${c.key.name}`);
  console.log(JSON.stringify({ mode, changes: plan.changes.length, first, answeredByStore: desired === null, ms: Math.round(performance.now() - t0), parts }));
}
