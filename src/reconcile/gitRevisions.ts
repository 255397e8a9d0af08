import { rm } from 'node:fs/promises';
import { GitSource } from '../manifest/gitSource.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { GitRemote } from './gitRemote.js';
import type { RevisionSource } from './revisionSource.js';

/**
 * Revisions from a git remote (`serve --git URL [--branch main] [--path sub/dir]`): every pass fetches the branch
 * into the cache clone and reads the fetched commit's tree (GitSource: no checkout, so nothing is ever half
 * written). A failed fetch is reported (remote unreachable) and the pass applies nothing; the next tick fetches
 * again.
 */
export interface GitRevisionsOptions {
  url: string;
  branch: string;
  /** The DQOps user home inside the repository (default its root). */
  path?: string;
  cacheDir: string;
  /** Remove the cache folder on close (a temporary one). */
  removeCacheOnClose?: boolean;
}

export class GitRevisions implements RevisionSource {
  readonly type = 'git' as const;
  readonly location: string;
  readonly branch: string;
  readonly path: string | null;
  readonly settles = false;
  private readonly remoteRepo: GitRemote;
  private state: { reachable: boolean; lastFetchAt: string | null; error: string | null } = { reachable: true, lastFetchAt: null, error: null };

  constructor(private readonly options: GitRevisionsOptions) {
    this.remoteRepo = new GitRemote({ url: options.url, branch: options.branch, cacheDir: options.cacheDir });
    this.location = this.remoteRepo.description;
    this.branch = options.branch;
    this.path = options.path ?? null;
  }

  async open(signal: AbortSignal): Promise<RepositorySource> {
    let commit: string;
    try {
      ({ commit } = await this.remoteRepo.fetch(signal));
      this.state = { reachable: true, lastFetchAt: new Date().toISOString(), error: null };
    } catch (error) {
      if (!signal.aborted) this.state = { ...this.state, reachable: false, error: error instanceof Error ? error.message : String(error) };
      throw error;
    }
    const tree = new GitSource({ repository: this.options.cacheDir, ref: commit, path: this.options.path });
    // Plans and the audit log name the remote, not the cache folder.
    const description = `${this.location}#${this.branch}${this.path ? `:${this.path}` : ''}`;
    return {
      description,
      commit: () => tree.commit(),
      listFiles: () => tree.listFiles(),
      readFile: (path) => tree.readFile(path),
    };
  }

  remote(): { reachable: boolean; lastFetchAt: string | null; error: string | null } {
    return this.state;
  }

  async close(): Promise<void> {
    if (this.options.removeCacheOnClose) await rm(this.options.cacheDir, { recursive: true, force: true });
  }
}
