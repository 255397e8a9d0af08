/**
 * The parse cache on disk (src/manifest/persistedParseCache.ts): each load below opens the cache file afresh, as a
 * new `dqctl plan` process does, and its answer is compared with a load that uses no cache at all.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredState } from '../../src/manifest/desiredState.js';
import { loadRepository, loadRepositoryFindings } from '../../src/manifest/loadRepository.js';
import { ParseCache } from '../../src/manifest/parseCache.js';
import { readPersistedEntries, readSpecShard, writeSpecShard, type PersistedSpec } from '../../src/manifest/persistedParseCache.js';
import { knownSpecJson } from '../../src/model/index.js';
import { EXAMPLE } from '../helpers/cli.js';
import { addEnvironments, replaceLine } from '../helpers/environments.js';

const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';
const PAYMENTS = 'sources/shop_oltp/public.payments.dqotable.yaml';

function outcome(state: DesiredState) {
  return { objects: state.objects, diagnostics: state.diagnostics, fingerprint: state.fingerprint, texts: [...state.texts.keys()].sort() };
}

describe('the persisted parse cache', () => {
  let dir: string;
  let cacheFile: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-pcache-'));
    await cp(EXAMPLE, join(dir, 'repo'), { recursive: true });
    cacheFile = join(dir, 'cache', 'parse.json');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const repo = () => join(dir, 'repo');

  /** One load as a new process makes it: the cache read from its file, used, written back. */
  async function cachedLoad(environment?: string | null): Promise<{ state: DesiredState; stats: ParseCache['stats'] }> {
    const cache = await ParseCache.persisted(cacheFile);
    const state = await loadRepository(repo(), { cache, environment });
    await cache.save();
    return { state, stats: cache.stats };
  }
  async function expectSameAsUncached(environment?: string | null): Promise<ParseCache['stats']> {
    const { state, stats } = await cachedLoad(environment);
    expect(outcome(state)).toEqual(outcome(await loadRepository(repo(), { environment })));
    return stats;
  }

  it('is reused by the next process, and sees an edit, a rename, a deletion and a change back', async () => {
    const first = await expectSameAsUncached();
    expect(first.reused).toBe(0);
    const files = first.parsed;
    expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });

    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 1', 'min_count: 7'));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 1 });

    // back to the first text: the entry of the edited text must not answer
    await writeFile(join(repo(), ORDERS), text);
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 1 });

    // renamed: another table, the old one gone
    await rename(join(repo(), ORDERS), join(repo(), 'sources/shop_oltp/public.orders2.dqotable.yaml'));
    const renamed = await cachedLoad();
    expect(renamed.stats).toEqual({ reused: files - 1, parsed: 1 });
    expect(renamed.state.objects.map((o) => o.name)).toContain('shop_oltp/public.orders2');
    expect(renamed.state.objects.map((o) => o.name)).not.toContain('shop_oltp/public.orders');
    expect(outcome(renamed.state)).toEqual(outcome(await loadRepository(repo())));

    await unlink(join(repo(), 'sources/shop_oltp/public.orders2.dqotable.yaml'));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 0 });
    // the index and the delta on top of it hold the files there are, and no longer the one deleted
    const stored = await readPersistedEntries(cacheFile);
    expect(stored.size).toBe(files - 1);
    expect(stored.has('sources/shop_oltp/public.orders2.dqotable.yaml')).toBe(false);
  });

  it('keeps files with errors and their diagnostics at the same positions', async () => {
    await writeFile(join(repo(), ORDERS), 'apiVersion: dqo/v1\nkind: table\nspec:\n  columns:\n    id:\n      type_snapshot: 3\n      nope: 1\n');
    const first = await expectSameAsUncached();
    const again = await expectSameAsUncached();
    expect(again).toEqual({ reused: first.parsed, parsed: 0 });
    const { state } = await cachedLoad();
    expect(state.diagnostics.some((d) => d.severity === 'error' && d.range?.filename === ORDERS)).toBe(true);
  });

  it('keeps the findings of a document alone (threshold order) and still checks across files on every load', async () => {
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('          fatal:\n            min_count: 1\n', '          fatal:\n            min_count: 99999\n'));
    const first = await expectSameAsUncached();
    expect(await expectSameAsUncached()).toEqual({ reused: first.parsed, parsed: 0 });
    const { state } = await cachedLoad();
    expect(state.diagnostics.some((d) => d.code === 'threshold_order' && d.range?.filename === ORDERS)).toBe(true);
    const stored = JSON.parse(await readFile(cacheFile, 'utf8')) as { entries: Record<string, { loaded?: { semantics: { findings: unknown[] } } }> };
    expect(stored.entries[ORDERS].loaded?.semantics.findings.length).toBeGreaterThan(0);

    // a finding across files: the connection of the (unchanged, cached) table disappears
    await rm(join(repo(), 'sources/shop_oltp/connection.dqoconnection.yaml'));
    const { state: orphaned } = await cachedLoad();
    expect(orphaned.diagnostics.some((d) => d.code === 'unknown_connection' && d.range?.filename === ORDERS)).toBe(true);
    expect(outcome(orphaned)).toEqual(outcome(await loadRepository(repo())));
  });

  it('parses again the files whose variables changed value in dqctl.yaml, or under another --env', async () => {
    await addEnvironments(repo());
    const prod = await expectSameAsUncached('prod');
    expect(await expectSameAsUncached('prod')).toEqual({ reused: prod.parsed, parsed: 0 });
    await replaceLine(repo(), 'dqctl.yaml', '        orders_min: 10', '        orders_min: 11');
    expect(await expectSameAsUncached('dev')).toEqual({ reused: prod.parsed - 2, parsed: 2 });
    expect(await expectSameAsUncached('dev')).toEqual({ reused: prod.parsed, parsed: 0 });
    await replaceLine(repo(), 'dqctl.yaml', '        orders_min: 11', '        orders_min: 12');
    expect(await expectSameAsUncached('dev')).toEqual({ reused: prod.parsed - 1, parsed: 1 });
  });

  it('is ignored and rebuilt when corrupt, of another format, or written by other code (schemas, catalog, dqctl itself)', async () => {
    const { stats } = await cachedLoad();
    const files = stats.parsed;
    const valid = JSON.parse(await readFile(cacheFile, 'utf8')) as { format: string; key: string; entries: Record<string, { hash?: unknown }> };

    for (const broken of ['{"format": "dqctl-parse-cache/1", "key": ', 'null', '[]', JSON.stringify({ ...valid, format: 'other/1' })]) {
      await writeFile(cacheFile, broken);
      expect(await expectSameAsUncached()).toEqual({ reused: 0, parsed: files });
      expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });
    }

    // other schemas or code give another key: nothing of it is read, even an entry that looks right
    const foreign = structuredClone(valid);
    foreign.key = 'f'.repeat(64);
    foreign.entries[ORDERS].hash = 'f'.repeat(64);
    await writeFile(cacheFile, JSON.stringify(foreign));
    expect(await expectSameAsUncached()).toEqual({ reused: 0, parsed: files });

    // an entry of a wrong shape is dropped alone
    const damaged = structuredClone(valid) as { entries: Record<string, unknown> };
    damaged.entries[ORDERS] = { sha: 42 };
    await writeFile(cacheFile, JSON.stringify(damaged));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 1 });
  });

  /** The folder of the spec shards beside the index, and the index's delta (persistedParseCache.ts). */
  const specsFolder = () => `${cacheFile.replace(/\.json$/, '')}.specs`;
  const deltaFile = () => `${cacheFile.replace(/\.json$/, '')}.delta.json`;

  async function cachedFindings(): Promise<{ findings: Awaited<ReturnType<typeof loadRepositoryFindings>>; stats: ParseCache['stats'] }> {
    const cache = await ParseCache.persisted(cacheFile);
    const findings = await loadRepositoryFindings(repo(), { cache });
    await cache.save();
    return { findings, stats: cache.stats };
  }

  it('answers validate from its index alone, and a later plan gets the specs from the shards or computes them again', async () => {
    await writeFile(join(repo(), ORDERS), (await readFile(join(repo(), ORDERS), 'utf8')).replace('          fatal:\n            min_count: 1\n', '          fatal:\n            min_count: 99999\n'));
    const files = (await cachedLoad()).stats.parsed;
    await rm(specsFolder(), { recursive: true });
    const uncached = await loadRepository(repo());
    expect(uncached.diagnostics.some((d) => d.code === 'threshold_order')).toBe(true);

    const warm = await cachedFindings();
    expect(warm.stats).toEqual({ reused: files, parsed: 0 });
    expect(warm.findings.diagnostics).toEqual(uncached.diagnostics);
    expect(warm.findings.objectCount).toBe(uncached.objects.length);
    expect(existsSync(specsFolder())).toBe(false); // nothing changed: nothing written, no spec read

    // no shard: each spec is made again from the file (not counted as a parse), and the shards written
    expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });
    expect((await readdir(specsFolder())).length).toBeGreaterThan(0);

    // an edit seen by validate: that file parsed, its spec kept for the plan that follows
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 99999', 'min_count: 7'));
    const edited = await cachedFindings();
    expect(edited.stats).toEqual({ reused: files - 1, parsed: 1 });
    expect(edited.findings.diagnostics).toEqual((await loadRepository(repo())).diagnostics);
    expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });
  });

  it('never takes a spec of another content from a shard (an index and a shard of two different runs)', async () => {
    const files = (await cachedLoad()).stats.parsed;
    const before = join(dir, 'specs-before');
    await cp(specsFolder(), before, { recursive: true });
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 1', 'min_count: 7'));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 1 });

    // the shards of the run before the edit, beside the index of the run after it
    await rm(specsFolder(), { recursive: true });
    await cp(before, specsFolder(), { recursive: true });
    const { state } = await cachedLoad();
    expect(outcome(state)).toEqual(outcome(await loadRepository(repo())));
    expect(JSON.stringify(state.objects.find((o) => o.origin.file === ORDERS)?.spec)).toContain('"min_count":7');

    // a shard that is not JSON is ignored as the index is
    for (const name of await readdir(specsFolder())) await writeFile(join(specsFolder(), name), '{"format": ');
    expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });
  });

  it('leaves each spec in its shard until it is asked for, reading only that shard, and gives the spec of the same content', async () => {
    await cachedLoad();
    const uncached = await loadRepository(repo());
    const cache = await ParseCache.persisted(cacheFile);
    const state = await loadRepository(repo(), { cache });
    expect(cache.stats.parsed).toBe(0);
    // the load read no shard: hashes and the fingerprint come from the index
    expect(cache.specShardReads).toBe(0);
    expect(state.fingerprint).toBe(uncached.fingerprint);
    const orders = state.objects.find((o) => o.origin.file === ORDERS)!;
    expect(orders.spec).toEqual(uncached.objects.find((o) => o.origin.file === ORDERS)!.spec);
    expect(cache.specShardReads).toBe(1);
    // the other tables of its connection: the same shard, not read again
    for (const o of state.objects.filter((o) => o.origin.file.startsWith('sources/shop_oltp/') && o.kind === 'table')) void o.spec;
    expect(cache.specShardReads).toBe(1);
    expect(outcome(state)).toEqual(outcome(uncached));
    // a shard rewritten under the process with another content for the file: that spec is computed from the file,
    // read again (the objects do not hold every file's text), when it still has the content the object was made of;
    // a file changed since is refused (STALE_PLAN), never taken for the content the plan showed
    const other = await ParseCache.persisted(cacheFile);
    const again = await loadRepository(repo(), { cache: other });
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 1', 'min_count: 7'));
    const edited = await cachedLoad();
    expect(JSON.stringify(edited.state.objects.find((o) => o.origin.file === ORDERS)!.spec)).toContain('"min_count":7');
    expect(() => again.objects.find((o) => o.origin.file === ORDERS)!.spec).toThrow(expect.objectContaining({ code: 'STALE_PLAN' }));
    expect(knownSpecJson(again.objects.find((o) => o.origin.file === ORDERS)!)).toBeUndefined();
    await writeFile(join(repo(), ORDERS), text);
    expect(again.objects.find((o) => o.origin.file === ORDERS)!.spec).toEqual(uncached.objects.find((o) => o.origin.file === ORDERS)!.spec);
    // assigning a spec makes it a plain value
    const copy = again.objects.find((o) => o.origin.file === ORDERS)!;
    copy.spec = { replaced: true };
    expect(copy.spec).toEqual({ replaced: true });
  });

  it('a first load writes each shard while loading and leaves the specs it parsed there, as a warm load leaves those it reads', async () => {
    const uncached = await loadRepository(repo());
    const specOf = new Map(uncached.objects.map((o) => [o.origin.file, JSON.stringify(o.spec)]));
    const cache = await ParseCache.persisted(cacheFile);
    const cold = await loadRepository(repo(), { cache });
    // before save: the shards are there, and the objects of the files without attachments hold no spec
    expect((await readdir(specsFolder())).length).toBeGreaterThan(0);
    const lazy = (state: DesiredState) => state.objects.filter((o) => Object.getOwnPropertyDescriptor(o, 'spec')?.get !== undefined);
    expect(lazy(cold).length).toBeGreaterThan(uncached.objects.length / 2);
    expect(cache.specShardReads).toBe(0);
    for (const o of lazy(cold)) expect(knownSpecJson(o)).toBe(specOf.get(o.origin.file));
    expect(outcome(cold)).toEqual(outcome(uncached));
    await cache.save();
    const shards = new Map<string, string>();
    for (const name of await readdir(specsFolder())) shards.set(name, await readFile(join(specsFolder(), name), 'utf8'));

    // the next load reads those shards: every spec the same, the same objects lazy, nothing written again
    const warmCache = await ParseCache.persisted(cacheFile);
    const warm = await loadRepository(repo(), { cache: warmCache });
    await warmCache.save();
    expect(warmCache.stats.parsed).toBe(0);
    expect(lazy(warm).map((o) => o.origin.file)).toEqual(lazy(cold).map((o) => o.origin.file));
    for (const o of lazy(warm)) expect(knownSpecJson(o)).toBe(specOf.get(o.origin.file));
    expect(outcome(warm)).toEqual(outcome(uncached));
    for (const [name, text] of shards) expect(await readFile(join(specsFolder(), name), 'utf8')).toBe(text);

    // an edit: its shard is written while loading, the other files' specs kept in it from the shard before
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 1', 'min_count: 7'));
    const edited = await cachedLoad();
    expect(edited.stats.parsed).toBe(1);
    expect(outcome(edited.state)).toEqual(outcome(await loadRepository(repo())));
    expect(lazy(edited.state).map((o) => o.origin.file)).toEqual(lazy(cold).map((o) => o.origin.file));
    expect(await expectSameAsUncached()).toEqual({ reused: edited.stats.parsed + edited.stats.reused, parsed: 0 });
  });

  it('a first load whose shards cannot be written keeps the specs it parsed, and gives the same desired state', async () => {
    // the specs folder is a file: no shard can be written (a read-only cache does the same)
    await writeFile(join(dir, 'cache-file'), '');
    cacheFile = join(dir, 'cache-file', 'parse.json');
    const cache = await ParseCache.persisted(cacheFile);
    const state = await loadRepository(repo(), { cache });
    await expect(cache.save()).rejects.toThrow();
    expect(state.objects.filter((o) => Object.getOwnPropertyDescriptor(o, 'spec')?.get !== undefined)).toEqual([]);
    expect(outcome(state)).toEqual(outcome(await loadRepository(repo())));
  });

  it('writes a shard larger than its pieces an entry at a time, and reads back the same specs (escapes and unicode across pieces)', async () => {
    const specs = new Map<string, PersistedSpec>();
    for (let i = 0; i < 400; i++) {
      const spec = { labels: [`"quoted" \\ été 😀 \u2028 ${i}`, 'x'.repeat(500 + i)], n: i };
      specs.set(`sources/big/t${i}.dqotable.yaml`, { sha: String(i).padStart(64, '0'), ...(i % 3 === 0 ? { variablesKey: `k${i}` } : {}), specJson: JSON.stringify(spec) });
    }
    await writeSpecShard(cacheFile, 'sources/big', specs);
    const [name] = await readdir(specsFolder());
    const text = await readFile(join(specsFolder(), name), 'utf8');
    expect(text.length).toBeGreaterThan(3 * 64 * 1024);
    expect(JSON.parse(text).entries).toEqual(Object.fromEntries(specs));
    expect(await readSpecShard(cacheFile, 'sources/big')).toEqual(specs);
  });

  it('writes only the entries of a few edits, to a delta on top of the index; a delta of another index is ignored', async () => {
    const files = (await cachedLoad()).stats.parsed;
    const index = await readFile(cacheFile, 'utf8');
    const text = await readFile(join(repo(), ORDERS), 'utf8');
    await writeFile(join(repo(), ORDERS), text.replace('min_count: 1', 'min_count: 7'));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 1 });
    // the index is as it was; the delta holds the edited file alone
    expect(await readFile(cacheFile, 'utf8')).toBe(index);
    const delta = JSON.parse(await readFile(deltaFile(), 'utf8')) as { entries: Record<string, unknown>; removed: string[] };
    expect(Object.keys(delta.entries)).toEqual([ORDERS]);
    expect(await expectSameAsUncached()).toEqual({ reused: files, parsed: 0 });

    // a deletion on top: the delta keeps the edit and names the file gone
    await unlink(join(repo(), PAYMENTS));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 0 });
    const after = JSON.parse(await readFile(deltaFile(), 'utf8')) as { entries: Record<string, unknown>; removed: string[] };
    expect(Object.keys(after.entries)).toEqual([ORDERS]);
    expect(after.removed).toEqual([PAYMENTS]);
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 0 });

    // an index of another run beside this delta (its base): the delta is ignored, the edited file parsed again
    const foreign = JSON.parse(index) as { id: string };
    foreign.id = 'another-index';
    await writeFile(cacheFile, JSON.stringify(foreign));
    expect(await expectSameAsUncached()).toEqual({ reused: files - 2, parsed: 1 });
    // a corrupt delta: the index alone answers
    await writeFile(deltaFile(), '{"format": ');
    expect(await expectSameAsUncached()).toEqual({ reused: files - 2, parsed: 1 });
    expect(await expectSameAsUncached()).toEqual({ reused: files - 1, parsed: 0 });
  });

  it('is safe with two processes loading and writing it at once', async () => {
    const script = `
      import { loadRepository } from ${JSON.stringify(new URL('../../src/manifest/loadRepository.ts', import.meta.url).href)};
      import { ParseCache } from ${JSON.stringify(new URL('../../src/manifest/parseCache.ts', import.meta.url).href)};
      const [repo, file] = process.argv.slice(-2);
      const out = [];
      for (let i = 0; i < 4; i++) {
        const cache = await ParseCache.persisted(file);
        const state = await loadRepository(repo, { cache });
        await cache.save();
        out.push(state.fingerprint);
      }
      process.stdout.write(JSON.stringify(out));
    `;
    const run = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', repo(), cacheFile], { cwd: process.cwd() });
    const expected = (await loadRepository(repo())).fingerprint;
    const results = await Promise.all([run(), run()]);
    for (const r of results) expect(JSON.parse(r.stdout)).toEqual([expected, expected, expected, expected]);
    // what they left is a whole cache that answers for every file
    const { stats } = await cachedLoad();
    expect(stats.parsed).toBe(0);
    expect(await expectSameAsUncached()).toEqual({ reused: stats.reused, parsed: 0 });
  });
});
