import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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
 * sources/, rules/, sensors/, checks/, dictionaries/, patterns/, settings/ and dqctl.yaml; blobs over 10 MB refused; symbolic links followed only while
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
  private blobs: BlobReader | undefined;

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
    this.blobs ??= new BlobReader(top);
    const tree = await readTree(git, this.blobs, `${commit}:${prefix}`);
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
    for (const root of READ_ROOTS) if (tree.folders.has(root)) {
      visited.add(root);
      realFolders(root);
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
      // the blob id is the content's identity: a loader's ParseCache reuses what it parsed from the same blob
      files.push({ path: shownPath, size: target.entry.size, version: `git:${target.entry.oid}` });
      this.blobOf.set(shownPath, target.entry.oid);
    };
    for (const root of [...READ_ROOTS, SETTINGS_FILE]) visit(root, root);
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { files, problems };
  }

  async readFile(path: string): Promise<string> {
    await this.listFiles();
    const oid = this.blobOf.get(path);
    if (oid === undefined) throw new DqError('REPOSITORY_UNREADABLE', `${path} is not a file of ${this.label}`);
    this.blobs ??= new BlobReader((await this.resolve()).top);
    return (await this.blobs.read(oid)).toString('utf8');
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

async function readTree(git: SimpleGit, blobs: BlobReader, treeish: string): Promise<Tree> {
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
  await Promise.all([...linkOids].map(async ([path, oid]) => links.set(path, (await blobs.read(oid)).toString('utf8'))));
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

/**
 * Blob reads answered by one `git cat-file --batch` process, in the order asked (`<oid> <type> <size>\n<content>\n`
 * per blob): only the blobs read are fetched, and ten thousand reads cost one process, not ten thousand. The
 * process ends once no read has been pending for a moment, so a source needs no close().
 */
class BlobReader {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending: Array<{ oid: string; resolve: (blob: Buffer) => void; reject: (error: Error) => void }> = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Size of the blob whose header was read, while its content is awaited. */
  private awaiting: number | null = null;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly cwd: string) {}

  read(oid: string): Promise<Buffer> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const child = this.child ?? this.start();
    return new Promise((resolve, reject) => {
      this.pending.push({ oid, resolve, reject });
      child.stdin.write(`${oid}\n`);
    });
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn('git', ['cat-file', '--batch'], { cwd: this.cwd });
    this.child = child;
    this.chunks = [];
    this.buffered = 0;
    this.awaiting = null;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => undefined); // reported by 'close'
    child.on('error', (error) => this.fail(child, `cannot run git: ${error.message}`));
    child.on('close', (code) => this.fail(child, `git cat-file ended (exit ${code}): ${stderr.trim()}`));
    return child;
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.awaiting === null) {
        const data = this.joined();
        const newline = data.indexOf(0x0a);
        if (newline < 0) return;
        const [oid = '', type = '', size = ''] = data.toString('utf8', 0, newline).split(' ');
        this.keep(data.subarray(newline + 1));
        if (type === 'missing') {
          this.pending.shift()?.reject(new DqError('REPOSITORY_UNREADABLE', `git object ${oid} is missing`));
          this.whenIdle();
          continue;
        }
        this.awaiting = Number(size);
      }
      if (this.buffered < this.awaiting + 1) return;
      const data = this.joined();
      const blob = Buffer.from(data.subarray(0, this.awaiting));
      this.keep(data.subarray(this.awaiting + 1));
      this.awaiting = null;
      this.pending.shift()?.resolve(blob);
      this.whenIdle();
    }
  }

  private joined(): Buffer {
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [data];
    return data;
  }

  private keep(rest: Buffer): void {
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
  }

  private whenIdle(): void {
    if (this.pending.length > 0 || !this.child) return;
    const child = this.child;
    this.idle = setTimeout(() => {
      if (this.child === child && this.pending.length === 0) {
        this.child = undefined;
        child.stdin.end();
      }
    }, 50);
    this.idle.unref();
  }

  private fail(child: ChildProcessWithoutNullStreams, message: string): void {
    if (this.child !== child) return; // a process ended after going idle
    this.child = undefined;
    for (const read of this.pending.splice(0)) read.reject(new DqError('REPOSITORY_UNREADABLE', message));
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.trim().split('\n')[0] ?? message;
}
