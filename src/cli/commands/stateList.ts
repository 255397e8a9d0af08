import { isObjectKind, DqError, OBJECT_KINDS, type LiveSummary } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

export interface StateListOptions extends StoreFlags {
  kind?: string;
  format: 'text' | 'json';
}

/** `dqctl state list`: what the live store holds, who manages each object and where it came from. */
export async function stateListCommand(options: StateListOptions, io: CliIo): Promise<number> {
  if (options.kind !== undefined && !isObjectKind(options.kind)) {
    throw new DqError('INVALID_ARGUMENT', `--kind must be one of ${OBJECT_KINDS.join(', ')}, not ${JSON.stringify(options.kind)}`);
  }
  const kind = options.kind;
  return withStore(options, io, { operation: 'state list' }, async (store) => {
    const [revision, objects] = await Promise.all([store.revision(), store.listSummaries(kind ? { kind } : undefined)]);
    if (options.format === 'json') {
      io.stdout(
        JSON.stringify(
          {
            store: { engine: store.engine, location: store.description, revision },
            objects: objects.map((o) => ({
              kind: o.kind,
              name: o.name,
              managed_by: o.managedBy,
              owner: o.owner,
              origin: { file: o.originFile, commit: o.originCommit },
              revision: o.revision,
              content_hash: o.contentHash,
              drifted: isDrifted(o),
            })),
          },
          null,
          2,
        ) + '\n',
      );
      return 0;
    }
    io.stdout(`Live store ${store.description}, revision ${revision}: ${objects.length} object${objects.length === 1 ? '' : 's'}\n\n`);
    if (objects.length === 0) return 0;
    const rows = objects.map((o) => [
      o.kind,
      o.name,
      o.managedBy + (isDrifted(o) ? ' (changed outside git)' : ''),
      o.owner,
      o.originFile ? `${o.originFile}${o.originCommit ? `@${o.originCommit.slice(0, 8)}` : ''}` : '-',
      String(o.revision),
    ]);
    const header = ['KIND', 'NAME', 'MANAGED_BY', 'OWNER', 'ORIGIN', 'REV'];
    io.stdout(renderColumns(header, rows));
    return 0;
  });
}

function isDrifted(o: LiveSummary): boolean {
  return o.managedBy === 'git' && o.appliedHash !== o.contentHash;
}
