import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { localTarget, remoteTarget, type ApplyTarget, type PlanSource } from '../../app/applyFlow.js';
import { isBlocked } from '../../app/planRendering.js';
import { gitRevisionSource } from '../../app/loadRevisionPair.js';
import { environmentOf } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { planPieces, writePlan } from '../render/planOutput.js';
import { withProgress } from '../progressBar.js';
import { postGitops, remoteTargetOf } from '../remoteClient.js';
import { withOpeningStoreFromFlags } from '../storeOptions.js';
import type { PlanCommandOptions, PlanFormat } from './planApplyOptions.js';

export type { PlanCommandOptions, PlanFormat };

/**
 * `dqctl plan [DIR]` (and `--server URL`): exit 0 (no changes, or changes without --detailed-exitcode), 2 (changes,
 * with --detailed-exitcode), 1 when the plan is blocked (mass delete, ownership conflict), 3 when invalid. The
 * plan is made by app's one flow (applyFlow.ts), on this store or on the server's.
 */
export async function planCommand(dir: string | undefined, options: PlanCommandOptions, io: CliIo): Promise<number> {
  const folder = resolve(io.cwd, dir ?? '.');
  const repository = options.gitRef ? gitRevisionSource(folder, options.gitRef, options.path) : resolve(folder, options.path ?? '.');
  const source: PlanSource = {
    type: 'repository',
    repository,
    options: { pruneUnmanaged: options.pruneUnmanaged, keepDrift: options.keepDrift, allowMassDelete: options.allowMassDelete, environment: environmentOf(options) },
  };
  const server = remoteTargetOf(options, io);
  const applyHint = server ? ` --server ${server.url}` : '';
  const show = async (target: ApplyTarget): Promise<number> => {
    const { doc } = await withProgress(io, options, (progress) => target.plan(progress));
    // the saved plan and the output in pieces: a plan of every object of a large repository is hundreds of MB
    if (options.out) await writeFile(resolve(io.cwd, options.out), planPieces(doc, 'json', io));
    await writePlan(doc, options.format, io);
    if (options.out && options.format !== 'json') io.stderr(`Saved the plan to ${options.out}; apply it with: dqctl apply ${options.out}${applyHint}\n`);
    if (isBlocked(doc)) return 1;
    if (doc.changes.length > 0 && options.detailedExitcode) return 2;
    return 0;
  };
  if (server) return show(remoteTarget((operation, request) => postGitops(server, operation, request), source));
  return withOpeningStoreFromFlags(options, io, { operation: 'plan' }, (store) => show(localTarget(store, source)));
}
