/**
 * The parse workers (src/manifest/parseWorkers.ts): a load whose files are shared with worker threads answers
 * exactly what a load on one thread does (findings with their file:line:column, texts, objects, the parse cache
 * written), and a worker that cannot start, dies or answers wrongly costs time, never an answer. Under vitest the
 * workers run src/manifest/parseWorker.ts through tsx (test/cli/validateWorkers.test.ts runs the built bin).
 */
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState } from '../../src/manifest/desiredState.js';
import { loadRepository, loadRepositoryFindings, type RepositoryFindings } from '../../src/manifest/loadRepository.js';
import { ParseCache } from '../../src/manifest/parseCache.js';
import { parseWorkerCount, type ParseWorkerOptions, type ParseWorkers } from '../../src/manifest/parseWorkers.js';
import { readPersistedEntries } from '../../src/manifest/persistedParseCache.js';
import { manyFilesRepository } from '../helpers/manyFilesRepository.js';

type Stats = ParseWorkers['stats'];
const ONE_THREAD: ParseWorkerOptions = { count: 0 };
const fixture = (name: string) => new URL(`../fixtures/parseWorkers/${name}`, import.meta.url);

function outcome(state: DesiredState) {
  return { objects: state.objects, diagnostics: state.diagnostics, fingerprint: state.fingerprint, texts: [...state.texts] };
}
function findings(answer: RepositoryFindings) {
  return { diagnostics: answer.diagnostics, texts: [...answer.texts], objectCount: answer.objectCount };
}

describe('parse workers', () => {
  let dir: string;
  let repo: string;
  let single: RepositoryFindings;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-workers-'));
    repo = join(dir, 'repo');
    await manyFilesRepository(repo, 300);
    single = await loadRepositoryFindings(repo, { environment: 'prod', parseWorkers: ONE_THREAD });
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function withWorkers(options: ParseWorkerOptions, load: (parseWorkers: ParseWorkerOptions) => Promise<unknown>): Promise<Stats> {
    let stats: Stats | undefined;
    await load({ minFiles: 0, ...options, onClose: (s) => (stats = s) });
    expect(stats).toBeDefined();
    return stats!;
  }

  it('the repository has errors spread over many files, of every stage of a file\'s checks', () => {
    const codes = new Set(single.diagnostics.map((d) => d.code));
    for (const code of ['yaml_syntax', 'kind_mismatch', 'unknown_key', 'quoted_scalar', 'unknown_connection', 'unstorable_text', 'not_a_document', 'variable_undefined']) {
      expect(codes, code).toContain(code);
    }
    expect(new Set(single.diagnostics.map((d) => d.range?.filename)).size).toBeGreaterThan(40);
  });

  it('finds what one thread finds, at the same file:line:column, with the same texts', async () => {
    let answer!: RepositoryFindings;
    const stats = await withWorkers({ count: 2 }, async (parseWorkers) => (answer = await loadRepositoryFindings(repo, { environment: 'prod', parseWorkers })));
    expect(findings(answer)).toEqual(findings(single));
    expect(stats.failures).toEqual([]);
    expect(stats.parsed).toBeGreaterThan(0);
  }, 60_000);

  it('loads the same desired state (objects, specs, hashes, fingerprint), in another environment too', async () => {
    for (const environment of ['prod', 'dev']) {
      let state!: DesiredState;
      const stats = await withWorkers({ count: 1 }, async (parseWorkers) => (state = await loadRepository(repo, { environment, parseWorkers })));
      expect(stats.parsed).toBeGreaterThan(0);
      expect(outcome(state)).toEqual(outcome(await loadRepository(repo, { environment, parseWorkers: ONE_THREAD })));
    }
  }, 60_000);

  it('writes the parse cache one thread writes, and the next (warm) load reuses it whole', async () => {
    const cacheOf = async (name: string, parseWorkers: ParseWorkerOptions) => {
      const file = join(dir, name, 'parse.json');
      const cache = await ParseCache.persisted(file);
      await loadRepositoryFindings(repo, { environment: 'prod', cache, parseWorkers });
      await cache.save();
      return file;
    };
    const one = await cacheOf('cache-one', ONE_THREAD);
    let two = '';
    const stats = await withWorkers({ count: 2 }, async (parseWorkers) => (two = await cacheOf('cache-two', parseWorkers)));
    expect(stats.parsed).toBeGreaterThan(0);
    expect(Object.fromEntries(await readPersistedEntries(two))).toEqual(Object.fromEntries(await readPersistedEntries(one)));
    const shards = async (file: string) => {
      const folder = file.replace(/\.json$/, '.specs');
      const names = (await readdir(folder)).sort();
      return Promise.all(names.map(async (name) => [name, await readFile(join(folder, name), 'utf8')])); // byte for byte
    };
    const shardsOne = await shards(one);
    expect(shardsOne.length).toBeGreaterThan(1);
    expect(await shards(two)).toEqual(shardsOne);

    // a plan after that validate: every file from the cache, the same desired state as without one
    const cache = await ParseCache.persisted(two);
    const state = await loadRepository(repo, { environment: 'prod', cache, parseWorkers: { count: 1, minFiles: 0 } });
    expect(cache.stats.parsed).toBe(0);
    expect(JSON.parse(JSON.stringify(outcome(state)))).toEqual(JSON.parse(JSON.stringify(outcome(await loadRepository(repo, { environment: 'prod', parseWorkers: ONE_THREAD })))));
  }, 120_000);

  it.each([
    ['cannot start (its module throws)', 'throwsOnLoad.mjs', /parse worker failed: this parse worker cannot start/],
    ['dies when sent its first files', 'exitsOnFirstBatch.mjs', /parse worker exited \(code 3\)/],
  ])('a worker that %s: its files are parsed by the main thread, the answer is the same, one warning says why', async (_what, script, why) => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on('warning', listener);
    try {
      let answer!: RepositoryFindings;
      const stats = await withWorkers({ count: 2, script: fixture(script) }, async (parseWorkers) => (answer = await loadRepositoryFindings(repo, { environment: 'prod', parseWorkers })));
      expect(findings(answer)).toEqual(findings(single));
      expect(stats.parsed).toBe(0);
      expect(stats.failures).toHaveLength(2);
      expect(stats.failures[0]).toMatch(why);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings.filter((w) => (w as Error & { code?: string }).code === 'DQCTL_PARSE_WORKER')).toHaveLength(1);
    } finally {
      process.off('warning', listener);
    }
  }, 60_000);

  it('a worker that answers a batch with an error or with the wrong results: those files are parsed by the main thread', async () => {
    let answer!: RepositoryFindings;
    const stats = await withWorkers({ count: 1, script: fixture('answersWrongly.mjs') }, async (parseWorkers) => (answer = await loadRepositoryFindings(repo, { environment: 'prod', parseWorkers })));
    expect(findings(answer)).toEqual(findings(single));
    expect(stats.failures).toEqual([]);
    expect(stats.parsed).toBe(0);
    expect(stats.returned).toBeGreaterThan(0);
  }, 60_000);

  it('start while a folder without cache entries is listed, and are given its settings before its files', async () => {
    for (const environment of ['prod', 'dev']) {
      const one = await loadRepository(repo, { environment, parseWorkers: ONE_THREAD });
      let state!: DesiredState;
      const stats = await withWorkers({ count: 1, minFiles: 50 }, async (parseWorkers) => (state = await loadRepository(repo, { environment, parseWorkers })));
      expect(stats.startedEarly).toBe(true);
      expect(stats.parsed).toBeGreaterThan(0);
      expect(outcome(state)).toEqual(outcome(one));
    }
    // with a cache that has entries, the load counts the files it must parse first, and starts them after the listing
    const cache = new ParseCache();
    await loadRepositoryFindings(repo, { environment: 'prod', cache, parseWorkers: ONE_THREAD });
    const stats = await withWorkers({ count: 1, minFiles: 0 }, (parseWorkers) => loadRepositoryFindings(repo, { environment: 'prod', cache, parseWorkers }));
    expect(stats.startedEarly).toBe(false);
  }, 120_000);

  it('started early and not needed (fewer object files than files listed): ended, and the answer is the same', async () => {
    const few = join(dir, 'few');
    await manyFilesRepository(few, 20);
    for (let i = 0; i < 60; i++) await writeFile(join(few, 'sources', 'shop_oltp', `notes-${i}.txt`), 'not a DQOps file\n');
    const one = await loadRepositoryFindings(few, { environment: 'prod', parseWorkers: ONE_THREAD });
    let answer!: RepositoryFindings;
    const stats = await withWorkers({ count: 1, minFiles: 50 }, async (parseWorkers) => (answer = await loadRepositoryFindings(few, { environment: 'prod', parseWorkers })));
    expect(stats.startedEarly).toBe(true);
    expect(stats.parsed).toBe(0);
    expect(findings(answer)).toEqual(findings(one));
  }, 60_000);

  it('a file that cannot be read stops the load as it does on one thread', async () => {
    const broken = join(dir, 'broken');
    await manyFilesRepository(broken, 60);
    await symlink(join(broken, 'nowhere.yaml'), join(broken, 'sources', 'shop_oltp', 'public.dangling.dqotable.yaml'));
    const one = await loadRepositoryFindings(broken, { environment: 'prod', parseWorkers: ONE_THREAD }).then(findings, (error: Error) => error.message);
    let answer: unknown;
    const stats = await withWorkers({ count: 1 }, async (parseWorkers) => (answer = await loadRepositoryFindings(broken, { environment: 'prod', parseWorkers }).then(findings, (error: Error) => error.message)));
    expect(answer).toEqual(one);
    expect(stats.failures).toEqual([]);
  }, 60_000);

  it('starts workers only for enough files, as many as asked, DQCTL_PARSE_WORKERS, else one fewer than the cores', () => {
    expect(parseWorkerCount(10, {})).toBe(0);
    expect(parseWorkerCount(10, { minFiles: 5, count: 3 })).toBe(3);
    expect(parseWorkerCount(1000, {}, { DQCTL_PARSE_WORKERS: 'off' })).toBe(0);
    expect(parseWorkerCount(1000, {}, { DQCTL_PARSE_WORKERS: '0' })).toBe(0);
    expect(parseWorkerCount(1000, {}, { DQCTL_PARSE_WORKERS: '3' })).toBe(3);
    expect(parseWorkerCount(1000, { count: 0 }, { DQCTL_PARSE_WORKERS: '3' })).toBe(0);
    expect(parseWorkerCount(1000, {}, {})).toBeGreaterThanOrEqual(0);
  });
});
