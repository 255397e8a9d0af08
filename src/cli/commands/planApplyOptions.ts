import type { RemoteFlags } from '../remoteClient.js';
import type { EnvironmentFlags, SwitchEnvironmentFlags } from '../environmentOption.js';
import type { StoreFlags } from '../storeOptions.js';

/** The flags of `dqctl plan` and `dqctl apply`, shared by their local and `--server` forms. */
export type PlanFormat = 'text' | 'json' | 'markdown';

export interface PlanCommandOptions extends StoreFlags, RemoteFlags, EnvironmentFlags {
  /** No progress bar on the terminal. */
  quiet?: boolean;
  out?: string;
  format: PlanFormat;
  detailedExitcode?: boolean;
  pruneUnmanaged?: boolean;
  keepDrift?: boolean;
  allowMassDelete?: boolean;
  /** Plan the files of this git ref of the repository in DIR, not the folder's files. */
  gitRef?: string;
  /** The user home is this sub-folder of DIR (of the ref's tree with --git-ref). */
  path?: string;
}

export interface ApplyCommandOptions extends StoreFlags, RemoteFlags, EnvironmentFlags, SwitchEnvironmentFlags {
  autoApprove?: boolean;
  allowMassDelete?: boolean;
  pruneUnmanaged?: boolean;
  keepDrift?: boolean;
  lockTimeout: string;
  format: 'text' | 'json';
  /** With a saved plan: the repository folder, when it moved since the plan was made. */
  repository?: string;
  /** No progress bar on the terminal. */
  quiet?: boolean;
  /** Not a flag: `dqctl demo` prints the plan's counts, not its every step (hundreds of lines on the example). */
  planSummaryOnly?: boolean;
}
