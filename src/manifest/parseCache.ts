import type { Diagnostic, JsonObject } from '../model/index.js';
import type { LoadedObject } from './semanticChecks.js';

/**
 * What loading one object file produced (its text, diagnostics, the parsed object, and lazily its normalized
 * spec and hash), kept between loads of the same repository by a long-running process (the reconcile loop), so
 * that a load after a one-file edit re-parses one file, not ten thousand.
 *
 * Safe because an entry is reused only for the same path and the same content: the same `version` when the
 * source gives one (DirectorySource: size, mtime, ctime and inode; a git blob id), else the same text, read
 * again. Everything checked across files (duplicates, connections, lineage) is still checked on every load.
 * Entries are values shared by the loads that reuse them: nobody may change them.
 */
export interface ParsedFile {
  version: string | undefined;
  text: string;
  diagnostics: Diagnostic[];
  /** Present when the file parsed and passed its envelope and schema checks. */
  loaded?: LoadedObject;
  /** normalizeSpec(loaded.rawSpec), computed once. */
  spec?: JsonObject;
  /** contentHash(spec, {}), for objects without attachments. */
  hash?: string;
  /**
   * The `${var.…}` the file uses and VariableScope.keyOf them when it was parsed: the entry holds substituted
   * values, so it is reused only while that key is the same (another --env, or a changed value in dqctl.yaml,
   * parses the file again). Absent: the file uses no variable, and is the same in every environment.
   */
  variables?: { names: string[]; key: string };
}

export class ParseCache {
  private entries = new Map<string, ParsedFile>();
  private seen = new Set<string>();
  /** Files reused / parsed by the last load, for logs and benchmarks. */
  stats = { reused: 0, parsed: 0 };

  /** The entry of `path` if `version` (or, without one, `text`) still matches it. */
  lookup(path: string, match: { version?: string; text?: string }): ParsedFile | undefined {
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    const same = match.version !== undefined ? entry.version === match.version : match.text !== undefined && entry.text === match.text;
    return same ? entry : undefined;
  }

  beginLoad(): void {
    this.seen.clear();
    this.stats = { reused: 0, parsed: 0 };
  }

  use(path: string, entry: ParsedFile, reused: boolean): void {
    this.entries.set(path, entry);
    this.seen.add(path);
    if (reused) this.stats.reused++;
    else this.stats.parsed++;
  }

  /** Drops the entries of files the last load did not see (deleted or renamed). */
  endLoad(): void {
    for (const path of this.entries.keys()) if (!this.seen.has(path)) this.entries.delete(path);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
