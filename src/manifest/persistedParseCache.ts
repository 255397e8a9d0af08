import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG_FILE, SCHEMAS_DIR } from '../catalog/packagePaths.js';
import { isJsonObject, type Diagnostic, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';
import type { ParsedFile } from './parsedFile.js';
import { documentSemanticsOf, restoreDocumentSemantics, type DocumentSemantics } from './semanticChecks.js';
import { restoreParsedYaml } from './yamlDocument.js';

/**
 * The parse cache on disk: what loading each object file produced (diagnostics, the parsed document, its
 * normalized spec and hash), kept between processes so that `dqctl plan` after a one-file edit parses one file.
 *
 * Why it is safe:
 * - an entry answers only for the same path and the same content: its sha256 is compared with the text just read
 *   (so an edit, a rename, a deletion and a change back are always seen: nothing is trusted but the bytes);
 * - the whole file answers only for the same code: its key hashes the schemas, the check catalog and the source of
 *   the modules whose output it holds (manifest, diff, schema, model), so a new dqctl never reads an old answer;
 * - settings: an entry that used `${var.…}` keeps the key of those variables' values (ParsedFile.variables) and is
 *   reused only while it is the same, as in memory;
 * - a file that is not JSON, of another format or key, or of a wrong shape is ignored (and rewritten);
 * - it is written whole to a temporary file and renamed over the old one, so two processes at once each read a
 *   complete file (one of theirs, or the other's) and the last writer wins.
 */
const FORMAT = 'dqctl-parse-cache/1';

/** What one file's entry keeps on disk (the text is not kept: its sha256 stands for it). */
export interface PersistedEntry {
  sha: string;
  diagnostics: Diagnostic[];
  variables?: { names: string[]; key: string };
  /** Present when the file loaded: its identity and the (substituted) document. */
  loaded?: { kind: ObjectKind; name: string; connection?: string; value: JsonValue };
  /** The semantic findings of the document alone (semanticChecks.ts), when a load computed them. */
  semantics?: DocumentSemantics;
  spec?: JsonObject;
  hash?: string;
}

interface CacheDocument {
  format: string;
  key: string;
  entries: Record<string, PersistedEntry>;
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

/** The entries of `file`, or an empty map when it is absent, corrupt, of another format or of other code. */
export async function readPersistedEntries(file: string): Promise<Map<string, PersistedEntry>> {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return new Map();
  }
  if (!isJsonObject(document as JsonValue)) return new Map();
  const { format, key, entries } = document as Partial<CacheDocument>;
  if (format !== FORMAT || key !== parseCacheCodeKey() || !entries || typeof entries !== 'object' || Array.isArray(entries)) return new Map();
  const out = new Map<string, PersistedEntry>();
  for (const [path, entry] of Object.entries(entries)) if (wellFormed(entry)) out.set(path, entry);
  return out;
}

function wellFormed(entry: unknown): entry is PersistedEntry {
  if (!entry || typeof entry !== 'object') return false;
  const e = entry as Partial<PersistedEntry>;
  if (typeof e.sha !== 'string' || !Array.isArray(e.diagnostics)) return false;
  if (e.loaded !== undefined && (typeof e.loaded !== 'object' || typeof e.loaded.kind !== 'string' || typeof e.loaded.name !== 'string')) return false;
  if (e.loaded && !isJsonObject(e.loaded.value)) return false;
  if (e.variables !== undefined && (typeof e.variables.key !== 'string' || !Array.isArray(e.variables.names))) return false;
  if (e.semantics !== undefined && (!Array.isArray(e.semantics.findings) || !Array.isArray(e.semantics.customChecks) || !Array.isArray(e.semantics.dictionaryReferences))) return false;
  return true;
}

/** The ParsedFile of `path` whose content is `text`, from its entry (which must have the text's sha256). */
export function restoreEntry(path: string, text: string, entry: PersistedEntry): Omit<ParsedFile, 'version'> {
  const restored: Omit<ParsedFile, 'version'> = { text, diagnostics: entry.diagnostics, variables: entry.variables, sha: entry.sha };
  if (entry.loaded) {
    const { kind, name, connection, value } = entry.loaded;
    const document = value as JsonObject;
    restored.loaded = {
      kind,
      name,
      ...(connection !== undefined ? { connection } : {}),
      file: path,
      rawSpec: isJsonObject(document.spec) ? document.spec : {},
      parsed: restoreParsedYaml(path, text, value),
    };
    if (entry.semantics) restoreDocumentSemantics(restored.loaded, entry.semantics);
  }
  if (entry.spec) restored.spec = entry.spec;
  if (entry.hash) restored.hash = entry.hash;
  return restored;
}

function persistedOf(entry: ParsedFile): PersistedEntry {
  const out: PersistedEntry = { sha: entry.sha ?? sha256(entry.text), diagnostics: entry.diagnostics };
  if (entry.variables) out.variables = entry.variables;
  if (entry.loaded) {
    const { kind, name, connection, parsed } = entry.loaded;
    out.loaded = { kind, name, ...(connection !== undefined ? { connection } : {}), value: parsed.value ?? null };
    const semantics = documentSemanticsOf(entry.loaded);
    if (semantics) out.semantics = semantics;
  }
  if (entry.spec) out.spec = entry.spec;
  if (entry.hash) out.hash = entry.hash;
  return out;
}

/** Writes the entries whole: a temporary file beside `file`, renamed over it. */
export async function writePersistedEntries(file: string, entries: ReadonlyMap<string, ParsedFile>): Promise<void> {
  const document: CacheDocument = { format: FORMAT, key: parseCacheCodeKey(), entries: {} };
  for (const [path, entry] of entries) document.entries[path] = persistedOf(entry);
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(document));
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
