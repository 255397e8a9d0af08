import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  checkDqopsDataPath,
  emptyExportCounts,
  exportDqopsData,
  importDqopsData,
  type DqopsDataExportResult,
  type DqopsDataFileEntry,
  type DqopsDataImportResult,
} from '../../app/dqopsData.js';
import { DqError, type ProgressReporter } from '../../model/index.js';
import type { CliIo } from '../io.js';
import { terminalProgress } from '../progressBar.js';
import { callServer, downloadFromServer, remoteTargetOf, type RemoteFlags, type RemoteTarget } from '../remoteClient.js';
import { withStore, type StoreFlags } from '../storeOptions.js';

export interface ImportDqopsDataOptions extends StoreFlags {
  dryRun?: boolean;
  format: 'text' | 'json';
}

/**
 * `dqctl import dqops-data HOME [--dry-run] [--format text|json]`: DQOps's measured history (HOME/.data/) into
 * the store, all of it or nothing (app/dqopsData.ts). Exit 0 when imported (or checked, with --dry-run); a bad
 * file fails with DQOPS_DATA_INVALID (exit 1) and stores nothing.
 */
export async function importDqopsDataCommand(home: string, options: ImportDqopsDataOptions, io: CliIo): Promise<number> {
  return withStore(options, io, { operation: 'import dqops-data' }, async (store) => {
    const progress = terminalProgress(io);
    let result: DqopsDataImportResult;
    try {
      result = await importDqopsData(store, { home, dryRun: options.dryRun === true, progress: progress.report });
    } finally {
      progress.stop();
    }
    if (options.format === 'json') io.stdout(JSON.stringify({ kinds: result.kinds }, null, 2) + '\n');
    else io.stdout(renderImport(result));
    return 0;
  });
}

function renderImport(result: DqopsDataImportResult): string {
  const lines = [`${result.dryRun ? 'Would import' : 'Imported'} ${result.files} file${result.files === 1 ? '' : 's'} of DQOps history:`];
  for (const [kind, count] of Object.entries(result.kinds)) lines.push(`  ${kind.padEnd(16)} ${String(count.rows).padStart(9)} rows, ${count.new} new`);
  if (result.dryRun) lines.push('Dry run: nothing was stored.');
  return lines.join('\n') + '\n';
}

export interface ExportDqopsDataOptions extends StoreFlags, RemoteFlags {
  out: string;
  format: 'text' | 'json';
}

/**
 * `dqctl export dqops-data --out DIR`: the stored history as DQOps's DIR/.data/ (app/dqopsData.ts). With --server,
 * that server's store: the files it lists (GET /api/gitops/dqops-data) are fetched one at a time
 * (GET /api/gitops/dqops-data/file, written there by the same export code) into the same layout, with the same
 * summary.
 */
export async function exportDqopsDataCommand(options: ExportDqopsDataOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  const progress = terminalProgress(io);
  let result: DqopsDataExportResult;
  try {
    result = target
      ? await remoteExport(target, options.out, progress.report)
      : await withStore(options, io, { operation: 'export dqops-data' }, (store) => exportDqopsData(store, { out: options.out, progress: progress.report }));
  } finally {
    progress.stop();
  }
  if (options.format === 'json') io.stdout(JSON.stringify({ kinds: result.kinds }, null, 2) + '\n');
  else {
    const lines = [`Exported DQOps history to ${result.out}/.data:`];
    for (const [kind, count] of Object.entries(result.kinds)) lines.push(`  ${kind.padEnd(16)} ${String(count.rows).padStart(9)} rows in ${count.files} files`);
    io.stdout(lines.join('\n') + '\n');
  }
  return 0;
}

async function remoteExport(target: RemoteTarget, out: string, progress?: ProgressReporter): Promise<DqopsDataExportResult> {
  const listing = await callServer<{ files: DqopsDataFileEntry[] }>(target, 'GET', '/api/gitops/dqops-data');
  if (!listing || !Array.isArray(listing.files)) {
    throw new DqError('SERVER_UNREACHABLE', `${target.url} answered GET /api/gitops/dqops-data without a list of files; is it a dqctl server of this version?`);
  }
  // a path from the server is checked as the server checks a client's: nothing lands outside DIR/.data
  for (const entry of listing.files) checkDqopsDataPath(entry.path);
  const kinds = emptyExportCounts();
  progress?.({ phase: 'export', done: 0, total: listing.files.length });
  let done = 0;
  for (const entry of listing.files) {
    const kind = checkDqopsDataPath(entry.path);
    const file = join(out, '.data', ...entry.path.split('/'));
    await mkdir(dirname(file), { recursive: true });
    const headers = await downloadFromServer(target, `/api/gitops/dqops-data/file?${new URLSearchParams({ path: entry.path })}`, file);
    const rows = Number(headers.get('x-dqctl-rows') ?? entry.rows);
    kinds[kind].rows += Number.isFinite(rows) ? rows : 0;
    kinds[kind].files++;
    progress?.({ phase: 'export', done: ++done, total: listing.files.length });
  }
  return { kinds, out };
}
