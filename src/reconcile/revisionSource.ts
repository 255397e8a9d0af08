import { lstat, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DirectorySource } from '../manifest/directorySource.js';
import { MAX_FILE_BYTES, type RepositoryFile, type RepositoryProblem, type RepositorySource } from '../manifest/repositorySource.js';
import { isWatchedPath, watchFolder, type Trigger } from './triggers.js';

/**
 * Where the loop's revisions come from: a folder (`serve --repo DIR`, watched) or a git remote (`serve --git
 * URL`, polled; see gitRevisions.ts). A pass asks for the revision to reconcile now and reads it through the
 * RepositorySource it gets, like `plan` does.
 */
export interface RevisionSource {
  readonly type: 'folder' | 'git';
  /** The folder, or the URL without credentials. */
  readonly location: string;
  readonly branch: string | null;
  readonly path: string | null;
  /**
   * Whether a read may catch the revision half-written (a folder while an editor or `git checkout` writes it):
   * then a pass that would delete objects reads the revision again after a short settle before it decides.
   */
  readonly settles: boolean;
  /**
   * The revision to reconcile now (git: fetched first; throws when the remote cannot be fetched). `full: false`
   * (a pass started by the watch alone) lets a folder re-read only what the watch reported.
   */
  open(signal: AbortSignal, options?: { full?: boolean }): Promise<RepositorySource>;
  /** git: the state of the last fetch (null for a folder). */
  remote(): { reachable: boolean; lastFetchAt: string | null; error: string | null } | null;
  /** folder: calls `onChange` (debounced) when files dqctl reads change. */
  watch?(onChange: (paths: string[]) => void, onError: (error: Error) => void): Promise<Trigger>;
  close(): Promise<void>;
}

/**
 * A watched folder. A pass started by the watch alone re-reads only the paths the watch reported (a stat each),
 * on top of the last full listing, instead of stat-ing every file of the repository: with 10,000 tables that is
 * most of what a one-file pass would cost. Any other pass (start, timer, webhook, resume) and anything the patch
 * cannot vouch for (a folder added or removed, a symbolic link, a file in a folder not seen before, a huge file, a
 * listing that had problems, a watch error) lists the whole folder again, as `dqctl plan` does. So an event the
 * watch missed is picked up by the timer's pass at the latest.
 */
export class FolderRevisions implements RevisionSource {
  readonly type = 'folder' as const;
  readonly location: string;
  readonly branch = null;
  readonly path = null;
  readonly settles = true;
  private listing: Listing | null = null;
  private dirty = new Set<string>();
  private watchHealthy = false;

  constructor(
    dir: string,
    private readonly options: { debounceMs?: number } = {},
  ) {
    this.location = resolve(dir);
  }

  async open(_signal: AbortSignal, options: { full?: boolean } = {}): Promise<RepositorySource> {
    const directory = new DirectorySource(this.location);
    const listing = await this.list(directory, options.full ?? true);
    return {
      description: directory.description,
      commit: () => directory.commit(),
      listFiles: async () => listing,
      readFile: (path) => directory.readFile(path),
    };
  }

  private async list(directory: DirectorySource, full: boolean): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    // Paths reported from now on belong to the next pass (which the watch triggers).
    const dirty = this.dirty;
    this.dirty = new Set();
    if (!full && this.watchHealthy && this.listing && this.listing.problems.length === 0 && dirty.size <= MAX_PATCHED_PATHS) {
      const patched = await patchListing(this.location, this.listing, dirty);
      if (patched) {
        this.listing = patched;
        return { files: [...patched.files.values()].sort(byPath), problems: [] };
      }
    }
    const { files, problems } = await directory.listFiles();
    this.listing = { files: new Map(files.map((f) => [f.path, f])), problems, folders: foldersOf(files) };
    return { files, problems };
  }

  remote(): null {
    return null;
  }

  async watch(onChange: (paths: string[]) => void, onError: (error: Error) => void): Promise<Trigger> {
    const trigger = await watchFolder(
      this.location,
      (paths) => {
        for (const path of paths) this.dirty.add(path);
        onChange(paths);
      },
      {
        debounceMs: this.options.debounceMs,
        onError: (error) => {
          this.watchHealthy = false; // events may have been lost: list everything until the next full listing
          onError(error);
        },
      },
    );
    this.watchHealthy = true;
    return trigger;
  }

  async close(): Promise<void> {}
}

interface Listing {
  files: Map<string, RepositoryFile>;
  problems: RepositoryProblem[];
  /** Folders holding listed files ('' is the root). */
  folders: Set<string>;
}

/** More changed paths than this in one pass: list everything (a checkout, a bulk edit). */
const MAX_PATCHED_PATHS = 500;

function byPath(a: RepositoryFile, b: RepositoryFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function foldersOf(files: readonly RepositoryFile[]): Set<string> {
  const folders = new Set<string>(['']);
  for (const file of files) {
    for (let folder = parentOf(file.path); folder !== ''; folder = parentOf(folder)) {
      if (folders.has(folder)) break;
      folders.add(folder);
    }
  }
  return folders;
}

/**
 * The last listing with `paths` stat-ed again; null when only a full listing can say what changed. A file keeps
 * the version format of DirectorySource (a different format would only cost a re-read, never a wrong result).
 */
async function patchListing(root: string, listing: Listing, paths: ReadonlySet<string>): Promise<Listing | null> {
  const files = new Map(listing.files);
  let rootReal: string | undefined;
  for (const path of paths) {
    if (path === '' || !isWatchedPath(path)) return null;
    let info;
    try {
      info = await lstat(join(root, path));
    } catch {
      info = undefined;
    }
    if (!info) {
      if (files.delete(path)) continue;
      if (listing.folders.has(path)) return null; // a folder went: list everything
      continue; // something we never listed came and went
    }
    if (info.isSymbolicLink() || info.isDirectory()) return null;
    if (!info.isFile()) continue;
    if (info.size > MAX_FILE_BYTES) return null;
    const parent = parentOf(path);
    if (!listing.folders.has(parent)) return null;
    if (!files.has(path)) {
      // a new file: only where the folder is what its path says (no link on the way), as the full listing would see it
      rootReal ??= await realpath(root);
      if ((await realpath(join(root, parent)).catch(() => '')) !== join(rootReal, parent)) return null;
    }
    files.set(path, { path, size: info.size, version: `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}` });
  }
  return { files, problems: [], folders: listing.folders };
}
