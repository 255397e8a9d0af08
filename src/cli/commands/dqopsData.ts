import { exportDqopsData, importDqopsData, type DqopsDataExportResult, type DqopsDataImportResult } from '../../app/dqopsData.js';
import type { CliIo } from '../io.js';
import { terminalProgress } from '../progressBar.js';
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

export interface ExportDqopsDataOptions extends StoreFlags {
  out: string;
  format: 'text' | 'json';
}

/** `dqctl export dqops-data --out DIR`: the stored history as DQOps's DIR/.data/ (app/dqopsData.ts). */
export async function exportDqopsDataCommand(options: ExportDqopsDataOptions, io: CliIo): Promise<number> {
  return withStore(options, io, { operation: 'export dqops-data' }, async (store) => {
    const progress = terminalProgress(io);
    let result: DqopsDataExportResult;
    try {
      result = await exportDqopsData(store, { out: options.out, progress: progress.report });
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
  });
}
