import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { DqError } from '../model/index.js';
import {
  MAX_FILE_BYTES,
  READ_ROOTS,
  SETTINGS_FILE,
  type RepositoryFile,
  type RepositoryProblem,
  type RepositorySource,
} from './repositorySource.js';

/**
 * A repository read from a git ref (branch, tag, commit, `HEAD~1`…) without touching the working copy, so a
 * plan of `main` or a diff of a pull request never sees uncommitted edits and never needs a checkout. The
 * files are the ones DirectorySource would read in a checkout of that commit, under the same rules: only
 * sources/, rules/, patterns/ and dqctl.yaml; blobs over 10 MB refused; symbolic links followed only while
 * their target stays inside the tree read (the sub-path, when one is given).
 *
 * `description` is the folder (plus the sub-path): a plan saved from a ref can be applied from a checkout,
 * and is refused as stale if the checkout differs from the ref.
 */
export interface GitSourceOptions {
  /** Any folder of a git working copy (a sub-folder too: it becomes the start of the sub-path), or a bare repository. */
  repository: string;
  /** A branch, tag, commit id or any revision expression git understands (`HEAD~1`, `origin/main`). */
  ref: string;
  /** Folder inside the repository holding the DQOps user home (`--path sub/dir`). */
  path?: string;
}

interface TreeEntry {
  mode: string;
  oid: string;
  size: number;
}

interface Tree {
  /** Path (relative to the tree read) → blob or link entry. */
  entries: Map<string, TreeEntry>;
  /** Folder path → the names directly in it ('' is the root). */
  folders: Map<string, string[]>;
  /** Link path → its target as written in the link. */
  links: Map<string, string>;
}

type Resolved =
  | { type: 'file'; path: string; entry: TreeEntry }
  | { type: 'folder'; path: string }
  | { type: 'outside'; target: string }
  | { type: 'missing' };

const SYMLINK_MODE = '120000';
const MAX_LINK_HOPS = 40;

export class GitSource implements RepositorySource {
  readonly description: string;
  /** For messages: `git:<ref>`. */
  readonly label: string;
  readonly ref: string;
  private readonly folder: string;
  private readonly requestedPath: string;
  private readonly pathError: DqError | undefined;
  private resolving: Promise<{ git: SimpleGit; top: string; commit: string; prefix: string }> | undefined;
  private listing: Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> | undefined;
  /** Listed path → blob id of the file it reads (after following links). */
  private readonly blobOf = new Map<string, string>();
  private contents: Promise<Map<string, Buffer>> | undefined;

  constructor(options: GitSourceOptions) {
    this.folder = resolve(options.repository);
    this.ref = options.ref;
    try {
      this.requestedPath = normalizeSubPath(options.path ?? '');
    } catch (error) {
      // reported by the first read, as every other problem of the source is
      this.requestedPath = '';
      this.pathError = error as DqError;
    }
    this.label = `git:${options.ref}`;
    this.description = this.requestedPath ? `${this.folder}/${this.requestedPath}` : this.folder;
  }

  async commit(): Promise<string | null> {
    return (await this.resolve()).commit;
  }

  /** The resolved commit and the path of the user home inside the repository ('' = the root). */
  async revision(): Promise<{ commit: string; path: string }> {
    const { commit, prefix } = await this.resolve();
    return { commit, path: prefix };
  }

  private resolve(): Promise<{ git: SimpleGit; top: string; commit: string; prefix: string }> {
    this.resolving ??= this.resolveOnce();
    return this.resolving;
  }

  private async resolveOnce(): Promise<{ git: SimpleGit; top: string; commit: string; prefix: string }> {
    if (this.pathError) throw this.pathError;
    if (this.ref === '' || this.ref.startsWith('-') || /[\0\n]/.test(this.ref)) {
      throw new DqError('INVALID_ARGUMENT', `invalid git ref ${JSON.stringify(this.ref)}`);
    }
    try {
      if (!(await stat(this.folder)).isDirectory()) throw new Error('not a folder');
    } catch (error) {
      throw new DqError('REPOSITORY_UNREADABLE', `cannot read the repository folder ${this.folder}: ${(error as Error).message}`);
    }
    const here = simpleGit({ baseDir: this.folder });
    let prefix: string;
    let top: string;
    try {
      // --show-cdup and --show-prefix are empty in a bare repository and at the top of a working copy.
      const [cdup = '', shown = ''] = (await here.raw(['rev-parse', '--show-cdup', '--show-prefix'])).split('\n');
      top = resolve(this.folder, cdup.trim());
      prefix = shown.trim().replace(/\/$/, '');
    } catch (error) {
      throw new DqError('REPOSITORY_UNREADABLE', `${this.folder} is not a git repository: ${firstLine(error)}`);
    }
    const git = top === this.folder ? here : simpleGit({ baseDir: top });
    let commit: string;
    try {
      commit = (await git.raw(['rev-parse', '--verify', '--quiet', '--end-of-options', `${this.ref}^{commit}`])).trim();
    } catch {
      commit = '';
    }
    if (!/^[0-9a-f]{40,64}$/.test(commit)) {
      throw new DqError(
        'REPOSITORY_UNREADABLE',
        `unknown git ref ${JSON.stringify(this.ref)} in ${this.folder}: no branch, tag or commit of that name (fetch it first, e.g. git fetch origin, or use fetch-depth: 0 in CI)`,
      );
    }
    const fullPrefix = [prefix, this.requestedPath].filter((p) => p !== '').join('/');
    if (fullPrefix !== '') {
      let type = '';
      try {
        type = (await git.raw(['cat-file', '-t', `${commit}:${fullPrefix}`])).trim();
      } catch {
        type = '';
      }
      if (type !== 'tree') {
        throw new DqError('REPOSITORY_UNREADABLE', `${fullPrefix} is not a folder at ${this.ref} (commit ${commit.slice(0, 12)})`);
      }
    }
    return { git, top, commit, prefix: fullPrefix };
  }

  async listFiles(): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    this.listing ??= this.listOnce();
    return this.listing;
  }

  private async listOnce(): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }> {
    const { git, top, commit, prefix } = await this.resolve();
    const tree = await readTree(git, top, `${commit}:${prefix}`);
    const files: RepositoryFile[] = [];
    const problems: RepositoryProblem[] = [];
    // Folders read so far (real paths): a link to one of them is reported, not read twice, as DirectorySource does.
    const visited = new Set<string>(['']);
    const realFolders = (path: string) => {
      for (const name of tree.folders.get(path) ?? []) {
        const child = path === '' ? name : `${path}/${name}`;
        if (tree.folders.has(child)) {
          visited.add(child);
          realFolders(child);
        }
      }
    };
    for (const top of READ_ROOTS) if (tree.folders.has(top)) {
      visited.add(top);
      realFolders(top);
    }

    const visit = (shownPath: string, realPath: string): void => {
      const link = tree.links.get(realPath);
      let target: Resolved;
      if (link !== undefined) {
        target = resolvePath(tree, realPath);
        if (target.type === 'outside') {
          problems.push({
            path: shownPath,
            code: 'symlink_outside_repository',
            summary: `${shownPath} is a symbolic link to ${target.target}, outside the repository; refusing to read it`,
          });
          return;
        }
        if (target.type === 'missing') {
          problems.push({ path: shownPath, code: 'unreadable_file', summary: `broken symbolic link ${shownPath}` });
          return;
        }
        if (target.type === 'folder') {
          if (visited.has(target.path)) {
            problems.push({
              path: shownPath,
              code: 'symlink_loop',
              summary: `${shownPath} leads to a folder that is read already (${target.path || '.'}); it is not read twice`,
            });
            return;
          }
          visited.add(target.path);
        }
      } else if (tree.folders.has(realPath)) {
        target = { type: 'folder', path: realPath };
      } else {
        const entry = tree.entries.get(realPath);
        if (!entry) return;
        target = { type: 'file', path: realPath, entry };
      }
      if (target.type === 'folder') {
        for (const name of tree.folders.get(target.path) ?? []) {
          visit(`${shownPath}/${name}`, target.path === '' ? name : `${target.path}/${name}`);
        }
        return;
      }
      if (target.type !== 'file') return;
      if (target.entry.size > MAX_FILE_BYTES) {
        problems.push({
          path: shownPath,
          code: 'file_too_large',
          summary: `${shownPath} is ${(target.entry.size / 1024 / 1024).toFixed(1)} MB; files over ${MAX_FILE_BYTES / 1024 / 1024} MB are refused`,
        });
        return;
      }
      files.push({ path: shownPath, size: target.entry.size });
      this.blobOf.set(shownPath, target.entry.oid);
    };
    for (const top of [...READ_ROOTS, SETTINGS_FILE]) visit(top, top);
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, problems };
  }

  async readFile(path: string): Promise<string> {
    await this.listFiles();
    const oid = this.blobOf.get(path);
    if (oid === undefined) throw new DqError('REPOSITORY_UNREADABLE', `${path} is not a file of ${this.label}`);
    // The first read fetches every listed file in one `git cat-file --batch`: one process, not one per file.
    this.contents ??= this.resolve().then(({ top }) => catFileBatch(top, [...new Set(this.blobOf.values())]));
    const content = (await this.contents).get(oid);
    if (content === undefined) throw new DqError('REPOSITORY_UNREADABLE', `cannot read ${path} at ${this.label}: blob ${oid} is missing`);
    return content.toString('utf8');
  }
}

/** `sub/dir/` → `sub/dir`; refuses paths that leave the repository. */
function normalizeSubPath(path: string): string {
  const trimmed = path.replace(/\\/g, '/').replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  const normal = posix.normalize(trimmed);
  if (posix.isAbsolute(path) || normal === '..' || normal.startsWith('../')) {
    throw new DqError('INVALID_ARGUMENT', `--path ${path} must be a folder inside the repository`);
  }
  return normal;
}

async function readTree(git: SimpleGit, top: string, treeish: string): Promise<Tree> {
  const out = await git.raw(['ls-tree', '-r', '-l', '-z', '--end-of-options', treeish]);
  const entries = new Map<string, TreeEntry>();
  const folders = new Map<string, string[]>([['', []]]);
  const linkOids = new Map<string, string>();
  const addToFolder = (path: string) => {
    const slash = path.lastIndexOf('/');
    const parent = slash < 0 ? '' : path.slice(0, slash);
    const name = path.slice(slash + 1);
    let names = folders.get(parent);
    if (!names) {
      names = [];
      folders.set(parent, names);
      addToFolder(parent);
    }
    names.push(name);
  };
  for (const record of out.split('\0')) {
    if (record === '') continue;
    // <mode> SP <type> SP <oid> SP+ <size> TAB <path>
    const tab = record.indexOf('\t');
    const [mode = '', type = '', oid = '', size = ''] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    if (type !== 'blob') continue; // submodules (commits) are not part of the tree's content
    entries.set(path, { mode, oid, size: Number(size) });
    if (mode === SYMLINK_MODE) linkOids.set(path, oid);
    addToFolder(path);
  }
  for (const names of folders.values()) names.sort();
  const links = new Map<string, string>();
  if (linkOids.size > 0) {
    const targets = await catFileBatch(top, [...new Set(linkOids.values())]);
    for (const [path, oid] of linkOids) links.set(path, targets.get(oid)?.toString('utf8') ?? '');
  }
  return { entries, folders, links };
}

/** Follows links through every component of `path`, as the file system would, without leaving the tree. */
function resolvePath(tree: Tree, path: string): Resolved {
  let pending = path.split('/');
  let current = '';
  for (let hops = 0; pending.length > 0; ) {
    const name = pending.shift()!;
    const candidate = current === '' ? name : `${current}/${name}`;
    const link = tree.links.get(candidate);
    if (link !== undefined) {
      if (++hops > MAX_LINK_HOPS || link === '') return { type: 'missing' };
      if (posix.isAbsolute(link)) return { type: 'outside', target: link };
      const joined = posix.normalize(posix.join(current, link));
      if (joined === '..' || joined.startsWith('../')) return { type: 'outside', target: link };
      current = '';
      pending = [...(joined === '.' ? [] : joined.split('/')), ...pending];
      continue;
    }
    if (tree.folders.has(candidate)) {
      current = candidate;
      continue;
    }
    const entry = tree.entries.get(candidate);
    if (entry && pending.length === 0) return { type: 'file', path: candidate, entry };
    return { type: 'missing' };
  }
  return { type: 'folder', path: current };
}

/** Reads blobs in one `git cat-file --batch` process: `<oid> <type> <size>\n<content>\n` per blob. */
function catFileBatch(cwd: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  if (oids.length === 0) return Promise.resolve(new Map());
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => reject(new DqError('REPOSITORY_UNREADABLE', `cannot run git: ${error.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new DqError('REPOSITORY_UNREADABLE', `git cat-file failed (exit ${code}): ${stderr.trim()}`));
        return;
      }
      const out = Buffer.concat(chunks);
      const blobs = new Map<string, Buffer>();
      let at = 0;
      while (at < out.length) {
        const newline = out.indexOf(0x0a, at);
        if (newline < 0) break;
        const header = out.toString('utf8', at, newline).split(' ');
        at = newline + 1;
        if (header[1] === 'missing' || header.length < 3) continue;
        const size = Number(header[2]);
        blobs.set(header[0]!, out.subarray(at, at + size));
        at += size + 1;
      }
      resolvePromise(blobs);
    });
    child.stdin.on('error', () => undefined); // reported through 'close'
    child.stdin.end(oids.join('\n') + '\n');
  });
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.trim().split('\n')[0] ?? message;
}
