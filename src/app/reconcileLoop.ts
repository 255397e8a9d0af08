import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFolderFor, checkRemote } from '../reconcile/gitRemote.js';
import { GitRevisions } from '../reconcile/gitRevisions.js';
import { Reconciler } from '../reconcile/reconciler.js';
import { FolderRevisions, type RevisionSource } from '../reconcile/revisionSource.js';
import type { Store } from '../store/store.js';

/**
 * The reconcile loop of `dqctl serve --repo DIR | --git URL`, made from plain options: a watched folder or a
 * polled git remote (cloned under the embedded store's folder when there is one, else in a temporary folder
 * removed on close), and the loop's settings. The loop starts when the server starts it.
 */
export type LoopRepository = { type: 'folder'; folder: string } | { type: 'git'; url: string; branch: string; path?: string; stateDir?: string };

export interface ReconcileLoopOptions {
  store: Store;
  repository: LoopRepository;
  autoApply: boolean;
  selfHeal: boolean;
  environment: string | null;
  switchEnvironment: boolean;
  intervalMs: number;
  actor: string;
  webhookSecret: string | null;
}

export async function reconcileLoop(options: ReconcileLoopOptions): Promise<Reconciler> {
  const { repository, ...settings } = options;
  return new Reconciler({ ...settings, source: await revisionSourceOf(repository) });
}

/** Refuses a git URL or branch that cannot be fetched safely (before anything is opened). */
export function checkGitRemote(url: string, branch: string): void {
  checkRemote(url, branch);
}

async function revisionSourceOf(repository: LoopRepository): Promise<RevisionSource> {
  if (repository.type === 'folder') return new FolderRevisions(repository.folder);
  const { url, branch, path, stateDir } = repository;
  if (stateDir) return new GitRevisions({ url, branch, path, cacheDir: cacheFolderFor(join(stateDir, 'git'), url, branch) });
  const cacheDir = await mkdtemp(join(tmpdir(), 'dqctl-git-'));
  return new GitRevisions({ url, branch, path, cacheDir, removeCacheOnClose: true });
}

export type { Reconciler };
