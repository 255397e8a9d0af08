import type { DesiredObject, Diagnostic } from '../model/index.js';
import type { RepositorySettings } from './settings.js';

/** What a repository asks for: its objects (normalized, hashed), its settings and every finding. */
export interface DesiredState {
  repository: RepositoryIdentity;
  settings: RepositorySettings;
  /** The environment (`--env`) whose variables filled `${var.…}`; null without one. */
  environment: string | null;
  /** Sorted by kind, then name. Objects of files with errors are left out. */
  objects: DesiredObject[];
  diagnostics: Diagnostic[];
  /** File texts of the files that have diagnostics, for snippets. */
  texts: Map<string, string>;
  /** Hash of every (kind, name, hash) and the namespace: the identity of this desired state. */
  fingerprint: string;
  /**
   * The digest of the files it was loaded from (repositoryInputs.ts), when the loader's caller read them first:
   * a plan carries it, and an apply records it for the next plan of the same files.
   */
  inputDigest?: string;
}

export function errorCount(state: Pick<DesiredState, 'diagnostics'>): number {
  return state.diagnostics.filter((d) => d.severity === 'error').length;
}

/**
 * Which repository, at which commit: `dirtyFiles` lists the files of the work tree that differ from that commit
 * (null: clean, or not a git work tree), so an apply of uncommitted changes is never recorded as the commit.
 */
export interface RepositoryIdentity {
  description: string;
  commit: string | null;
  dirtyFiles?: string[] | null;
}
