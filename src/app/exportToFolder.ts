import type { Store } from '../store/store.js';
import { exportLive, type ExportOptions, type ExportResult } from './exportLive.js';
import { writeExport, type WriteExportOptions, type WriteExportResult } from './writeExport.js';

/**
 * `dqctl export`: the live store's objects (those the options select) as DQOps files in `folder`: what was
 * exported (objects, namespaces, secrets replaced by references, warnings) and what happened to each file
 * (written, unchanged, kept; with `dryRun` what would be written, before and after).
 */
export interface ExportToFolderResult {
  exported: ExportResult;
  files: WriteExportResult;
}

export async function exportToFolder(store: Store, folder: string, options: ExportOptions & WriteExportOptions): Promise<ExportToFolderResult> {
  const exported = exportLive(await store.listObjects(), options);
  const files = await writeExport(folder, exported.files, options);
  return { exported, files };
}
