import { createHash } from 'node:crypto';
import type { RepositorySettings } from '../model/index.js';
import type { ProgressReporter } from '../model/index.js';
import { DirectorySource } from './directorySource.js';
import { parseCacheCodeKey } from './persistedParseCache.js';
import { SETTINGS_FILE, type RepositoryFile, type RepositoryProblem, type RepositorySource } from './repositorySource.js';
import { DEFAULT_SETTINGS, readSettings } from './settings.js';
import { parseYamlFile } from './yamlDocument.js';

/**
 * The inputs of a repository's load, read once: what a plan needs to ask the store "did anything change since
 * the last apply of these very files?" before it parses anything (src/app/planRepository.ts).
 *
 * The digest covers everything the load's answer depends on: every listed file's path and the sha256 of its bytes
 * (so an edit, a rename, a deletion, a new file and a change back each give another digest), the problems met
 * while listing (symlinks, files too large), the environment (`--env`), and the code and data that turn files into
 * a desired state (the parse cache's key: the manifest, diff, schema and model modules, the schemas and the check
 * catalog). Equal digests mean the load would give the same desired state and the same findings.
 *
 * The texts read here are handed to the load through `source` (each once), so a plan that must load after all
 * reads every file once.
 */
export interface RepositoryInputs {
  /** Null when a listed file could not be read (the load will say why; nothing is answered without it). */
  digest: string | null;
  /**
   * dqctl.yaml's settings as written (not validated; the defaults without the file), or null when it does not
   * parse. Only trusted together with a digest the store recorded, which an apply only records for a valid load.
   */
  settings: RepositorySettings | null;
  /** The repository, answering its listing, commit and files from what was read here. */
  source: RepositorySource;
}

const FORMAT = 'dqctl-repository-inputs/1';
const READ_CONCURRENCY = 64;

export async function readRepositoryInputs(
  repository: RepositorySource | string,
  options: { environment?: string | null; progress?: ProgressReporter; /** Tests: another code's key. */ codeKey?: string } = {},
): Promise<RepositoryInputs> {
  const source = new PrereadSource(typeof repository === 'string' ? new DirectorySource(repository) : repository);
  // the commit and the work tree's state run beside the reads (git), and are kept for the load
  void source.commit().catch(() => undefined);
  void source.dirtyFiles?.()?.catch(() => undefined);
  const { files, problems } = await source.listAndReadAll(options.progress);
  const shas = source.shas;
  const hash = createHash('sha256').update(`${FORMAT}\ncode\t${options.codeKey ?? parseCacheCodeKey()}\nenvironment\t${options.environment ?? ''}\n`);
  for (const problem of problems) hash.update(`problem\t${problem.path}\t${problem.code}\n`);
  for (const file of files) hash.update(`file\t${file.path}\t${shas.get(file.path)}\n`);
  const complete = files.every((file) => shas.has(file.path));
  return { digest: complete ? hash.digest('hex') : null, settings: source.settings(), source };
}

/** A source whose listing, commit and texts were read ahead; each text is handed out once, then read again. */
class PrereadSource implements RepositorySource {
  readonly description: string;
  private texts = new Map<string, string>();
  private listing?: Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }>;
  private head?: Promise<string | null>;
  private dirty?: Promise<string[] | null>;
  private settingsText: string | undefined;
  /** The sha256 of every file read by readAll. */
  shas = new Map<string, string>();

  contentSha(path: string): string | undefined {
    return this.shas.get(path);
  }

  constructor(private readonly inner: RepositorySource) {
    this.description = inner.description;
    if (inner.dirtyFiles) this.dirtyFiles = () => (this.dirty ??= inner.dirtyFiles!());
    // the files as they are now (a text read ahead is handed out once, to the load)
    this.readFileSync = syncReaderOf(inner);
  }

  readFileSync?: (path: string) => string;

  dirtyFiles?: () => Promise<string[] | null>;

  commit(): Promise<string | null> {
    return (this.head ??= this.inner.commit());
  }

  listFiles(): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    return (this.listing ??= this.inner.listFiles());
  }

  async readFile(path: string): Promise<string> {
    const text = this.texts.get(path);
    if (text === undefined) {
      this.shas.delete(path); // read again: its text may differ from the one hashed
      return this.inner.readFile(path);
    }
    this.texts.delete(path);
    return text;
  }

  /**
   * Lists and reads every file (the sha256 of each in `shas`; a file that cannot be read has none, and the load
   * will say why): in one pass when the source can (a folder: no lstat per file), else listed then read.
   */
  async listAndReadAll(progress?: ProgressReporter): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    const shas = new Map<string, string>();
    this.shas = shas;
    let total = 0;
    let done = 0;
    const take = (path: string, text: string): void => {
      this.texts.set(path, text);
      if (path === SETTINGS_FILE) this.settingsText = text;
      shas.set(path, createHash('sha256').update(text).digest('hex'));
      progress?.({ phase: 'load', done: ++done, total });
    };
    const listed = (files: number): void => {
      total = files;
      progress?.({ phase: 'load', done: 0, total });
    };
    if (this.inner.readEveryFile && !this.listing) {
      this.listing = this.inner.readEveryFile(take, { listed });
      return this.listing;
    }
    const listing = await this.listFiles();
    listed(listing.files.length);
    let next = 0;
    const files = listing.files;
    const worker = async (): Promise<void> => {
      while (next < files.length) {
        const path = files[next++].path;
        let text: string;
        try {
          text = await this.inner.readFile(path);
        } catch {
          continue;
        }
        take(path, text);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
    return listing;
  }

  settings(): RepositorySettings | null {
    if (this.settingsText === undefined) return DEFAULT_SETTINGS;
    const { parsed, diagnostics } = parseYamlFile(SETTINGS_FILE, this.settingsText);
    if (!parsed || diagnostics.some((d) => d.severity === 'error')) return null;
    try {
      return readSettings(parsed.value);
    } catch {
      return null;
    }
  }
}

/**
 * The source's synchronous read, holding the source only (not the PrereadSource, its listing and hashes): the lazy
 * specs of a plan's objects keep it until the apply.
 */
function syncReaderOf(inner: RepositorySource): ((path: string) => string) | undefined {
  return inner.readFileSync ? (path) => inner.readFileSync!(path) : undefined;
}
