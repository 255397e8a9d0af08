import type { JsonObject } from '../model/index.js';
import {
  persistedSpecOf,
  readPersistedIndex,
  readSpecShard,
  readSpecShardSync,
  restoreEntry,
  sha256,
  specMatches,
  specShardExists,
  specShardOf,
  specOfText,
  writePersistedDelta,
  writePersistedEntries,
  writeSpecShard,
  type PersistedEntry,
  type PersistedSpec,
} from './persistedParseCache.js';
import type { ParsedFile } from './parsedFile.js';

export type { ParsedFile } from './parsedFile.js';

/** How many spec shards a cache holds for lazySpec (a shard is one connection's tables: 1.7 MB of JSON at 1,000 tables). */
const RECENT_SHARDS = 4;

/** The index is written whole when its delta would hold more than DELTA_MIN entries and 1/DELTA_SHARE of them. */
const DELTA_MIN = 1_000;
const DELTA_SHARE = 50;

/**
 * What loading one object file produced (its text, diagnostics, the parsed object, and lazily its normalized
 * spec and hash), kept between loads of the same repository by a long-running process (the reconcile loop), so
 * that a load after a one-file edit re-parses one file, not ten thousand.
 *
 * Safe because an entry is reused only for the same path and the same content: the same `version` when the
 * source gives one (DirectorySource: size, mtime, ctime and inode; a git blob id), else the same text, read
 * again. Everything checked across files (duplicates, connections, lineage) is still checked on every load.
 * Entries are values shared by the loads that reuse them: nobody may change them.
 *
 * `ParseCache.persisted(file)` also keeps the entries on disk between processes (persistedParseCache.ts): there an
 * entry is found by path and the sha256 of the text just read, never by a file's version. Its index is read at
 * once (with its delta); the normalized specs only when a load asks for them (`storedSpec`), one shard at a time,
 * or, for an object restored with its hash, only when a plan or an apply reads that object's spec (`lazySpec`).
 * A load that parses files writes their shards as it goes (`writeShardNow`), and their objects read their specs
 * from there too: a first run holds no more specs than a warm one.
 */
export class ParseCache {
  private entries = new Map<string, ParsedFile>();
  private seen = new Set<string>();
  /** The entries read from `file` that no load has used yet (persisted caches only). */
  private onDisk = new Map<string, PersistedEntry>();
  /** Whether the entries differ from what `file` holds. */
  private changed = false;
  /** The identity of the index read or written last (null: none), and the paths its delta holds. */
  private indexId: string | null = null;
  private deltaPaths = new Set<string>();
  /** The paths whose entries changed (parsed again, or gone) since the index and delta were read or written. */
  private changedPaths = new Set<string>();
  /** The spec shards read so far (persisted caches only). */
  private shards = new Map<string, Promise<Map<string, PersistedSpec>>>();
  /** The shards whose specs differ from what their files hold. */
  private dirtyShards = new Set<string>();
  /** The shards the current load wrote already (writeShardNow): what it holds of them is on disk. */
  private writtenShards = new Set<string>();
  /** Whether a shard has a file, as far as this cache knows (canDeferSpec asks once a shard, not once a file). */
  private shardFiles = new Map<string, boolean>();
  /** What `lazySpec`'s functions read the shards with (persisted caches only). */
  private readonly reader: SpecShardReader | undefined;
  /** Files reused / parsed by the last load, for logs and benchmarks. */
  stats = { reused: 0, parsed: 0 };

  /** `file`: see `persisted` (new ParseCache() is a cache of one process's loads). */
  constructor(private readonly file?: string) {
    this.reader = file ? new SpecShardReader(file) : undefined;
  }

  /** A cache kept in `file` between processes (a missing, corrupt or foreign file starts it empty). */
  static async persisted(file: string): Promise<ParseCache> {
    const cache = new ParseCache(file);
    const index = await readPersistedIndex(file);
    cache.onDisk = index.entries;
    cache.indexId = index.id;
    cache.deltaPaths = index.delta;
    return cache;
  }

  /** The entry of `path` if `version` (or, without one, `text`) still matches it; `sha`: the sha256 of `text`, if known. */
  lookup(path: string, match: { version?: string; text?: string; sha?: string }): ParsedFile | undefined {
    const entry = this.entries.get(path);
    if (entry) {
      const same = match.version !== undefined ? entry.version === match.version : match.text !== undefined && entry.text === match.text;
      if (same) return entry;
    }
    const stored = match.text !== undefined ? this.onDisk.get(path) : undefined;
    if (!stored || stored.sha !== (match.sha ?? sha256(match.text!))) return undefined;
    return { ...restoreEntry(path, match.text!, stored), version: undefined };
  }

  /** Whether the cache holds an entry of `path` (of some content: lookup says whether it answers for this one). */
  has(path: string): boolean {
    return this.entries.has(path) || this.onDisk.has(path);
  }

  /**
   * The normalized spec of an entry restored from disk, from its shard when the shard holds it for the same
   * content; undefined otherwise (the caller computes it, and the shard is written again).
   */
  async storedSpec(path: string, entry: ParsedFile): Promise<JsonObject | undefined> {
    if (!this.file || entry.sha === undefined) return undefined;
    const stored = (await this.shard(specShardOf(path))).get(path);
    const spec = specMatches(stored, entry) ? specOfText(stored) : undefined;
    if (spec) return spec;
    this.markShard(path, true);
    return undefined;
  }

  /**
   * Whether the spec of `entry` (restored from disk, its hash known) may be left in its shard until somebody asks
   * for it (`lazySpec`): only when the shard has a file. Without one, the load computes the spec now and the shard
   * is written again (a cache whose shards were removed heals on the next run).
   */
  canDeferSpec(path: string, entry: ParsedFile): boolean {
    if (!this.file || entry.sha === undefined || entry.hash === undefined || entry.rawSpec) return false;
    const shard = specShardOf(path);
    let exists = this.shardFiles.get(shard);
    if (exists === undefined) this.shardFiles.set(shard, (exists = specShardExists(this.file, shard)));
    return exists;
  }

  /** Whether the cache keeps specs on disk (a persisted cache: writeShardNow and lazySpec can be used). */
  get keepsSpecs(): boolean {
    return this.file !== undefined;
  }

  /**
   * Writes the spec shard `shard` during the load that parsed some of its files, as soon as every file of the shard
   * is loaded, so that the objects of the files parsed now leave their specs in it (lazySpec), as the objects of a
   * warm load do, instead of holding every spec until the plan is made (a first run at 100,000 tables: most of the
   * memory of its plan and apply, issue 25). `files`: every file of this load in the shard, with its entry and, when
   * parsed now, its spec's text; a file reused keeps the spec the shard holds for its content (as save). False when
   * the shard could not be written (a read-only cache): the caller keeps the specs, and save tries again.
   */
  async writeShardNow(shard: string, files: ReadonlyArray<{ path: string; entry: ParsedFile; specJson?: string }>): Promise<boolean> {
    if (!this.file) return false;
    try {
      const reused = files.some((f) => f.specJson === undefined && f.entry.spec === undefined);
      const stored = reused ? await (this.shards.get(shard) ?? readSpecShard(this.file, shard)) : new Map<string, PersistedSpec>();
      const specs = new Map<string, PersistedSpec>();
      for (const { path, entry, specJson } of files) {
        const sha = entry.sha ?? sha256(entry.text);
        const made = specJson !== undefined ? { ...entry, sha, specJson } : entry;
        const spec = persistedSpecOf(made) ?? stored.get(path);
        if (specMatches(spec, { sha, variables: entry.variables })) specs.set(path, spec);
      }
      await writeSpecShard(this.file, shard, specs);
      this.shardFiles.set(shard, specs.size > 0);
    } catch {
      return false;
    }
    this.shards.delete(shard);
    this.reader?.forget(shard);
    this.dirtyShards.delete(shard);
    this.writtenShards.add(shard);
    return true;
  }

  /**
   * The spec of `entry` read from its shard when first asked for, synchronously, from the few shards read last
   * (a plan asks for the specs of its changes only; an apply of creates asks shard by shard). The spec is taken only
   * for the same content (sha256 and variables' key, as `storedSpec`); a shard rewritten since by another process,
   * or corrupt, answers undefined and the caller computes the spec from the text. The function returned holds
   * neither the cache nor the entry (a plan's objects keep it until the apply): only the shard reader and the key.
   */
  lazySpec(path: string, entry: ParsedFile): { spec: () => JsonObject | undefined; json: () => string | undefined } {
    const reader = this.reader;
    const key = { sha: entry.sha, variables: entry.variables };
    return {
      spec: () => {
        const json = reader?.specJsonOf(path, key);
        return json === undefined ? undefined : specOfText({ sha: key.sha!, specJson: json });
      },
      // the spec's text as the shard holds it (JSON.stringify of that spec): an apply sends it to the store as it is
      json: () => reader?.specJsonOf(path, key),
    };
  }

  /** How many times the cache's getters read a shard, for tests and benchmarks. */
  get specShardReads(): number {
    return this.reader?.reads ?? 0;
  }

  private shard(shard: string): Promise<Map<string, PersistedSpec>> {
    let read = this.shards.get(shard);
    if (!read) this.shards.set(shard, (read = readSpecShard(this.file!, shard)));
    return read;
  }

  /** `path`'s spec is not what its shard holds; `always`: even when this load wrote the shard (its spec was missing). */
  private markShard(path: string, always = false): void {
    if (!this.file) return;
    const shard = specShardOf(path);
    // a shard written by this load holds this load's files as they are: a file new, changed or gone is in it already
    if (!always && this.writtenShards.has(shard)) return;
    this.dirtyShards.add(shard);
    this.changed = true;
  }

  /** `path`'s entry is new, changed or gone: the index (or its delta) is written again. */
  private markEntry(path: string): void {
    this.changed = true;
    this.markShard(path);
    if (this.file) this.changedPaths.add(path);
  }

  beginLoad(): void {
    this.seen.clear();
    this.writtenShards.clear();
    this.shardFiles.clear();
    this.stats = { reused: 0, parsed: 0 };
  }

  use(path: string, entry: ParsedFile, reused: boolean): void {
    if (!reused) this.markEntry(path);
    this.entries.set(path, entry);
    this.seen.add(path);
    if (reused) this.stats.reused++;
    else this.stats.parsed++;
  }

  /** Drops the entries of files the last load did not see (deleted or renamed). */
  endLoad(): void {
    for (const path of this.entries.keys()) {
      if (this.seen.has(path)) continue;
      this.entries.delete(path);
      this.markEntry(path);
    }
    // what the file held and no load used (deleted, renamed, or changed and parsed again) is not written back
    if (this.onDisk.size > 0) {
      for (const path of this.onDisk.keys()) {
        if (this.seen.has(path)) continue;
        this.markEntry(path);
      }
      this.onDisk.clear();
    }
  }

  /** Writes the entries to the cache's file when they differ from it (a persisted cache; else nothing). */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return;
    // a few edits: only their entries, in a delta on top of the index read (the whole index once they are many)
    const delta = new Set([...this.deltaPaths, ...this.changedPaths]);
    if (this.indexId !== null && delta.size <= Math.max(DELTA_MIN, this.entries.size / DELTA_SHARE)) {
      await writePersistedDelta(this.file, this.indexId, this.entries, delta);
      this.deltaPaths = delta;
    } else {
      this.indexId = await writePersistedEntries(this.file, this.entries);
      this.deltaPaths = new Set();
    }
    this.changedPaths.clear();
    // a changed shard keeps the specs known now, and of its stored ones those still of the same content
    const pathsOf = new Map<string, string[]>();
    for (const path of this.entries.keys()) {
      const shard = specShardOf(path);
      if (this.dirtyShards.has(shard)) pathsOf.set(shard, [...(pathsOf.get(shard) ?? []), path]);
    }
    for (const shard of this.dirtyShards) {
      const stored = await this.shard(shard);
      const specs = new Map<string, PersistedSpec>();
      for (const path of pathsOf.get(shard) ?? []) {
        const entry = this.entries.get(path)!;
        const spec = persistedSpecOf(entry) ?? stored.get(path);
        if (specMatches(spec, { ...entry, sha: entry.sha ?? sha256(entry.text) })) specs.set(path, spec);
      }
      await writeSpecShard(this.file, shard, specs);
      this.shardFiles.set(shard, specs.size > 0);
      this.shards.set(shard, Promise.resolve(specs));
      this.reader?.forget(shard);
    }
    this.dirtyShards.clear();
    this.changed = false;
  }

  get size(): number {
    return this.entries.size;
  }

  /** No entry at all, in memory or on disk (a first load: every file is parsed). */
  get empty(): boolean {
    return this.entries.size === 0 && this.onDisk.size === 0;
  }

  clear(): void {
    this.entries.clear();
    this.onDisk.clear();
    this.shards.clear();
    this.shardFiles.clear();
    this.reader?.forget();
  }
}

/** Reads spec shards synchronously, holding the last RECENT_SHARDS read (the most recent last). */
class SpecShardReader {
  private recent = new Map<string, Map<string, PersistedSpec>>();
  reads = 0;
  constructor(private readonly file: string) {}

  /** The text of the spec of `path` for the content `key`, when its shard holds it. */
  specJsonOf(path: string, key: Pick<ParsedFile, 'sha' | 'variables'>): string | undefined {
    if (key.sha === undefined) return undefined;
    const shard = specShardOf(path);
    let specs = this.recent.get(shard);
    if (specs) this.recent.delete(shard);
    else {
      specs = readSpecShardSync(this.file, shard);
      this.reads++;
    }
    this.recent.set(shard, specs);
    if (this.recent.size > RECENT_SHARDS) this.recent.delete(this.recent.keys().next().value!);
    const stored = specs.get(path);
    return specMatches(stored, key) ? stored.specJson : undefined;
  }

  /** Drops a shard (written again) or every shard held. */
  forget(shard?: string): void {
    if (shard === undefined) this.recent.clear();
    else this.recent.delete(shard);
  }
}
