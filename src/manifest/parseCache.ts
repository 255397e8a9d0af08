import { readPersistedEntries, type PersistedEntry, restoreEntry, sha256, writePersistedEntries } from './persistedParseCache.js';
import type { ParsedFile } from './parsedFile.js';

export type { ParsedFile } from './parsedFile.js';

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
 * entry is found by path and the sha256 of the text just read, never by a file's version.
 */
export class ParseCache {
  private entries = new Map<string, ParsedFile>();
  private seen = new Set<string>();
  /** The entries read from `file` that no load has used yet (persisted caches only). */
  private onDisk = new Map<string, PersistedEntry>();
  /** Whether the entries differ from what `file` holds. */
  private changed = false;
  /** Files reused / parsed by the last load, for logs and benchmarks. */
  stats = { reused: 0, parsed: 0 };

  /** `file`: see `persisted` (new ParseCache() is a cache of one process's loads). */
  constructor(private readonly file?: string) {}

  /** A cache kept in `file` between processes (a missing, corrupt or foreign file starts it empty). */
  static async persisted(file: string): Promise<ParseCache> {
    const cache = new ParseCache(file);
    const entries = await readPersistedEntries(file);
    cache.onDisk = entries;
    return cache;
  }

  /** The entry of `path` if `version` (or, without one, `text`) still matches it. */
  lookup(path: string, match: { version?: string; text?: string }): ParsedFile | undefined {
    const entry = this.entries.get(path);
    if (entry) {
      const same = match.version !== undefined ? entry.version === match.version : match.text !== undefined && entry.text === match.text;
      if (same) return entry;
    }
    const stored = match.text !== undefined ? this.onDisk.get(path) : undefined;
    if (!stored || stored.sha !== sha256(match.text!)) return undefined;
    return { ...restoreEntry(path, match.text!, stored), version: undefined };
  }

  beginLoad(): void {
    this.seen.clear();
    this.stats = { reused: 0, parsed: 0 };
  }

  use(path: string, entry: ParsedFile, reused: boolean): void {
    if (!reused) this.changed = true;
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
      this.changed = true;
    }
    // what the file held and no load used (deleted, renamed, or changed and parsed again) is not written back
    if (this.onDisk.size > 0) {
      for (const path of this.onDisk.keys()) if (!this.seen.has(path)) this.changed = true;
      this.onDisk.clear();
    }
  }

  /** Writes the entries to the cache's file when they differ from it (a persisted cache; else nothing). */
  async save(): Promise<void> {
    if (!this.file || !this.changed) return;
    await writePersistedEntries(this.file, this.entries);
    this.changed = false;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.onDisk.clear();
  }
}
