import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readSavedPlan } from '../../app/applyRepository.js';
import { toGitopsRequest, type GitopsRequest } from '../../app/gitopsRequest.js';
import { loadValidRepository } from '../../app/planRepository.js';
import type { RemoteApplyResult } from '../../app/remoteGitops.js';
import type { RepositorySource } from '../../manifest/repositorySource.js';
import type { PlanDocument } from '../../plan/planDocument.js';
import { renderPlanText } from '../../plan/renderText.js';
import { whoAmI } from '../actor.js';
import { confirmApply } from '../applyGate.js';
import { parseDuration } from '../duration.js';
import type { CliIo } from '../io.js';
import { postGitops, type RemoteTarget } from '../remoteClient.js';
import { renderApplyComplete, renderPlan } from '../render/planOutput.js';
import { environmentSwitchRefused } from '../../apply/applyPlan.js';
import { environmentOf, refuseOtherEnvironment } from '../environmentOption.js';
import type { ApplyCommandOptions, PlanCommandOptions } from './planApplyOptions.js';

/**
 * `plan --server` and `apply --server`: the repository is loaded and validated here (an invalid one exits 3
 * and nothing is sent), the server plans it against its store and applies it under its lock. What is printed,
 * and the exit codes, are those of the local commands: the same documents through the same renderers.
 */
export async function remotePlanCommand(
  target: RemoteTarget,
  repository: string | RepositorySource,
  options: PlanCommandOptions,
  io: CliIo,
): Promise<number> {
  const desired = await loadValidRepository(repository, undefined, environmentOf(options));
  const request = toGitopsRequest(desired, {
    prune_unmanaged: options.pruneUnmanaged,
    keep_drift: options.keepDrift,
    allow_mass_delete: options.allowMassDelete,
  });
  const doc = await postGitops<PlanDocument>(target, 'plan', request);
  if (options.out) await writeFile(resolve(io.cwd, options.out), JSON.stringify(doc, null, 2) + '\n');
  io.stdout(renderPlan(doc, options.format, io));
  if (options.out && options.format !== 'json') io.stderr(`Saved the plan to ${options.out}; apply it with: dqctl apply ${options.out} --server ${target.url}\n`);
  if (doc.findings.some((f) => f.severity === 'error')) return 1;
  if (doc.changes.length > 0 && options.detailedExitcode) return 2;
  return 0;
}

export async function remoteApplyCommand(
  target: RemoteTarget,
  path: string,
  savedPlan: boolean,
  options: ApplyCommandOptions,
  io: CliIo,
): Promise<number> {
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  const extra: Partial<GitopsRequest> = { actor: whoAmI(io.env), lock_timeout_ms: Math.min(lockTimeoutMs, 600_000) };

  if (savedPlan) {
    // A saved plan was reviewed when it was made: applied without asking, if neither side moved since.
    const saved = await readSavedPlan(path);
    if (options.allowMassDelete) saved.options.allow_mass_delete = true;
    refuseOtherEnvironment(saved.environment.name, options);
    const desired = await loadValidRepository(options.repository ? resolve(io.cwd, options.repository) : saved.repository.path, undefined, saved.environment.name);
    const request = toGitopsRequest(
      desired,
      {
        prune_unmanaged: saved.options.prune_unmanaged,
        keep_drift: saved.options.keep_drift,
        allow_mass_delete: saved.options.allow_mass_delete,
        switch_env: options.switchEnv,
      },
      { ...extra, expected_fingerprint: saved.fingerprint },
    );
    return printApplied(await postGitops<RemoteApplyResult>(target, 'apply', request), options, io, true);
  }

  const desired = await loadValidRepository(path, undefined, environmentOf(options));
  const request = toGitopsRequest(
    desired,
    { prune_unmanaged: options.pruneUnmanaged, keep_drift: options.keepDrift, allow_mass_delete: options.allowMassDelete, switch_env: options.switchEnv },
    extra,
  );
  if (options.format === 'json' && options.autoApprove) {
    return printApplied(await postGitops<RemoteApplyResult>(target, 'apply', request), options, io, true);
  }
  // Show the plan, ask, then apply exactly that plan: if the store moved in between, the server says STALE_PLAN.
  const doc = await postGitops<PlanDocument>(target, 'plan', request);
  if (options.format === 'text') io.stdout(renderPlanText(doc, { color: io.color }));
  if (doc.environment?.switching && !options.switchEnv) throw environmentSwitchRefused({ environment: doc.environment, namespace: doc.namespace });
  await confirmApply(
    { changeCount: doc.changes.length, blocked: doc.findings.some((f) => f.severity === 'error'), savedPlan: false, autoApprove: options.autoApprove ?? false },
    io,
  );
  const result = await postGitops<RemoteApplyResult>(target, 'apply', { ...request, expected_fingerprint: doc.fingerprint });
  return printApplied(result, options, io, false);
}

function printApplied(result: RemoteApplyResult, options: ApplyCommandOptions, io: CliIo, printPlan: boolean): number {
  if (options.format === 'json') {
    io.stdout(JSON.stringify({ plan: result.plan, applied: result.applied }, null, 2) + '\n');
    return 0;
  }
  if (printPlan) io.stdout(renderPlanText(result.plan, { color: io.color }));
  if (result.applied) io.stdout(renderApplyComplete(result.applied));
  return 0;
}
