import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { contentHash } from '../diff/contentHash.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import type { ExportFile } from './exportLive.js';
import { hasVariableReference, resolveDocument, resolveVariables, type VariableScope } from '../manifest/environmentVariables.js';
import { updateYamlDocument } from './updateYamlDocument.js';

/**
 * Writes exported files into a folder. It never deletes a file, and never overwrites one whose content differs
 * unless `force`: the folder may be a working copy with uncommitted edits. Files are compared by what they mean,
 * not only by their bytes:
 * - a file that already holds the object's current content (same hash), however it is written, is left as it is
 *   (its comments and layout stay);
 * - a file that holds exactly the version git last applied, when the object has changed since (drift), is
 *   replaced: that version is in git, and this is what `--only-drift` is for.
 * Nothing is written when anything would be refused, so a refused export leaves the folder as it was.
 * A YAML file that is replaced is updated in place (updateYamlDocument.ts): its comments and key order stay and only
 * the lines that changed change. `dryRun` writes nothing and returns every change with the text before and after,
 * for `dqctl export --dry-run` to show as a diff.
 */
export interface WriteExportOptions {
  force?: boolean;
  dryRun?: boolean;
  /**
   * The environment of `--env`: a file's `${var.…}` are compared by their values in it, and a reference whose
   * value equals the live value is written back as the reference.
   */
  variables?: VariableScope;
}

export interface FileChange {
  path: string;
  /** null: a new file. */
  before: string | null;
  after: string;
}

export interface WriteExportResult {
  /** Written, or with dryRun: that would be written. */
  written: string[];
  unchanged: string[];
  /** Files that exist and were left alone on purpose (dqctl.yaml). */
  kept: string[];
  /** With dryRun: what each written file would hold, before and after. */
  changes?: FileChange[];
}

export async function writeExport(folder: string, files: readonly ExportFile[], options: WriteExportOptions = {}): Promise<WriteExportResult> {
  const root = resolve(folder);
  const result: WriteExportResult = { written: [], unchanged: [], kept: [], ...(options.dryRun ? { changes: [] } : {}) };
  const conflicts: string[] = [];
  let conflictsWithVariables = false;
  const toWrite: FileChange[] = [];
  for (const file of files) {
    const target = resolve(root, file.path);
    if (target !== root && !target.startsWith(root + sep)) {
      throw new DqError('INTERNAL', `export path ${file.path} leaves the folder ${root}`);
    }
    const existing = await readIfExists(target);
    const scope = options.variables;
    if (existing === undefined) {
      toWrite.push({ path: file.path, before: null, after: file.content });
    } else if (existing === file.content) {
      result.unchanged.push(file.path);
    } else if (file.onlyIfAbsent) {
      result.kept.push(file.path);
    } else {
      const held = await hashInFolder(root, file, scope);
      if (held !== undefined && held === file.object?.contentHash) {
        result.unchanged.push(file.path);
      } else if (options.force || (held !== undefined && held === file.object?.appliedHash)) {
        const resolve = scope ? (text: string) => resolveVariables(text, scope) : undefined;
        const after = file.path.endsWith('.yaml') ? updateYamlDocument(existing, file.content, { resolve }) : file.content;
        toWrite.push({ path: file.path, before: existing, after });
      } else {
        conflicts.push(file.path);
        if (!scope && hasVariableReference(existing)) conflictsWithVariables = true;
      }
    }
  }
  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, 10).join(', ') + (conflicts.length > 10 ? `, … (${conflicts.length} in all)` : '');
    throw new DqError(
      'EXPORT_WOULD_OVERWRITE',
      `export would overwrite ${conflicts.length} file${conflicts.length === 1 ? '' : 's'} in ${folder} that differ from the live state: ${shown}; nothing was written (pass --force to overwrite them)` +
        (conflictsWithVariables ? '. Some of them hold ${var.…} references: pass --env to compare them by their values in that environment' : ''),
      { files: conflicts },
    );
  }
  for (const change of toWrite) {
    const target = join(root, change.path);
    const path = relative(root, target).split(sep).join('/');
    result.written.push(path);
    if (options.dryRun) {
      result.changes!.push({ ...change, path });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    // Write beside, then rename: an interrupted export never leaves half a file.
    const temporary = `${target}.dqctl-export-${process.pid}`;
    await writeFile(temporary, change.after);
    await rename(temporary, target);
  }
  return result;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') throw new DqError('INVALID_ARGUMENT', `cannot export to ${path}: it is a folder`);
    throw error;
  }
}

/** The content hash of the object as the folder holds it (its file and, for a rule, its `.py`); undefined if unreadable. */
async function hashInFolder(root: string, file: ExportFile, scope: VariableScope | undefined): Promise<string | undefined> {
  const object = file.object;
  if (!object || object.part === 'sensor_file') return undefined; // a sensor's files are compared as written
  if (object.kind === 'dictionary') {
    const content = await readIfExists(join(root, file.path));
    return content === undefined ? undefined : contentHash({}, { file_content: content });
  }
  if (object.kind === 'sensor') return undefined;
  const documentPath = object.part === 'module' ? file.path.slice(0, -'.py'.length) + '.dqorule.yaml' : file.path;
  const text = await readIfExists(join(root, documentPath));
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = load(text, { schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || parsed.kind !== object.kind) return undefined;
  const attachments: JsonObject = {};
  if (object.kind === 'rule') {
    const module = await readIfExists(join(root, documentPath.slice(0, -'.dqorule.yaml'.length) + '.py'));
    if (module !== undefined) attachments.python_module = module;
  }
  const written = isJsonObject(parsed.spec) ? parsed.spec : {};
  const spec = normalizeSpec(object.kind, scope ? (resolveDocument(written, scope) as JsonObject) : written);
  return contentHash(spec, attachments);
}
