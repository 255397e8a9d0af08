import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkEnvironmentDefined } from '../../app/environmentScope.js';
import { checkGitRemote, reconcileLoop, type LoopRepository, type Reconciler } from '../../app/reconcileLoop.js';
import type { Store } from '../../app/services.js';
import { DqError } from '../../model/index.js';
import { parseDuration } from '../duration.js';
import type { CliIo } from '../io.js';
import { whoAmI } from '../actor.js';

/**
 * The reconcile options of `dqctl serve`: `--repo DIR` (a watched folder) or `--git URL [--branch] [--path]` (a
 * polled remote), `--interval`, `--auto-apply`, `--self-heal`, `--webhook-secret`. Without --repo or --git the
 * server runs no loop and the other options are refused (they would do nothing).
 */
export interface ReconcileFlags {
  repo?: string;
  git?: string;
  branch?: string;
  path?: string;
  interval?: string;
  autoApply?: boolean;
  selfHeal?: boolean;
  webhookSecret?: string;
  /** The environment every pass loads the repository with (`--env`). */
  env?: string;
  /** Apply over a store last applied with another environment (`--switch-env`). */
  switchEnv?: boolean;
}

const MIN_INTERVAL_MS = 100;

/** A folder for the git clone: under the embedded store's folder when there is one, else a temporary one. */
export interface GitCachePlace {
  stateDir?: string;
}

export async function reconcilerFromFlags(flags: ReconcileFlags, io: CliIo, store: Store, place: GitCachePlace): Promise<Reconciler | undefined> {
  if (!(await checkReconcileFlags(flags, io))) return undefined;
  const repository: LoopRepository = flags.repo
    ? { type: 'folder', folder: resolve(io.cwd, flags.repo) }
    : { type: 'git', url: flags.git!, branch: flags.branch ?? 'main', path: flags.path, stateDir: place.stateDir };
  return reconcileLoop({
    store,
    repository,
    autoApply: flags.autoApply ?? false,
    selfHeal: flags.selfHeal ?? false,
    environment: flags.env ?? null,
    switchEnvironment: flags.switchEnv ?? false,
    intervalMs: flags.interval ? parseDuration(flags.interval, '--interval') : 60_000,
    actor: `${whoAmI(io.env)} (serve)`,
    webhookSecret: flags.webhookSecret || io.env.DQCTL_WEBHOOK_SECRET || null,
  });
}

/** Checks the flags (and that --repo is a folder) before anything is opened; false when no loop was asked for. */
export async function checkReconcileFlags(flags: ReconcileFlags, io: CliIo): Promise<boolean> {
  if (flags.repo && flags.git) throw new DqError('INVALID_ARGUMENT', '--repo and --git exclude each other: reconcile a folder or a git remote');
  if (!flags.git) {
    for (const [name, value] of [['--branch', flags.branch], ['--path', flags.path]] as const) {
      if (value !== undefined) throw new DqError('INVALID_ARGUMENT', `${name} goes with --git URL`);
    }
  }
  if (!flags.repo && !flags.git) {
    const loopOnly: Array<[string, unknown]> = [
      ['--interval', flags.interval],
      ['--auto-apply', flags.autoApply],
      ['--self-heal', flags.selfHeal],
      ['--webhook-secret', flags.webhookSecret],
      ['--env', flags.env],
      ['--switch-env', flags.switchEnv],
    ];
    const given = loopOnly.find(([, value]) => value !== undefined && value !== false);
    if (given) throw new DqError('INVALID_ARGUMENT', `${given[0]} configures the reconcile loop: add --repo DIR or --git URL`);
    return false;
  }
  if (flags.selfHeal && !flags.autoApply) {
    throw new DqError('INVALID_ARGUMENT', '--self-heal restores drift by applying: it needs --auto-apply');
  }
  if (flags.interval !== undefined && parseDuration(flags.interval, '--interval') < MIN_INTERVAL_MS) {
    throw new DqError('INVALID_ARGUMENT', `--interval must be at least ${MIN_INTERVAL_MS} ms`);
  }
  if (flags.webhookSecret === '' || (flags.webhookSecret === undefined && io.env.DQCTL_WEBHOOK_SECRET === '')) {
    throw new DqError('INVALID_ARGUMENT', 'the webhook secret must not be empty');
  }
  if (flags.git) checkGitRemote(flags.git, flags.branch ?? 'main');
  if (flags.repo) {
    const dir = resolve(io.cwd, flags.repo);
    let isFolder = false;
    try {
      isFolder = (await stat(dir)).isDirectory();
    } catch (error) {
      throw new DqError('REPOSITORY_UNREADABLE', `cannot read the repository folder ${dir}: ${(error as Error).message}`);
    }
    if (!isFolder) throw new DqError('REPOSITORY_UNREADABLE', `${dir} is not a folder`);
    // a remote's dqctl.yaml is known only once cloned: there an unknown --env fails each pass, shown in status
    if (flags.env !== undefined) await checkEnvironmentDefined(dir, flags.env);
  }
  return true;
}
