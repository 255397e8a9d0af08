import { resolve } from 'node:path';
import { DqError } from '../../model/index.js';
import { syncStatus, type ReconcileStatus } from '../../app/syncStatus.js';
import { environmentOf, type EnvironmentFlags } from '../environmentOption.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { renderStatusText } from '../render/statusText.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

/**
 * `dqctl status [--format json] [--server URL] [--repo DIR] [--all]`: with --server, the reconcile loop's status
 * as the running server sees it (GET /api/gitops/status); otherwise from the store directly, per object from a
 * fresh plan of --repo DIR when given. The JSON is the same model either way.
 */
export interface StatusOptions extends StoreFlags, RemoteFlags, EnvironmentFlags {
  format: 'text' | 'json';
  repo?: string;
  all?: boolean;
}

export async function statusCommand(options: StatusOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  let status: ReconcileStatus;
  if (target) {
    if (options.repo) throw new DqError('INVALID_ARGUMENT', '--repo goes without --server: the server reports on its own repository');
    if (options.env) throw new DqError('INVALID_ARGUMENT', '--env goes with --repo: the server reports with its own --env');
    status = await fetchStatus(target, options.all ?? false);
  } else {
    const repository = options.repo ? resolve(io.cwd, options.repo) : undefined;
    status = await withStore(options, io, { operation: 'status' }, (store) => syncStatus({ store, repository, environment: environmentOf(options) }, { all: options.all }));
  }
  io.stdout(options.format === 'json' ? JSON.stringify(status, null, 2) + '\n' : renderStatusText(status));
  return 0;
}

async function fetchStatus(target: RemoteTarget, all: boolean): Promise<ReconcileStatus> {
  return (await callServer<ReconcileStatus>(target, 'GET', `/api/gitops/status${all ? '?all=true' : ''}`))!;
}
