/**
 * An apply's creates sent to the store as the JSON text of their specs that the parse cache's shards hold
 * (model/specJson.ts, src/manifest/persistedParseCache.ts), with no spec object made: the store must hold what
 * the specs made from the files hold, unicode and escapes included, and the plan after the apply finds no change.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { keyId, knownSpecJson, specJsonOf } from '../../src/model/index.js';
import { EXAMPLE } from '../helpers/cli.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const identity = { holder: 'test', appliedBy: 'test', lockTimeoutMs: 5_000 };
const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';
/** Labels JSON.stringify escapes (quotes, backslash, controls, a lone surrogate) or keeps as they are (unicode, U+2028). */
const LABELS = [
  '    - "tab\\there \\"quoted\\" back\\\\slash"',
  '    - "line\\nbreak\\r and \\u0001 \\u001f \\b \\f"',
  '    - "\\u00e9t\\u00e9 ünïcödé 😀 \\u2028 \\u2029 </script>"',
  "    - 'single ''quoted'' \\ not an escape'",
].join('\n');

describe.each(STORE_ENGINES)('an apply of creates whose specs stay in the parse cache, on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let dir: string;
  let repo: string;

  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx.dispose());
  beforeEach(async () => {
    await fx.reset();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-spectext-'));
    repo = join(dir, 'repo');
    await cp(EXAMPLE, repo, { recursive: true });
    const orders = await readFile(join(repo, ORDERS), 'utf8');
    await writeFile(join(repo, ORDERS), orders.replace('    - revenue\n', `    - revenue\n${LABELS}\n`));
    return () => rm(dir, { recursive: true, force: true });
  });

  it('writes the specs the files make, byte for byte as JSON.stringify of them, and the next plan finds nothing', async () => {
    const uncached = await loadRepository(repo);
    expect(uncached.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const orders = uncached.objects.find((o) => o.origin.file === ORDERS)!;
    expect(JSON.stringify(orders.spec)).toContain('\\"quoted\\"');
    expect(JSON.stringify(orders.spec)).toContain('😀');

    await planRepository({ repository: repo, store: fx.store }); // parses every file, writes the parse cache
    const { plan } = await planRepository({ repository: repo, store: fx.store });
    const creates = plan.changes.filter((c) => c.action === 'create');
    expect(creates.length).toBe(uncached.objects.length);
    const expected = new Map(uncached.objects.map((o) => [keyId(o), o]));
    let asText = 0;
    for (const change of creates) {
      const json = knownSpecJson(change.desired);
      if (json !== undefined) asText++;
      const want = JSON.stringify(expected.get(keyId(change.key))!.spec);
      if (json !== undefined) expect(json).toBe(want);
      expect(specJsonOf(change.desired)).toBe(want);
    }
    // the tables, checks and rules restored from the cache give their text: what this test is about
    expect(asText).toBeGreaterThan(creates.length / 2);
    expect(knownSpecJson(creates.find((c) => c.desired.origin.file === ORDERS)!.desired)).toBe(JSON.stringify(orders.spec));

    await applyPlan(plan, fx.store, identity);
    const live = await fx.store.listObjects();
    expect(live.length).toBe(uncached.objects.length);
    for (const object of live) expect(object.spec).toEqual(expected.get(keyId(object))!.spec);
    const after = await planRepository({ repository: repo, store: fx.store, shortcut: false });
    expect(after.plan.changes).toEqual([]);
  });

  it('a first run (no parse cache) applies the specs it left in the shards it wrote while loading; the next (warm) plan finds nothing', async () => {
    const uncached = await loadRepository(repo);
    const expected = new Map(uncached.objects.map((o) => [keyId(o), o]));
    const { plan } = await planRepository({ repository: repo, store: fx.store }); // the repository's first load
    const creates = plan.changes.filter((c) => c.action === 'create');
    expect(creates.length).toBe(uncached.objects.length);
    // the files parsed now hold no spec: a getter reads it from the shard the load wrote, as a warm load's objects
    const lazy = creates.filter((c) => Object.getOwnPropertyDescriptor(c.desired, 'spec')?.get !== undefined);
    expect(lazy.length).toBeGreaterThan(creates.length / 2);
    for (const change of lazy) expect(knownSpecJson(change.desired)).toBe(JSON.stringify(expected.get(keyId(change.key))!.spec));
    await applyPlan(plan, fx.store, identity);
    for (const object of await fx.store.listObjects()) expect(object.spec).toEqual(expected.get(keyId(object))!.spec);
    const after = await planRepository({ repository: repo, store: fx.store, shortcut: false });
    expect(after.plan.changes).toEqual([]);
  });

  it('without a parse cache (DQCTL_PARSE_CACHE=off) holds every spec, applies the same, and the next plan finds nothing', async () => {
    const saved = process.env.DQCTL_PARSE_CACHE;
    process.env.DQCTL_PARSE_CACHE = 'off';
    try {
      const uncached = await loadRepository(repo);
      const expected = new Map(uncached.objects.map((o) => [keyId(o), o]));
      const { plan } = await planRepository({ repository: repo, store: fx.store });
      const creates = plan.changes.filter((c) => c.action === 'create');
      expect(creates.length).toBe(uncached.objects.length);
      expect(creates.filter((c) => Object.getOwnPropertyDescriptor(c.desired, 'spec')?.get !== undefined)).toEqual([]);
      await applyPlan(plan, fx.store, identity);
      for (const object of await fx.store.listObjects()) expect(object.spec).toEqual(expected.get(keyId(object))!.spec);
      expect((await planRepository({ repository: repo, store: fx.store, shortcut: false })).plan.changes).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.DQCTL_PARSE_CACHE;
      else process.env.DQCTL_PARSE_CACHE = saved;
    }
  });
});
