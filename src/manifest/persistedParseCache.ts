import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG_FILE, SCHEMAS_DIR } from '../catalog/packagePaths.js';
import { isJsonObject, type Diagnostic, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';
import type { ParsedFile } from './parsedFile.js';
import type { DocumentSemantics } from './semanticChecks.js';
import { locatorOf } from './yamlDocument.js';

/**
 * The parse cache on disk: what loading each object file produced, kept between processes so that `dqctl plan`
 * after a one-file edit parses one file, and `dqctl validate` of an unchanged repository parses none.
 *
 * Two parts, so that a process reads only what it needs:
 * - the index (`file`): per file, its diagnostics, its identity and what the checks across files need of it
 *   (DocumentSemantics: its own findings and the names it refers to), and its content hash. Small (a few hundred
 *   bytes a file); `validate` reads only this;
 *   After a few edits only their entries are written, to a delta beside it (`<file minus .json>.delta.json`,
 *   naming the index it applies to), so that the first plan after an edit does not write 45 MB again; the index is
 *   written whole once the delta holds more than a few percent of the files;
 * - the specs (`<file minus .json>.specs/<shard>.json`, one shard per connection folder, one for the connections
 *   and one per other top folder): the normalized spec of each file as its JSON text (a string in the shard), read
 *   shard by shard when a plan or an apply asks for a spec (a plan of one change reads the shard of that change). As
 *   text, so that an apply sends it to the store as it is (COPY) and a shard read is strings, not objects: parsing
 *   every spec into objects only to serialize it again was most of an apply's heap at 100,000 tables (issue 25).
 *   A load that parses a shard's files writes the shard as soon as they are all loaded (ParseCache.writeShardNow),
 *   so that a first run, too, leaves every spec there instead of holding it until its plan is made;
 * - the index and the shards are written an entry at a time, in pieces: never one text of a whole file.
 *
 * Why it is safe:
 * - an entry answers only for the same path and the same content: its sha256 is compared with the text just read
 *   (so an edit, a rename, a deletion and a change back are always seen: nothing is trusted but the bytes); a spec
 *   answers only with the sha256 and the variables' key of the index entry it completes, so an index and a shard
 *   written by two different processes never mix two contents;
 * - the whole cache answers only for the same code: each file's key hashes the schemas, the check catalog and the
 *   source of the modules whose output it holds (manifest, diff, schema, model), so a new dqctl never reads an old
 *   answer;
 * - settings: an entry that used `${var.…}` keeps the key of those variables' values (ParsedFile.variables) and is
 *   reused only while it is the same, as in memory;
 * - a file that is not JSON, of another format or key, or of a wrong shape is ignored (and rewritten);
 * - each file is written whole to a temporary file and renamed over the old one, so two processes at once each
 *   read complete files (one of theirs, or the other's) and the last writer wins; a delta whose base is not the
 *   index found beside it is ignored.
 */
const FORMAT = 'dqctl-parse-cache/3';
const SPECS_FORMAT = 'dqctl-parse-cache-specs/3';
const DELTA_FORMAT = 'dqctl-parse-cache-delta/1';

/** What one file's entry keeps in the index (the text is not kept: its sha256 stands for it). */
export interface PersistedEntry {
  sha: string;
  diagnostics: Diagnostic[];
  variables?: { names: string[]; key: string };
  /** Present when the file loaded: its identity and what the checks across files need of its document. */
  loaded?: { kind: ObjectKind; name: string; connection?: string; semantics: DocumentSemantics };
  hash?: string;
}

/** One file's normalized spec in its shard, for the content (sha256) and variables' key it was made from. */
export interface PersistedSpec {
  sha: string;
  variablesKey?: string;
  /** JSON.stringify of the spec (a JSON object's text). */
  specJson: string;
}

interface CacheDocument<T> {
  format: string;
  key: string;
  /** The index only: a random identity, which a delta names as its base. */
  id?: string;
  entries: Record<string, T>;
}

/** The delta (`<file minus .json>.delta.json`): the entries that differ from the index `base`, and the paths gone. */
interface DeltaDocument extends CacheDocument<PersistedEntry> {
  base: string;
  removed: string[];
}

/** What the index and its delta hold together (`readPersistedIndex`). */
export interface PersistedIndex {
  entries: Map<string, PersistedEntry>;
  /** The index's identity (null: no readable index); a delta written on top of it names it. */
  id: string | null;
  /** The paths the delta read with it holds or removes (empty without one). */
  delta: Set<string>;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let codeKeyMemo: string | undefined;

/** The identity of the code and data that decide what parsing a file gives (see above). */
export function parseCacheCodeKey(): string {
  if (codeKeyMemo) return codeKeyMemo;
  const hash = createHash('sha256').update(`${FORMAT}\n`);
  const here = dirname(fileURLToPath(import.meta.url));
  const folders = [here, join(here, '..', 'diff'), join(here, '..', 'schema'), join(here, '..', 'model'), SCHEMAS_DIR];
  for (const folder of folders) {
    for (const name of readdirSync(folder).sort()) {
      if (!/\.(ts|js|mjs|json)$/.test(name)) continue;
      hash.update(`${folder}/${name}\n`).update(readFileSync(join(folder, name)));
    }
  }
  hash.update(readFileSync(CATALOG_FILE));
  return (codeKeyMemo = hash.digest('hex'));
}

/** The entries of the index `file`, or an empty map when it is absent, corrupt, of another format or of other code. */
export async function readPersistedEntries(file: string): Promise<Map<string, PersistedEntry>> {
  return (await readPersistedIndex(file)).entries;
}

/**
 * The index `file` and, when its base is that index, its delta applied on top (a delta of another index, of other
 * code, or corrupt is ignored: the index alone answers). Either way every entry still answers only for its sha256.
 */
export async function readPersistedIndex(file: string): Promise<PersistedIndex> {
  let id: string | null = null;
  const entries = await readCacheDocument(file, FORMAT, wellFormed, (document) => {
    id = typeof document.id === 'string' ? document.id : null;
  });
  const delta = new Set<string>();
  if (id === null) return { entries, id, delta };
  let base: unknown;
  let removed: unknown;
  const changed = await readCacheDocument(deltaFile(file), DELTA_FORMAT, wellFormed, (document) => {
    ({ base, removed } = document as Partial<DeltaDocument>);
  });
  if (base !== id || !Array.isArray(removed)) return { entries, id, delta };
  for (const path of removed) {
    if (typeof path !== 'string') continue;
    entries.delete(path);
    delta.add(path);
  }
  for (const [path, entry] of changed) {
    entries.set(path, entry);
    delta.add(path);
  }
  return { entries, id, delta };
}

function deltaFile(file: string): string {
  return `${file.replace(/\.json$/, '')}.delta.json`;
}

/**
 * The shard that holds the spec of `path`: its connection folder (`sources/<connection>`), else its top folder.
 * The connections themselves share one shard (`sources`): a plan looks at every new connection's spec (for a
 * literal password), which then reads one small shard, not the shard of every connection's tables.
 */
export function specShardOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'sources' && parts.length === 3 && parts[2].endsWith('.dqoconnection.yaml')) return parts[0];
  return parts[0] === 'sources' && parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
}

function specShardFile(file: string, shard: string): string {
  return join(`${file.replace(/\.json$/, '')}.specs`, `${createHash('sha256').update(shard).digest('hex').slice(0, 32)}.json`);
}

function wellFormedSpec(e: unknown): e is PersistedSpec {
  const s = e as Partial<PersistedSpec> | null;
  // the text is checked as an object's by its braces here; parsed where an object is asked for (specOfText)
  return (
    !!s &&
    typeof s === 'object' &&
    typeof s.sha === 'string' &&
    (s.variablesKey === undefined || typeof s.variablesKey === 'string') &&
    typeof s.specJson === 'string' &&
    s.specJson.startsWith('{') &&
    s.specJson.endsWith('}')
  );
}

/** The specs of one shard, or an empty map (absent, corrupt, foreign: as the index). */
export async function readSpecShard(file: string, shard: string): Promise<Map<string, PersistedSpec>> {
  return readCacheDocument(specShardFile(file, shard), SPECS_FORMAT, wellFormedSpec);
}

/**
 * readSpecShard, synchronously: for a desired object's spec read when first asked for (a getter; see
 * ParseCache.lazySpec), where an await is not possible.
 */
export function readSpecShardSync(file: string, shard: string): Map<string, PersistedSpec> {
  let text: string;
  try {
    text = readFileSync(specShardFile(file, shard), 'utf8');
  } catch {
    return new Map();
  }
  return cacheEntriesOf(text, SPECS_FORMAT, wellFormedSpec);
}

/** Whether the shard of `shard` has a file (it may still be corrupt or of other code: readSpecShard says). */
export function specShardExists(file: string, shard: string): boolean {
  return existsSync(specShardFile(file, shard));
}

/** Writes one shard's specs (an empty shard: its file is removed); each spec is its JSON text, kept as a string. */
export async function writeSpecShard(file: string, shard: string, specs: ReadonlyMap<string, PersistedSpec>): Promise<void> {
  const path = specShardFile(file, shard);
  if (specs.size === 0) {
    await rm(path, { force: true });
    return;
  }
  await writeWholeDocument(path, { format: SPECS_FORMAT, key: parseCacheCodeKey() }, specs);
}

async function readCacheDocument<T>(
  file: string,
  format: string,
  valid: (entry: unknown) => entry is T,
  header?: (document: Partial<CacheDocument<unknown>>) => void,
): Promise<Map<string, T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return new Map();
  }
  return cacheEntriesOf(text, format, valid, header);
}

function cacheEntriesOf<T>(
  text: string,
  format: string,
  valid: (entry: unknown) => entry is T,
  header?: (document: Partial<CacheDocument<unknown>>) => void,
): Map<string, T> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return new Map();
  }
  if (!isJsonObject(document as JsonValue)) return new Map();
  const { format: written, key, entries } = document as Partial<CacheDocument<unknown>>;
  if (written !== format || key !== parseCacheCodeKey() || !entries || typeof entries !== 'object' || Array.isArray(entries)) return new Map();
  header?.(document as Partial<CacheDocument<unknown>>);
  const out = new Map<string, T>();
  for (const [path, entry] of Object.entries(entries)) if (valid(entry)) out.set(path, entry);
  return out;
}

function wellFormed(entry: unknown): entry is PersistedEntry {
  if (!entry || typeof entry !== 'object') return false;
  const e = entry as Partial<PersistedEntry>;
  if (typeof e.sha !== 'string' || !Array.isArray(e.diagnostics)) return false;
  if (e.hash !== undefined && typeof e.hash !== 'string') return false;
  if (e.loaded !== undefined && (typeof e.loaded !== 'object' || typeof e.loaded.kind !== 'string' || typeof e.loaded.name !== 'string')) return false;
  if (e.variables !== undefined && (typeof e.variables.key !== 'string' || !Array.isArray(e.variables.names))) return false;
  const semantics = e.loaded?.semantics;
  if (e.loaded && (!semantics || !Array.isArray(semantics.findings) || !Array.isArray(semantics.customChecks) || !Array.isArray(semantics.dictionaryReferences))) return false;
  return true;
}

/** The ParsedFile of `path` whose content is `text`, from its entry (which must have the text's sha256); no spec yet. */
export function restoreEntry(path: string, text: string, entry: PersistedEntry): Omit<ParsedFile, 'version'> {
  const restored: Omit<ParsedFile, 'version'> = { text, diagnostics: entry.diagnostics, variables: entry.variables, sha: entry.sha };
  if (entry.loaded) {
    const { kind, name, connection, semantics } = entry.loaded;
    restored.loaded = { kind, name, ...(connection !== undefined ? { connection } : {}), file: path, locate: locatorOf(path, text), semantics };
  }
  if (entry.hash) restored.hash = entry.hash;
  return restored;
}

function persistedOf(entry: ParsedFile): PersistedEntry {
  const out: PersistedEntry = { sha: entry.sha ?? sha256(entry.text), diagnostics: entry.diagnostics };
  if (entry.variables) out.variables = entry.variables;
  if (entry.loaded) {
    const { kind, name, connection, semantics } = entry.loaded;
    out.loaded = { kind, name, ...(connection !== undefined ? { connection } : {}), semantics };
  }
  if (entry.hash) out.hash = entry.hash;
  return out;
}

/** What a shard keeps of `entry`: its spec's text for its content, when computed (as a parse worker made it, or of its object). */
export function persistedSpecOf(entry: ParsedFile): PersistedSpec | undefined {
  const sha = entry.sha ?? sha256(entry.text);
  const variablesKey = entry.variables ? { variablesKey: entry.variables.key } : {};
  if (entry.specJson !== undefined) return { sha, ...variablesKey, specJson: entry.specJson };
  if (entry.spec) return { sha, ...variablesKey, specJson: JSON.stringify(entry.spec) };
  return undefined;
}

/** The spec a shard's entry holds, or undefined when its text is not a JSON object (a damaged shard: computed again). */
export function specOfText(stored: PersistedSpec): JsonObject | undefined {
  let spec: unknown;
  try {
    spec = JSON.parse(stored.specJson);
  } catch {
    return undefined;
  }
  return isJsonObject(spec as JsonValue) ? (spec as JsonObject) : undefined;
}

/** Whether `stored` is the spec of `entry`'s content. */
export function specMatches(stored: PersistedSpec | undefined, entry: Pick<ParsedFile, 'sha' | 'variables'>): stored is PersistedSpec {
  return stored !== undefined && stored.sha === entry.sha && stored.variablesKey === entry.variables?.key;
}

/**
 * Writes the index whole (a temporary file beside `file`, renamed over it) under a new identity, and removes the
 * delta (which names the index before). Returns the new identity.
 */
export async function writePersistedEntries(file: string, entries: ReadonlyMap<string, ParsedFile>): Promise<string> {
  const id = randomBytes(16).toString('hex');
  await writeWholeDocument(file, { format: FORMAT, key: parseCacheCodeKey(), id }, mapEntries(entries, persistedOf));
  await rm(deltaFile(file), { force: true });
  return id;
}

/**
 * Writes the delta on top of the index `base`: the entries of `paths` as `entries` holds them now, and those of
 * `paths` it no longer holds as removed. One small file instead of the whole index after a few edits (the index
 * of 100,000 files is 45 MB). The delta is written whole and renamed as the index is, so a reader sees one
 * writer's delta or another's, and a delta whose base is not the index it finds is ignored.
 */
export async function writePersistedDelta(file: string, base: string, entries: ReadonlyMap<string, ParsedFile>, paths: Iterable<string>): Promise<void> {
  const document: DeltaDocument = { format: DELTA_FORMAT, key: parseCacheCodeKey(), base, entries: {}, removed: [] };
  for (const path of paths) {
    const entry = entries.get(path);
    if (entry) document.entries[path] = persistedOf(entry);
    else document.removed.push(path);
  }
  await writeWhole(deltaFile(file), document);
}

async function writeWhole(file: string, document: CacheDocument<unknown>): Promise<void> {
  await writeWholeWith(file, async (write) => write(JSON.stringify(document)));
}

/**
 * Pieces of a document written at once: the text of an index (45 MB at 100,000 files) is never held whole, and a
 * piece is small enough to die young (a string of more than 128 KB is kept until a full collection).
 */
const PIECE_CHARS = 64 * 1024;

/**
 * Writes JSON.stringify({ ...header, entries: Object.fromEntries(entries) }) (the same document), an entry at a
 * time in pieces of about PIECE_CHARS: the index of 100,000 files as one text, and the document of objects made
 * for it, were 150 MB of a first plan's peak, after its load.
 */
async function writeWholeDocument(file: string, header: Omit<CacheDocument<unknown>, 'entries'>, entries: Iterable<readonly [string, unknown]>): Promise<void> {
  await writeWholeWith(file, async (write) => {
    let piece = `${JSON.stringify(header).slice(0, -1)},"entries":{`;
    let first = true;
    for (const [key, value] of entries) {
      piece += `${first ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
      first = false;
      if (piece.length < PIECE_CHARS) continue;
      await write(piece);
      piece = '';
    }
    await write(`${piece}}}`);
  });
}

function* mapEntries<T, U>(entries: Iterable<readonly [string, T]>, map: (value: T) => U): Generator<[string, U]> {
  for (const [key, value] of entries) yield [key, map(value)];
}

/** Writes a file whole: `produce` writes its text to a temporary file beside it, renamed over it once complete. */
async function writeWholeWith(file: string, produce: (write: (text: string) => Promise<void>) => Promise<void>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    try {
      await produce(async (text) => {
        const bytes = Buffer.from(text);
        for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
      });
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
