import { resolve } from 'node:path';
import { DqError, ERROR_CODES, type ErrorCode } from '../../model/index.js';
import type { ReconcileStatus } from '../../reconcile/status.js';
import { statusFromStore } from '../../reconcile/storeStatus.js';
import type { CliIo } from '../io.js';
import { remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { renderStatusText } from '../render/statusText.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

/**
 * `dqctl status [--format json] [--server URL] [--repo DIR] [--all]`: with --server, the reconcile loop's status
 * as the running server sees it (GET /api/gitops/status); otherwise from the store directly, per object from a
 * fresh plan of --repo DIR when given. The JSON is the same model either way.
 */
export interface StatusOptions extends StoreFlags, RemoteFlags {
  format: 'text' | 'json';
  repo?: string;
  all?: boolean;
}

export async function statusCommand(options: StatusOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  let status: ReconcileStatus;
  if (target) {
    if (options.repo) throw new DqError('INVALID_ARGUMENT', '--repo goes without --server: the server reports on its own repository');
    status = await fetchStatus(target, options.all ?? false);
  } else {
    const repository = options.repo ? resolve(io.cwd, options.repo) : undefined;
    status = await withStore(options, io, { operation: 'status' }, (store) => statusFromStore(store, { repository, all: options.all }));
  }
  io.stdout(options.format === 'json' ? JSON.stringify(status, null, 2) + '\n' : renderStatusText(status));
  return 0;
}

async function fetchStatus(target: RemoteTarget, all: boolean): Promise<ReconcileStatus> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  let response: Response;
  try {
    response = await fetch(`${target.url}/api/gitops/status${all ? '?all=true' : ''}`, { headers });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new DqError('SERVER_UNREACHABLE', `cannot reach the dqctl server at ${target.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  const text = await response.text();
  let body: { code?: unknown; message?: unknown } & Record<string, unknown>;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new DqError('SERVER_UNREACHABLE', `${target.url} answered HTTP ${response.status} with something that is not JSON; is it a dqctl server?`);
  }
  if (response.ok) return body as unknown as ReconcileStatus;
  const message = typeof body.message === 'string' ? body.message : `HTTP ${response.status}`;
  if (typeof body.code === 'string' && body.code in ERROR_CODES) {
    const hint = body.code === 'UNAUTHENTICATED' && !target.token ? ' (pass --token, or set DQCTL_TOKEN)' : '';
    throw new DqError(body.code as ErrorCode, `${message}${hint}`);
  }
  throw new DqError('SERVER_UNREACHABLE', `${target.url} answered HTTP ${response.status}: ${message}; is it a dqctl server?`);
}
