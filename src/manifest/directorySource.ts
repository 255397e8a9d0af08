import { execFile } from 'node:child_process';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
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

/**
 * A repository in a folder on disk. Symlinks are followed only while they stay inside the folder: a link
 * that leaves it could make a pull request read files from the machine that runs dqctl.
 */
export class DirectorySource implements RepositorySource {
  readonly description: string;
  private rootReal: string | undefined;

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

  async listFiles(): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    const rootReal = await this.realRoot();
    const files: RepositoryFile[] = [];
    const problems: RepositoryProblem[] = [];
    // Real paths of the folders read so far: a link back to one of them (a loop) is reported, not followed.
    const visitedFolders = new Set<string>([rootReal]);
    const visit = async (relPath: string): Promise<void> => {
      const absolute = join(this.root, relPath);
      let info;
      try {
        info = await lstat(absolute);
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
        const entries = await readdir(absolute);
        entries.sort();
        await Promise.all(entries.map((entry) => visit(relPath === '' ? entry : `${relPath}/${entry}`)));
        return;
      }
      if (!info.isFile()) return;
      if (info.size > MAX_FILE_BYTES) {
        problems.push({
          path: relPath,
          code: 'file_too_large',
          summary: `${relPath} is ${(info.size / 1024 / 1024).toFixed(1)} MB; files over ${MAX_FILE_BYTES / 1024 / 1024} MB are refused`,
        });
        return;
      }
      files.push({ path: relPath, size: info.size, version: `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}` });
    };
    for (const top of [...READ_ROOTS, SETTINGS_FILE]) {
      try {
        await lstat(join(this.root, top));
      } catch {
        continue;
      }
      await visit(top);
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, problems };
  }

  async readFile(path: string): Promise<string> {
    const rootReal = await this.realRoot();
    const absolute = join(rootReal, path);
    if (relative(rootReal, absolute).startsWith('..')) {
      throw new DqError('REPOSITORY_UNREADABLE', `${path} is outside the repository`);
    }
    return readFile(absolute, 'utf8');
  }
}
