import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { localTarget, remoteTarget, runApply, type ApplyIdentity, type PlanSource } from '../../app/applyFlow.js';
import { whoAmI } from '../actor.js';
import { confirmApply } from '../applyGate.js';
import { parseDuration } from '../duration.js';
import { environmentOf, refuseOtherEnvironment } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { terminalProgress } from '../progressBar.js';
import { renderApplyComplete, writeApplyOutcomeJson, writePlan, type renderPlan } from '../render/planOutput.js';
import { postGitops, remoteTargetOf } from '../remoteClient.js';
import { withOpeningStoreFromFlags } from '../storeOptions.js';
import type { ApplyCommandOptions } from './planApplyOptions.js';
import { readSavedPlanEnvironment } from './savedPlan.js';

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * `dqctl apply [DIR | plan.json]` (and `--server URL`): app's one flow (applyFlow.ts) plans, this command shows
 * the plan, asks (a terminal prompt, or --auto-approve) and the flow applies exactly the plan shown. From a saved
 * plan: refused if stale, else applied without asking (it was reviewed when saved).
 */
export type { ApplyCommandOptions };

export async function applyCommand(target: string | undefined, options: ApplyCommandOptions, io: CliIo): Promise<number> {
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const path = resolve(io.cwd, target ?? '.');
  const fromSavedPlan = await isFile(path);
  if (fromSavedPlan) refuseOtherEnvironment(await readSavedPlanEnvironment(path), options);
  const source: PlanSource = fromSavedPlan
    ? { type: 'saved', file: path, repository: options.repository ? resolve(io.cwd, options.repository) : undefined, allowMassDelete: options.allowMassDelete }
    : {
        type: 'repository',
        repository: path,
        options: { pruneUnmanaged: options.pruneUnmanaged, keepDrift: options.keepDrift, allowMassDelete: options.allowMassDelete, environment: environmentOf(options) },
      };
  const actor = whoAmI(io.env);
  const planBar = terminalProgress(io, options);
  const applyBar = terminalProgress(io, options);
  const conversation = {
    switchEnvironment: options.switchEnv,
    planProgress: planBar.report,
    applyProgress: applyBar.report,
    show: (doc: Parameters<typeof renderPlan>[0]) => {
      planBar.stop();
      if (options.format !== 'text') return;
      if (options.planSummaryOnly) io.stdout(`Plan: ${doc.summary.add} to add, ${doc.summary.change} to change, ${doc.summary.destroy} to destroy.\n`);
      else return writePlan(doc, 'text', io);
    },
    confirm: (changeCount: number) => confirmApply({ changeCount, blocked: false, savedPlan: false, autoApprove: options.autoApprove ?? false }, io),
  };
  const server = remoteTargetOf(options, io);
  try {
    const outcome = server
      ? await runApply(
          remoteTarget((operation, request) => postGitops(server, operation, request), source, { actor, lockTimeoutMs, switchEnvironment: options.switchEnv }, {
            direct: options.format === 'json' && options.autoApprove === true,
          }),
          conversation,
        )
      : await withOpeningStoreFromFlags(options, io, { operation: `apply by ${actor}`, waitMs: lockTimeoutMs }, (store) => {
          const identity: ApplyIdentity = { holder: `${actor} (pid ${process.pid})`, appliedBy: actor, lockTimeoutMs, switchEnvironment: options.switchEnv };
          return runApply(localTarget(store, source, identity), conversation);
        });
    if (options.format === 'json') await writeApplyOutcomeJson(outcome, io);
    else if (outcome.applied) io.stdout(renderApplyComplete(outcome.applied));
    return 0;
  } finally {
    planBar.stop();
    applyBar.stop();
  }
}
