import type { StoreReader } from '../store/store.js';
import { exportLive, type ExportOptions, type ExportResult } from './exportLive.js';
import { writeExport, type WriteExportOptions, type WriteExportResult } from './writeExport.js';

/**
 * `dqctl export`: the live store's objects (those the options select) as DQOps files in `folder`: what was
 * exported (objects, namespaces, secrets replaced by references, warnings) and what happened to each file
 * (written, unchanged, kept; with `dryRun` what would be written, before and after).
 *
 * Two halves, so that `export --server` is the same computation: `exportStore` turns the store into files (the
 * server runs it for GET /api/gitops/export), `writeExportedFiles` writes them where the command runs.
 */
export interface ExportToFolderResult {
  exported: ExportResult;
  files: WriteExportResult;
}

export async function exportToFolder(store: StoreReader, folder: string, options: ExportOptions & WriteExportOptions): Promise<ExportToFolderResult> {
  return writeExportedFiles(await exportStore(store, options), folder, options);
}

/** The selected objects of the store as DQOps files (nothing written). */
export async function exportStore(store: StoreReader, options: ExportOptions): Promise<ExportResult> {
  return exportLive(await store.listObjects(), options);
}

/** Writes what `exportStore` made (here, or on a server) into `folder`. */
export async function writeExportedFiles(exported: ExportResult, folder: string, options: WriteExportOptions): Promise<ExportToFolderResult> {
  return { exported, files: await writeExport(folder, exported.files, options) };
}
