/**
 * Malformed repositories as a clumsy user or an attacker writes them (issue 15): what validate accepts, apply
 * stores; what apply cannot store, validate refuses at file:line:column (fixtures unstorable_text and
 * unstorable_number in diagnostics.test.ts); and size is never a crash or a quadratic wait.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { renderDiagnosticsText } from '../../src/cli/render/diagnostics.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { toPlanDocument } from '../../src/plan/planDocument.js';
import { renderPlanText } from '../../src/plan/renderText.js';
import { EXAMPLE } from '../helpers/cli.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const PAYMENTS = 'sources/shop_oltp/public.payments.dqotable.yaml';

/** examples/shop with the `columns:` mapping of the payments table grown by `entries` (YAML lines). */
async function shopWithColumns(entries: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-hostile-'));
  await cp(EXAMPLE, dir, { recursive: true });
  const file = join(dir, PAYMENTS);
  const text = await readFile(file, 'utf8');
  expect(text).toContain('\n  columns:\n');
  await writeFile(file, text.replace('\n  columns:\n', `\n  columns:\n${entries}`));
  return dir;
}

describe('size is never a crash nor a quadratic wait', () => {
  let fx: StoreFixture;
  const dirs: string[] = [];
  beforeAll(async () => {
    fx = await STORE_ENGINES[1].setup();
  });
  afterAll(async () => {
    await fx?.dispose();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('a document of 200,000 keys validates, plans, renders and applies (no "Maximum call stack size exceeded")', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 200_000; i++) lines.push(`    c${i}: {}\n`);
    const dir = await shopWithColumns(lines.join(''));
    dirs.push(dir);
    const state = await loadRepository(dir);
    expect(state.diagnostics).toEqual([]);
    const { plan } = await planRepository({ repository: dir, store: fx.store });
    const text = renderPlanText(toPlanDocument(plan));
    expect(text).toContain('c199999');
    const applied = await applyPlan(plan, fx.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 30_000 });
    expect(applied.applied.add).toBe(22);
    const again = await planRepository({ repository: dir, store: fx.store });
    expect(again.plan.changes).toEqual([]);
  }, 300_000);

  it('a document nested 3,000 levels deep (block lists) is refused as too_deeply_nested, not a stack overflow', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dqctl-hostile-'));
    dirs.push(dir);
    await cp(EXAMPLE, dir, { recursive: true });
    const file = join(dir, PAYMENTS);
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`${'  '.repeat(i + 2)}- \n`);
    await writeFile(file, (await readFile(file, 'utf8')).replace('\n  labels:\n', `\n  comments:\n${lines.join('')}  labels:\n`));
    const state = await loadRepository(dir);
    expect(state.diagnostics.map((d) => [d.code, d.range?.filename])).toEqual([['too_deeply_nested', PAYMENTS]]);
  }, 120_000);

  it('a file of 50,000 duplicate keys is reported (and rendered) in linear time, not minutes', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 25_000; i++) lines.push(`    c${i}: {}\n    c${i}: {}\n`);
    const dir = await shopWithColumns(lines.join('') + '    c0: {}\n'.repeat(25_000));
    dirs.push(dir);
    // CPU time, not wall time: the machines running tests are shared
    const started = process.cpuUsage();
    const state = await loadRepository(dir);
    const rendered = renderDiagnosticsText(state.diagnostics, state.texts);
    const used = process.cpuUsage(started);
    const seconds = (used.user + used.system) / 1e6;
    expect(state.diagnostics.filter((d) => d.code === 'duplicate_key')).toHaveLength(50_000);
    expect(rendered).toContain('invalid: 50000 errors');
    // about 3 s of CPU here; the library's own duplicate check and a split of the file per diagnostic took minutes
    expect(seconds).toBeLessThan(15);
  }, 120_000);
});
