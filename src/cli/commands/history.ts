import { MAX_HISTORY_LIMIT, readApplyHistory, type ApplyHistoryEntry } from '../../app/applyHistoryEntry.js';
import { DqError } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

/**
 * `dqctl history [--limit N] [--format text|json] [--server URL]`: the apply history, newest first: who applied,
 * when, which commit (and whether the work tree had uncommitted changes), what changed. From the store, or with
 * --server from a running server's GET /api/gitops/history; the JSON is the API's model either way.
 */
export interface HistoryOptions extends StoreFlags, RemoteFlags {
  limit: string;
  format: 'text' | 'json';
}

export async function historyCommand(options: HistoryOptions, io: CliIo): Promise<number> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new DqError('INVALID_ARGUMENT', `--limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}, not ${JSON.stringify(options.limit)}`);
  }
  const target = remoteTargetOf(options, io);
  const entries = target
    ? ((await callServer<ApplyHistoryEntry[]>(target, 'GET', `/api/gitops/history?limit=${limit}`)) ?? [])
    : await withStore(options, io, { operation: 'history' }, (store) => readApplyHistory(store, limit));
  io.stdout(options.format === 'json' ? JSON.stringify(entries, null, 2) + '\n' : renderHistoryText(entries));
  return 0;
}

export function renderHistoryText(entries: readonly ApplyHistoryEntry[]): string {
  if (entries.length === 0) return 'No applies recorded yet.\n';
  const rows = entries.map((e) => [
    String(e.id),
    e.applied_at,
    e.applied_by,
    commitText(e),
    e.environment ?? '-',
    `+${e.summary.add} ~${e.summary.change} -${e.summary.destroy}`,
    String(e.store_revision),
  ]);
  const table = renderColumns(['ID', 'APPLIED AT', 'BY', 'COMMIT', 'ENV', 'CHANGES', 'REVISION'], rows);
  const dirty = entries.filter((e) => e.dirty);
  const notes = dirty.map((e) => `#${e.id} was applied from a work tree with uncommitted changes: ${listed(e.dirty_files)}`);
  return table + (notes.length > 0 ? '\n' + notes.join('\n') + '\n' : '');
}

function commitText(entry: ApplyHistoryEntry): string {
  const commit = entry.commit ? entry.commit.slice(0, 12) : '(none)';
  return entry.dirty ? `${commit}+dirty (${entry.dirty_files.length} file${entry.dirty_files.length === 1 ? '' : 's'})` : commit;
}

function listed(files: readonly string[]): string {
  const shown = files.slice(0, 10).join(', ');
  return files.length > 10 ? `${shown} and ${files.length - 10} more` : shown;
}
