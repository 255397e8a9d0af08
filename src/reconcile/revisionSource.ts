import { resolve } from 'node:path';
import { DirectorySource } from '../manifest/directorySource.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { watchFolder, type Trigger } from './triggers.js';

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
  /** The revision to reconcile now (git: fetched first; throws when the remote cannot be fetched). */
  open(signal: AbortSignal): Promise<RepositorySource>;
  /** git: the state of the last fetch (null for a folder). */
  remote(): { reachable: boolean; lastFetchAt: string | null; error: string | null } | null;
  /** folder: calls `onChange` (debounced) when files dqctl reads change. */
  watch?(onChange: (paths: string[]) => void, onError: (error: Error) => void): Promise<Trigger>;
  close(): Promise<void>;
}

export class FolderRevisions implements RevisionSource {
  readonly type = 'folder' as const;
  readonly location: string;
  readonly branch = null;
  readonly path = null;
  readonly settles = true;

  constructor(
    dir: string,
    private readonly options: { debounceMs?: number } = {},
  ) {
    this.location = resolve(dir);
  }

  async open(): Promise<RepositorySource> {
    return new DirectorySource(this.location);
  }

  remote(): null {
    return null;
  }

  watch(onChange: (paths: string[]) => void, onError: (error: Error) => void): Promise<Trigger> {
    return watchFolder(this.location, onChange, { debounceMs: this.options.debounceMs, onError });
  }

  async close(): Promise<void> {}
}
