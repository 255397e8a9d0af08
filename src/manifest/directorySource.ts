import { execFile } from 'node:child_process';
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, readSync, type Dirent, type Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { DqError } from '../model/index.js';
import {
  MAX_FILE_BYTES,
  READ_ROOTS,
  SETTINGS_FILE,
  type RepositoryFile,
  type RepositoryProblem,
  type RepositorySource,
} from './repositorySource.js';

const execFileAsync = promisify(execFile);
const READS_BETWEEN_YIELDS = 64;

/**
 * A repository in a folder on disk. Symlinks are followed only while they stay inside the folder: a link
 * that leaves it could make a pull request read files from the machine that runs dqctl.
 */
export class DirectorySource implements RepositorySource {
  readonly description: string;
  private rootReal: string | undefined;
  /** Reads since the event loop last had a turn (readFile). */
  private readsSinceYield = 0;

  constructor(private readonly root: string) {
    this.description = root;
  }

  async commit(): Promise<string | null> {
    try {
      const { stdout } = await execFileAsync('git', ['rev-parse', 'HEAD'], { cwd: this.root, timeout: 10_000 });
      return stdout.trim() || null;
    } catch {
      return null;
    }
  }

  async dirtyFiles(): Promise<string[] | null> {
    let stdout: string;
    try {
      // -z: names as they are (no quoting); `-- .`: only what lies under the repository folder
      ({ stdout } = await execFileAsync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'], {
        cwd: this.root,
        timeout: 30_000,
        maxBuffer: 64 * 1024 * 1024,
      }));
    } catch {
      return null; // not a git work tree (or no git): there is no commit to contradict
    }
    const files: string[] = [];
    const entries = stdout.split('\0');
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.length < 4) continue;
      files.push(entry.slice(3));
      // a rename or copy is followed by its source name
      if (entry[0] === 'R' || entry[0] === 'C') i++;
    }
    return files.length > 0 ? files.sort() : null;
  }

  private async realRoot(): Promise<string> {
    if (this.rootReal) return this.rootReal;
    let info;
    try {
      info = await stat(this.root);
    } catch (error) {
      throw new DqError('REPOSITORY_UNREADABLE', `cannot read the repository folder ${this.root}: ${(error as Error).message}`);
    }
    if (!info.isDirectory()) throw new DqError('REPOSITORY_UNREADABLE', `${this.root} is not a folder`);
    this.rootReal = await realpath(this.root);
    return this.rootReal;
  }

  async listFiles(options: { onFile?: (path: string) => void } = {}): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    const { files, problems } = await this.walk(true, options.onFile);
    files.sort(byPath);
    return { files, problems };
  }

  /**
   * The listing of listFiles and the text of every file in one pass, for a reader of every file (a plan's inputs):
   * a file the folder's listing names as a file is not lstat-ed but opened, and its size (the limit) and version
   * come from the opened file (fstat), which is what the read needs anyway. The answer is listFiles's (the same
   * files, sizes, versions and problems); a file that cannot be opened is listed from its lstat, without a text.
   */
  async readEveryFile(
    each: (path: string, text: string) => void,
    options: { listed?: (files: number) => void },
  ): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    const { files, problems, unread } = await this.walk(false);
    options.listed?.(files.length + unread.length);
    // synchronous, as readFile below (and for the same reason), letting the event loop turn every 64th file
    for (const path of unread) {
      await this.yieldNowAndThen();
      const absolute = join(this.root, path);
      let fd: number;
      try {
        fd = openSync(absolute, 'r');
      } catch {
        // not readable (or vanished): listed as listFiles would list it, the load says why it cannot be read
        let info: Stats | undefined;
        try {
          info = lstatSync(absolute);
        } catch {
          info = undefined;
        }
        if (info?.isFile()) this.take(path, info, files, problems);
        continue;
      }
      try {
        const info = fstatSync(fd);
        if (!info.isFile() || !this.take(path, info, files, problems)) continue;
        each(path, readWhole(fd, info.size));
      } catch {
        // listed, without a text: the load reads it again and says why it cannot
      } finally {
        closeSync(fd);
      }
    }
    files.sort(byPath);
    problems.sort(byPath);
    return { files, problems };
  }

  /** Lists `path` (a file of this size and version) unless it is over the limit (then a problem); true when listed. */
  private take(path: string, info: Stats, files: RepositoryFile[], problems: RepositoryProblem[]): boolean {
    if (info.size > MAX_FILE_BYTES) {
      problems.push({
        path,
        code: 'file_too_large',
        summary: `${path} is ${(info.size / 1024 / 1024).toFixed(1)} MB; files over ${MAX_FILE_BYTES / 1024 / 1024} MB are refused`,
      });
      return false;
    }
    files.push({ path, size: info.size, version: `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}` });
    return true;
  }

  /**
   * Every file under the folders dqctl reads. `statFiles`: each file is lstat-ed (stat-ed through a link) and
   * listed; otherwise a file the folder's listing names as a regular file is left `unread` for the caller to open.
   */
  private async walk(statFiles: boolean, onFile?: (path: string) => void): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[]; unread: string[] }> {
    const rootReal = await this.realRoot();
    const files: RepositoryFile[] = [];
    const problems: RepositoryProblem[] = [];
    const unread: string[] = [];
    // Real paths of the folders read so far: a link back to one of them (a loop) is reported, not followed.
    const visitedFolders = new Set<string>([rootReal]);
    const visit = async (relPath: string, type?: Dirent): Promise<void> => {
      const absolute = join(this.root, relPath);
      if (!statFiles && type?.isFile()) {
        unread.push(relPath);
        return;
      }
      // synchronous, as readFile: one lstat a file through the thread pool costs more than the lstat (each folder's
      // readdir below still lets the event loop turn)
      let info;
      try {
        info = lstatSync(absolute);
      } catch {
        return; // vanished while listing (an editor's temp file): not ours to report
      }
      if (info.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(absolute);
        } catch {
          problems.push({ path: relPath, code: 'unreadable_file', summary: `broken symbolic link ${relPath}` });
          return;
        }
        if (target !== rootReal && !target.startsWith(rootReal + sep)) {
          problems.push({
            path: relPath,
            code: 'symlink_outside_repository',
            summary: `${relPath} is a symbolic link to ${target}, outside the repository; refusing to read it`,
          });
          return;
        }
        info = await stat(absolute);
      }
      if (info.isDirectory()) {
        const real = await realpath(absolute);
        if (visitedFolders.has(real)) {
          problems.push({
            path: relPath,
            code: 'symlink_loop',
            summary: `${relPath} leads to a folder that is read already (${relative(rootReal, real) || '.'}); it is not read twice`,
          });
          return;
        }
        visitedFolders.add(real);
        const entries = await readdir(absolute, { withFileTypes: true });
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        await Promise.all(entries.map((entry) => visit(relPath === '' ? entry.name : `${relPath}/${entry.name}`, entry)));
        return;
      }
      if (!info.isFile()) return;
      if (statFiles) {
        if (this.take(relPath, info, files, problems)) onFile?.(relPath);
      } else unread.push(relPath); // a file behind a link inside the folder: opened (and fstat-ed) by the reader
    };
    for (const top of [...READ_ROOTS, SETTINGS_FILE]) {
      try {
        lstatSync(join(this.root, top));
      } catch {
        continue;
      }
      await visit(top);
    }
    return { files, problems, unread };
  }

  async readFile(path: string): Promise<string> {
    await this.realRoot(); // resolves rootReal, which readFileSync reads under
    // A synchronous read: a repository's files are small and in the page cache, read in microseconds, while
    // fs/promises' readFile makes four round trips through the thread pool (open, fstat, read, close) that cost
    // 5-10x more CPU and wait for a busy machine's scheduler (10,000 files: 0.4-0.6 s against 2.6-6 s under load
    // 15). Every 64th read lets the event loop turn, so a server loading a repository keeps answering.
    await this.yieldNowAndThen();
    return this.readFileSync(path);
  }

  /** readFile without its turn of the event loop (RepositorySource.readFileSync); the root as readFile resolved it. */
  readFileSync(path: string): string {
    const root = this.rootReal ?? this.root;
    const absolute = join(root, path);
    if (relative(root, absolute).startsWith('..')) {
      throw new DqError('REPOSITORY_UNREADABLE', `${path} is outside the repository`);
    }
    return readFileSync(absolute, 'utf8');
  }

  /** Lets the event loop turn before every 64th synchronous read, so that a server reading a repository answers. */
  private async yieldNowAndThen(): Promise<void> {
    if (++this.readsSinceYield < READS_BETWEEN_YIELDS) return;
    this.readsSinceYield = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The text of an opened file of `size` bytes (its fstat), read as fs.readFile reads one: `size` bytes (fewer if it
 * shrank), or to its end when the size says 0 (such files may still hold text).
 */
function readWhole(fd: number, size: number): string {
  if (size > 0) {
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const bytesRead = readSync(fd, buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.toString('utf8', 0, filled);
  }
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks).toString('utf8');
}
