import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { planRepository } from '../../app/planRepository.js';
import { GitSource } from '../../manifest/gitSource.js';
import { blockingFindings } from '../../plan/plan.js';
import { toPlanDocument, type PlanDocument } from '../../plan/planDocument.js';
import { renderPlanMarkdown } from '../../plan/renderMarkdown.js';
import { renderPlanText } from '../../plan/renderText.js';
import type { CliIo } from '../io.js';
import { terminalProgress } from '../progressBar.js';
import { remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { remotePlanCommand } from './remote.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

export interface PlanCommandOptions extends StoreFlags, RemoteFlags {
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

export function renderPlan(doc: PlanDocument, format: PlanFormat, io: CliIo): string {
  switch (format) {
    case 'json':
      return JSON.stringify(doc, null, 2) + '\n';
    case 'markdown':
      return renderPlanMarkdown(doc);
    case 'text':
      return renderPlanText(doc, { color: io.color });
  }
}

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
    const progress = terminalProgress(io, options);
    let plan;
    try {
      ({ plan } = await planRepository({
        repository,
        store,
        pruneUnmanaged: options.pruneUnmanaged,
        keepDrift: options.keepDrift,
        allowMassDelete: options.allowMassDelete,
        progress: progress.report,
      }));
    } finally {
      progress.stop();
    }
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
