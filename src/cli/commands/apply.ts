import { stat } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { resolve } from 'node:path';
import { applyPlan, readSavedPlan, replanSavedPlan } from '../../app/applyRepository.js';
import { planRepository } from '../../app/planRepository.js';
import { DqError } from '../../model/index.js';
import { blockingFindings, type Plan } from '../../plan/plan.js';
import { toPlanDocument } from '../../plan/planDocument.js';
import { renderPlanText } from '../../plan/renderText.js';
import { parseDuration } from '../duration.js';
import { terminalProgress } from '../progressBar.js';
import type { CliIo } from '../io.js';
import { remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { remoteApplyCommand } from './remote.js';

export interface ApplyCommandOptions extends StoreFlags, RemoteFlags {
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
}

export function whoAmI(env: NodeJS.ProcessEnv): string {
  if (env.DQCTL_ACTOR) return env.DQCTL_ACTOR;
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): keep "unknown"
  }
  return `${user}@${hostname()}`;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * `dqctl apply [DIR | plan.json]`. From a folder: plan, show, confirm (a terminal prompt, or --auto-approve),
 * apply. From a saved plan: refuse it if stale, else apply it without asking (it was reviewed when saved).
 */
export async function applyCommand(target: string | undefined, options: ApplyCommandOptions, io: CliIo): Promise<number> {
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const path = resolve(io.cwd, target ?? '.');
  const server = remoteTargetOf(options, io);
  if (server) return remoteApplyCommand(server, path, options, io);
  const fromSavedPlan = await isFile(path);
  return withStore(options, io, { operation: `apply by ${whoAmI(io.env)}`, waitMs: lockTimeoutMs }, async (store) => {
    let plan: Plan;
    if (fromSavedPlan) {
      const saved = await readSavedPlan(path);
      if (options.allowMassDelete) saved.options.allow_mass_delete = true;
      plan = await replanSavedPlan(saved, store, options.repository ? resolve(io.cwd, options.repository) : undefined);
    } else {
      const progress = terminalProgress(io, options);
      try {
        ({ plan } = await planRepository({
          repository: path,
          store,
          pruneUnmanaged: options.pruneUnmanaged,
          keepDrift: options.keepDrift,
          allowMassDelete: options.allowMassDelete,
          progress: progress.report,
        }));
      } finally {
        progress.stop();
      }
    }
    const doc = toPlanDocument(plan);
    if (options.format === 'text') io.stdout(renderPlanText(doc, { color: io.color }));
    if (plan.changes.length === 0 && plan.resynced.length === 0) {
      if (options.format === 'json') io.stdout(JSON.stringify({ plan: doc, applied: null }, null, 2) + '\n');
      return 0;
    }
    if (blockingFindings(plan).length === 0 && !fromSavedPlan && !options.autoApprove && plan.changes.length > 0) {
      if (!io.interactive) {
        throw new DqError('CONFIRMATION_REQUIRED', 'apply needs confirmation: run it in a terminal, or pass --auto-approve (or apply a saved plan)');
      }
      const answer = await io.prompt("\nDo you want to perform these actions?\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ");
      if (answer.trim() !== 'yes') throw new DqError('APPLY_CANCELLED', 'Apply cancelled.');
    }
    const actor = whoAmI(io.env);
    const progress = terminalProgress(io, options);
    let result;
    try {
      result = await applyPlan(plan, store, { holder: `${actor} (pid ${process.pid})`, appliedBy: actor, lockTimeoutMs, progress: progress.report });
    } finally {
      progress.stop();
    }
    if (options.format === 'json') {
      io.stdout(JSON.stringify({ plan: doc, applied: result }, null, 2) + '\n');
    } else {
      const { add, change, destroy } = result.applied;
      io.stdout(`\nApply complete! Objects: ${add} added, ${change} changed, ${destroy} destroyed. Store revision ${result.storeRevision}.\n`);
    }
    return 0;
  });
}
