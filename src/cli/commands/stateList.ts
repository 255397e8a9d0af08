import { listLiveState, type LiveStateListing } from '../../app/listLiveState.js';
import { isObjectKind, DqError, OBJECT_KINDS, type ObjectKind } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

export interface StateListOptions extends StoreFlags, RemoteFlags {
  kind?: string;
  format: 'text' | 'json';
}

/**
 * `dqctl state list`: what the live store holds, who manages each object and where it came from; with --server,
 * the store of that running server (GET /api/gitops/state, the same JSON).
 */
export async function stateListCommand(options: StateListOptions, io: CliIo): Promise<number> {
  if (options.kind !== undefined && !isObjectKind(options.kind)) {
    throw new DqError('INVALID_ARGUMENT', `--kind must be one of ${OBJECT_KINDS.join(', ')}, not ${JSON.stringify(options.kind)}`);
  }
  const kind = options.kind;
  const target = remoteTargetOf(options, io);
  const listing = target
    ? await remoteListing(target, kind)
    : await withStore(options, io, { operation: 'state list' }, (store) => listLiveState(store, { kind }));
  if (options.format === 'json') {
    io.stdout(JSON.stringify(listing, null, 2) + '\n');
    return 0;
  }
  const { objects } = listing;
  io.stdout(`Live store ${listing.store.location}, revision ${listing.store.revision}: ${objects.length} object${objects.length === 1 ? '' : 's'}\n\n`);
  if (objects.length === 0) return 0;
  const rows = objects.map((o) => [
    o.kind,
    o.name,
    o.managed_by + (o.drifted ? ' (changed outside git)' : ''),
    o.owner,
    o.origin.file ? `${o.origin.file}${o.origin.commit ? `@${o.origin.commit.slice(0, 8)}` : ''}` : '-',
    String(o.revision),
  ]);
  const header = ['KIND', 'NAME', 'MANAGED_BY', 'OWNER', 'ORIGIN', 'REV'];
  io.stdout(renderColumns(header, rows));
  return 0;
}

async function remoteListing(target: RemoteTarget, kind: ObjectKind | undefined): Promise<LiveStateListing> {
  const listing = await callServer<LiveStateListing>(target, 'GET', `/api/gitops/state${kind ? `?kind=${encodeURIComponent(kind)}` : ''}`);
  if (!listing) throw new DqError('SERVER_UNREACHABLE', `${target.url} answered GET /api/gitops/state with no content; is it a dqctl server?`);
  return listing;
}
