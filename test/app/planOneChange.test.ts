/**
 * One changed file among many, planned through the persisted parse cache (src/app/repositoryParseCache.ts) as a
 * new `dqctl plan` process does: exactly that change, and the same plan as a load that uses no cache.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRepository, mutateRepository } from '../../bench/generateRepository.js';
import { planRepository } from '../../src/app/planRepository.js';
import { parseCacheFile } from '../../src/app/repositoryParseCache.js';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

describe('plan of one change among many, with the persisted parse cache', () => {
  let dir: string;
  let fixture: StoreFixture;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-one-change-'));
    await generateRepository(dir, { tables: 400, connections: 4, policies: 8, rules: 2, columnsPerTable: 4, seed: 7 });
    fixture = await STORE_ENGINES[0].setup();
  });
  afterAll(async () => {
    await fixture?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The plan with the cache (as it stands on disk) and without, and the plan that first asks the store whether the
   * files are those of the last apply (the shortcut): they must be the same plan.
   */
  async function planBoth() {
    const cached = await planRepository({ repository: dir, store: fixture.store, shortcut: false });
    const shortcut = await planRepository({ repository: dir, store: fixture.store });
    const saved = process.env.DQCTL_PARSE_CACHE;
    process.env.DQCTL_PARSE_CACHE = 'off';
    try {
      const uncached = await planRepository({ repository: dir, store: fixture.store, shortcut: false });
      expect(cached.plan.fingerprint).toEqual(uncached.plan.fingerprint);
      expect(cached.plan.changes).toEqual(uncached.plan.changes);
      expect(cached.desired!.fingerprint).toBe(uncached.desired!.fingerprint);
      expect(shortcut.plan.fingerprint).toEqual(uncached.plan.fingerprint);
      expect(shortcut.plan.changes).toEqual(uncached.plan.changes);
    } finally {
      if (saved === undefined) delete process.env.DQCTL_PARSE_CACHE;
      else process.env.DQCTL_PARSE_CACHE = saved;
    }
    return cached.plan;
  }

  it('plans exactly the edited table, then nothing once applied, then the change back', async () => {
    await rm(parseCacheFile(dir, null)!, { force: true });
    const all = await planBoth();
    expect(all.summary.add).toBeGreaterThan(400);
    await applyPlan(all, fixture.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 10_000 });
    expect((await planBoth()).changes).toEqual([]);

    const pristine = await mkdtemp(join(tmpdir(), 'dqctl-one-change-pristine-'));
    await cp(join(dir, 'sources'), pristine, { recursive: true });
    const [changed] = await mutateRepository(dir, 1 / 400, 3);
    const file = relative(dir, changed).split(sep).join('/');
    const before = await readFile(join(pristine, relative(join(dir, 'sources'), changed)), 'utf8');
    await rm(pristine, { recursive: true, force: true });
    const one = await planBoth();
    expect(one.changes.map((c) => [c.action, c.key.kind, 'desired' in c ? c.desired.origin.file : null])).toEqual([['update', 'table', file]]);
    await applyPlan(one, fixture.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 10_000 });
    expect((await planBoth()).changes).toEqual([]);

    // the file changed back: the cache holds the first text's entry no more, and the plan is the change back
    const mutated = await readFile(changed, 'utf8');
    await writeFile(changed, before);
    expect(mutated).not.toBe(before);
    const back = await planBoth();
    expect(back.changes.map((c) => [c.action, c.key.kind, 'desired' in c ? c.desired.origin.file : null])).toEqual([['update', 'table', file]]);
  });

  it('applies every object into an empty store from a warm cache (the specs left in their shards), then plans nothing', async () => {
    await planRepository({ repository: dir, store: fixture.store, shortcut: false }); // the cache warm for these files
    await fixture.reset();
    const { plan, desired } = await planRepository({ repository: dir, store: fixture.store, shortcut: false });
    // the objects of the plan read their specs from the shards when asked (a getter), not at load
    const lazy = desired!.objects.filter((o) => Object.getOwnPropertyDescriptor(o, 'spec')?.get !== undefined);
    expect(lazy.length).toBeGreaterThan(400);
    expect(plan.summary.add).toBe(desired!.objects.length);
    await applyPlan(plan, fixture.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 10_000 });

    // every spec written is the one a load without the cache gives
    const saved = process.env.DQCTL_PARSE_CACHE;
    process.env.DQCTL_PARSE_CACHE = 'off';
    try {
      const uncached = await planRepository({ repository: dir, store: fixture.store, shortcut: false });
      expect(uncached.plan.changes).toEqual([]);
      const expected = uncached.desired!.objects;
      const live = await fixture.store.getObjects(expected.map((o) => ({ kind: o.kind, name: o.name })));
      expect(live).toHaveLength(expected.length);
      const byKey = new Map(live.map((o) => [`${o.kind}/${o.name}`, o]));
      for (const o of expected) {
        const stored = byKey.get(`${o.kind}/${o.name}`)!;
        expect(stored.spec).toEqual(o.spec);
        expect(stored.contentHash).toBe(o.hash);
      }
    } finally {
      if (saved === undefined) delete process.env.DQCTL_PARSE_CACHE;
      else process.env.DQCTL_PARSE_CACHE = saved;
    }
    expect((await planBoth()).changes).toEqual([]);
  });
});
