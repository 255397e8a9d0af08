import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { planRepository } from '../../app/planRepository.js';
import { GitSource } from '../../manifest/gitSource.js';
import { blockingFindings } from '../../plan/plan.js';
import { toPlanDocument } from '../../plan/planDocument.js';
import { environmentOf } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { renderPlan } from '../render/planOutput.js';
import { withProgress } from '../progressBar.js';
import { remoteTargetOf } from '../remoteClient.js';
import { withStore } from '../storeOptions.js';
import type { PlanCommandOptions, PlanFormat } from './planApplyOptions.js';
import { remotePlanCommand } from './remote.js';

export type { PlanCommandOptions, PlanFormat };

/**
 * `dqctl plan [DIR]`: exit 0 (no changes, or changes without --detailed-exitcode), 2 (changes, with
 * --detailed-exitcode), 1 when the plan is blocked (mass delete, ownership conflict), 3 when invalid.
 */
export async function planCommand(dir: string | undefined, options: PlanCommandOptions, io: CliIo): Promise<number> {
  const folder = resolve(io.cwd, dir ?? '.');
  const repository = options.gitRef
    ? new GitSource({ repository: folder, ref: options.gitRef, path: options.path })
    : resolve(folder, options.path ?? '.');
  const server = remoteTargetOf(options, io);
  if (server) return remotePlanCommand(server, repository, options, io);
  return withStore(options, io, { operation: 'plan' }, async (store) => {
    const { plan } = await withProgress(io, options, (progress) =>
      planRepository({
        repository,
        store,
        pruneUnmanaged: options.pruneUnmanaged,
        keepDrift: options.keepDrift,
        allowMassDelete: options.allowMassDelete,
        environment: environmentOf(options),
        progress,
      }),
    );
    const doc = toPlanDocument(plan);
    if (options.out) {
      await writeFile(resolve(io.cwd, options.out), JSON.stringify(doc, null, 2) + '\n');
    }
    io.stdout(renderPlan(doc, options.format, io));
    if (options.out && options.format !== 'json') io.stderr(`Saved the plan to ${options.out}; apply it with: dqctl apply ${options.out}\n`);
    if (blockingFindings(plan).length > 0) return 1;
    if (plan.changes.length > 0 && options.detailedExitcode) return 2;
    return 0;
  });
}
