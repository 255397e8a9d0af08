import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyPlan, readSavedPlan, replanSavedPlan } from '../../app/applyRepository.js';
import { environmentSwitchRefused } from '../../apply/applyPlan.js';
import { planRepository } from '../../app/planRepository.js';
import { blockingFindings, nothingToApply, type Plan } from '../../plan/plan.js';
import { toPlanDocument } from '../../plan/planDocument.js';
import { renderPlanText } from '../../plan/renderText.js';
import { whoAmI } from '../actor.js';
import { confirmApply } from '../applyGate.js';
import { parseDuration } from '../duration.js';
import { environmentOf, refuseOtherEnvironment } from '../environmentOption.js';
import { withProgress } from '../progressBar.js';
import type { CliIo } from '../io.js';
import { renderApplyComplete } from '../render/planOutput.js';
import { remoteTargetOf } from '../remoteClient.js';
import { withStore } from '../storeOptions.js';
import type { ApplyCommandOptions } from './planApplyOptions.js';
import { remoteApplyCommand } from './remote.js';

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
export type { ApplyCommandOptions };

export async function applyCommand(target: string | undefined, options: ApplyCommandOptions, io: CliIo): Promise<number> {
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const path = resolve(io.cwd, target ?? '.');
  const fromSavedPlan = await isFile(path);
  const server = remoteTargetOf(options, io);
  if (server) return remoteApplyCommand(server, path, fromSavedPlan, options, io);
  return withStore(options, io, { operation: `apply by ${whoAmI(io.env)}`, waitMs: lockTimeoutMs }, async (store) => {
    let plan: Plan;
    if (fromSavedPlan) {
      const saved = await readSavedPlan(path);
      if (options.allowMassDelete) saved.options.allow_mass_delete = true;
      refuseOtherEnvironment(saved.environment.name, options);
      plan = await replanSavedPlan(saved, store, options.repository ? resolve(io.cwd, options.repository) : undefined);
    } else {
      ({ plan } = await withProgress(io, options, (progress) =>
        planRepository({
          repository: path,
          store,
          pruneUnmanaged: options.pruneUnmanaged,
          keepDrift: options.keepDrift,
          allowMassDelete: options.allowMassDelete,
          environment: environmentOf(options),
          progress,
        }),
      ));
    }
    const doc = toPlanDocument(plan);
    if (options.format === 'text') io.stdout(renderPlanText(doc, { color: io.color }));
    if (plan.environment.switching && !options.switchEnv) {
      // refused before the prompt: nobody should be asked to confirm what cannot be applied
      throw environmentSwitchRefused(plan);
    }
    if (nothingToApply(plan)) {
      if (options.format === 'json') io.stdout(JSON.stringify({ plan: doc, applied: null }, null, 2) + '\n');
      return 0;
    }
    await confirmApply(
      { changeCount: plan.changes.length, blocked: blockingFindings(plan).length > 0, savedPlan: fromSavedPlan, autoApprove: options.autoApprove ?? false },
      io,
    );
    const actor = whoAmI(io.env);
    const result = await withProgress(io, options, (progress) =>
      applyPlan(plan, store, { holder: `${actor} (pid ${process.pid})`, appliedBy: actor, lockTimeoutMs, progress, switchEnvironment: options.switchEnv }),
    );
    if (options.format === 'json') {
      io.stdout(JSON.stringify({ plan: doc, applied: result }, null, 2) + '\n');
    } else {
      io.stdout(renderApplyComplete(result));
    }
    return 0;
  });
}
