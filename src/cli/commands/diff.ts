import { resolve } from 'node:path';
import { diffRevisionsReport, type DiffFormat } from '../../app/diffRevisionsReport.js';
import { livePolicyTargets, type DiffRevisionsRequest, type LivePolicyTargets } from '../../app/diffRevisions.js';
import { gitRevisionSides } from '../../app/loadRevisionPair.js';
import { environmentOf, type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { renderDiagnosticsText } from '../render/diagnostics.js';
import { callServer, remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { DqError } from '../../model/index.js';

export interface DiffCommandOptions extends StoreFlags, EnvironmentFlags, RemoteFlags {
  base: string;
  head: string;
  path?: string;
  format: DiffFormat;
  /** false with --no-store. */
  store?: boolean;
}

/**
 * `dqctl diff --base REF --head REF [DIR]`: what a pull request changes, read from the two refs of the git
 * repository in DIR (no checkout, no live store). The live store is read only when one is named
 * (--database, --state-dir or their environment variables), to count the policies' reach on its tables too;
 * --no-store never opens one. With --server (or DQCTL_SERVER_URL) the tables are those of a running server's store
 * (GET /api/gitops/policy-targets, read by the same function). Exit 0, or 3 when the head does not validate (with --format markdown the
 * errors are printed as the comment, so a pull request shows them).
 */
export async function diffCommand(dir: string | undefined, options: DiffCommandOptions, io: CliIo): Promise<number> {
  const repository = resolve(io.cwd, dir ?? '.');
  const request: DiffRevisionsRequest = {
    ...gitRevisionSides(repository, options),
    environment: environmentOf(options),
  };
  if (options.store === false && options.server) throw new DqError('INVALID_ARGUMENT', '--no-store and --server contradict each other; drop one');
  const target = options.store === false ? undefined : remoteTargetOf(options, io);
  const useStore =
    !target && options.store !== false && Boolean(options.database || options.stateDir || io.env.DQCTL_DATABASE_URL || io.env.DQCTL_STATE_DIR);
  const rendering = { format: options.format, color: io.color };
  const live: LivePolicyTargets | undefined = target
    ? await callServer<LivePolicyTargets>(target, 'GET', '/api/gitops/policy-targets')
    : useStore
      ? await withStore(options, io, { operation: 'diff' }, livePolicyTargets)
      : undefined;
  if (target && !live) throw new DqError('SERVER_UNREACHABLE', `${target.url} answered GET /api/gitops/policy-targets with no content; is it a dqctl server?`);
  const report = await diffRevisionsReport({ ...request, ...(live ? { live } : {}) }, rendering);
  if (!report.valid) {
    const { desired } = report.failure;
    io.stdout(report.output);
    io.stderr(renderDiagnosticsText(desired.diagnostics, desired.texts, io.color));
    io.stderr(`Error: ${report.failure.message}\n`);
    return report.failure.exitCode;
  }
  for (const warning of report.document.warnings) if (options.format !== 'text') io.stderr(`Warning: ${warning}\n`);
  io.stdout(report.output);
  return 0;
}
