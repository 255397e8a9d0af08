import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { decodePartitionName, LAYOUTS, partitionPath } from '../dqopsdata/layout.js';
import { FILES_PER_QUERY, openParquetEngine, type ParquetEngine } from '../dqopsdata/parquetFiles.js';
import { ownCheckRowIdentity } from './dqopsRowIdentity.js';
import { DqError, type ProgressReporter } from '../model/index.js';
import { DQOPS_KINDS, IMPORT_ORDER, stagedColumns, type DqopsKind, type DqopsPartition, type DqopsRow } from '../store/index.js';
import type { Store } from './services.js';

/**
 * Moving DQOps's measured history in and out: `dqctl import dqops-data HOME` reads `HOME/.data/` (six kinds of
 * Parquet files, src/dqopsdata/layout.ts) into the store in ONE transaction (a bad file stores nothing of the run:
 * every file is read and staged first, then the store merges the staged rows, src/store/dqopsDataRows.ts),
 * each row keyed by DQOps's own id so that importing again stores nothing twice; `dqctl export dqops-data --out DIR`
 * writes the store's history as DQOps's `DIR/.data/`.
 */
export interface KindCount {
  /** Rows read from the files. */
  rows: number;
  /** Rows whose id was not stored before (a dry run counts what it would add). */
  new: number;
}

export interface DqopsDataImportResult {
  kinds: Record<DqopsKind, KindCount>;
  files: number;
  dryRun: boolean;
}

export interface DqopsDataImportOptions {
  home: string;
  dryRun: boolean;
  progress?: ProgressReporter;
  /** The size of the CSV parts the rows go to the store in (default 16 MiB): what PGlite reads at once. */
  maxPartBytes?: number;
}

interface DataFile {
  kind: DqopsKind;
  path: string;
  /** `YYYY-MM` of the `m=` folder. */
  month: string;
  /** The decoded `c=` folder (incidents have no connection column). */
  connection: string;
}

export async function importDqopsData(store: Store, options: DqopsDataImportOptions): Promise<DqopsDataImportResult> {
  const files = await listDataFiles(join(options.home, '.data'));
  const kinds = Object.fromEntries(DQOPS_KINDS.map((kind) => [kind, { rows: 0, new: 0 }])) as Record<DqopsKind, KindCount>;
  const engine = await openParquetEngine();
  // the CSV parts of the rows on their way to the store (removed once loaded, and at the end in any case)
  const work = await mkdtemp(join(tmpdir(), 'dqctl-dqops-import-'));
  try {
    options.progress?.({ phase: 'import', done: 0, total: files.length });
    await store.importDqopsData(async (tx) => {
      // DuckDB writes the next group's CSV while the store loads the previous one: one part in flight at most
      let inFlight: Promise<void> | undefined;
      const send = async (kind: DqopsKind, part: string) => {
        const previous = inFlight;
        inFlight = undefined;
        await previous;
        inFlight = tx.stage(kind, { file: part }).finally(() => rm(part, { force: true }));
        // a failure is awaited (and thrown) with the next part or at the end, never left unhandled
        inFlight.catch(() => undefined);
      };
      let done = 0;
      let groupNumber = 0;
      for (const group of queryGroups(files)) {
        const kind = group[0].kind;
        const { rows, parts } = await engine.writeCsvParts(
          group.map((file) => ({ path: file.path, month: file.month, fixed: kind === 'incidents' ? { connection_name: file.connection } : undefined })),
          LAYOUTS[kind],
          { columns: stagedColumns(kind), dir: join(work, `group-${++groupNumber}`), maxPartBytes: options.maxPartBytes ?? MAX_PART_BYTES },
        );
        kinds[kind].rows += rows;
        for (const part of parts) await send(kind, part);
        done += group.length;
        options.progress?.({ phase: 'import', done, total: files.length });
      }
      await inFlight;
      const fresh = await tx.merge((stored, total) => options.progress?.({ phase: 'store', done: stored, total }));
      for (const kind of DQOPS_KINDS) kinds[kind].new = fresh[kind];
    }, { dryRun: options.dryRun });
  } finally {
    engine.close();
    await rm(work, { recursive: true, force: true });
  }
  return { kinds, files: files.length, dryRun: options.dryRun };
}

/** Consecutive files of one kind, at most FILES_PER_QUERY together: what one query of the Parquet reader reads. */
function queryGroups(files: readonly DataFile[]): DataFile[][] {
  const groups: DataFile[][] = [];
  for (const file of files) {
    const last = groups[groups.length - 1];
    if (last && last[0].kind === file.kind && last.length < FILES_PER_QUERY) last.push(file);
    else groups.push([file]);
  }
  return groups;
}

/** Rows go to the store in CSV parts of about this size (one COPY each). */
const MAX_PART_BYTES = 16 * 1024 * 1024;

/**
 * Every Parquet file under `.data/`, kind by kind in IMPORT_ORDER (results before the readouts that join them),
 * each checked for DQOps's folder names. Hidden entries (`.DS_Store`, DQOps's own `.` files) are skipped.
 */
async function listDataFiles(dataDir: string): Promise<DataFile[]> {
  const kindFolders = await visible(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw new DqError('DQOPS_DATA_INVALID', `${dataDir}: no such folder (a DQOps user home has its history in .data/)`);
    throw error;
  });
  for (const folder of kindFolders) {
    if (!(DQOPS_KINDS as readonly string[]).includes(folder)) {
      throw new DqError('DQOPS_DATA_INVALID', `${join(dataDir, folder)}: unknown kind folder ${folder} (DQOps's are ${DQOPS_KINDS.join(', ')})`);
    }
  }
  const files: DataFile[] = [];
  for (const kind of IMPORT_ORDER) {
    if (!kindFolders.includes(kind)) continue;
    const layout = LAYOUTS[kind];
    for (const c of await partitionFolders(join(dataDir, kind), 'c')) {
      const connectionDir = join(dataDir, kind, c);
      const tableDirs = layout.tableLevel ? (await partitionFolders(connectionDir, 't')).map((t) => join(connectionDir, t)) : [connectionDir];
      for (const tableDir of tableDirs) {
        for (const m of await partitionFolders(tableDir, 'm')) {
          const month = /^m=(\d{4}-(0\d|1[0-2]))-\d{2}$/.exec(m);
          if (!month) throw new DqError('DQOPS_DATA_INVALID', `${join(tableDir, m)}: not a month folder (m=YYYY-MM-01)`);
          const monthDir = join(tableDir, m);
          for (const name of (await visible(monthDir)).sort()) {
            if (!name.endsWith('.parquet')) continue;
            files.push({ kind, path: join(monthDir, name), month: month[1], connection: decodePartitionName(c.slice(2)) });
          }
        }
      }
    }
  }
  return files;
}

async function visible(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
}

/** The `<key>=…` folders of a partition level; anything else there is refused. */
async function partitionFolders(dir: string, key: 'c' | 't' | 'm'): Promise<string[]> {
  const names = await visible(dir);
  for (const name of names) {
    if (!name.startsWith(`${key}=`) || !(await stat(join(dir, name))).isDirectory()) {
      throw new DqError('DQOPS_DATA_INVALID', `${join(dir, name)}: expected a ${key}=… partition folder`);
    }
  }
  return names;
}

export interface DqopsDataExportResult {
  kinds: Record<DqopsKind, { rows: number; files: number }>;
  out: string;
}

/**
 * Writes every stored row as DQOps's `.data/` under `out`: one file per kind and partition (memory holds one
 * partition's rows), DQOps's folder and file names and column types. An imported row goes out as it came in; a
 * row of dqctl's own gets DQOps's ids and hashes where they can be computed (identifyOwnRow, docs/dqops-data.md).
 */
export async function exportDqopsData(store: Store, options: { out: string; progress?: ProgressReporter; batchRows?: number }): Promise<DqopsDataExportResult> {
  const engine = await openParquetEngine();
  const kinds = emptyExportCounts();
  try {
    let kindsDone = 0;
    for (const kind of DQOPS_KINDS) {
      // one partition (one DQOps file) in memory at a time
      for (const partition of await store.dqopsPartitions(kind)) {
        const file = join(options.out, '.data', ...dqopsFilePath(kind, partition).split('/'));
        await mkdir(dirname(file), { recursive: true });
        kinds[kind].rows += await writePartition(store, engine, kind, partition, file, options.batchRows);
        kinds[kind].files++;
      }
      options.progress?.({ phase: 'export', done: ++kindsDone, total: DQOPS_KINDS.length });
    }
  } finally {
    engine.close();
  }
  return { kinds, out: options.out };
}

/** Zero rows and files of every kind: what an export of an empty store reports. */
export function emptyExportCounts(): DqopsDataExportResult['kinds'] {
  return Object.fromEntries(DQOPS_KINDS.map((kind) => [kind, { rows: 0, files: 0 }])) as DqopsDataExportResult['kinds'];
}

/** One partition's rows (dqctl's own given DQOps's ids) written as one Parquet file; answers the rows written. */
async function writePartition(store: Store, engine: ParquetEngine, kind: DqopsKind, partition: DqopsPartition, file: string, batchRows = 10_000): Promise<number> {
  const rows: DqopsRow[] = [];
  for await (const page of store.dqopsRows(kind, batchRows, partition)) {
    for (const row of page) {
      if (row.id === null || row.id === undefined) identifyOwnRow(kind, row);
      rows.push(row);
    }
  }
  await engine.writeFile(file, LAYOUTS[kind], rows);
  return rows.length;
}

/** A partition's file under `.data/`, `/`-separated: `<kind>/c=…/t=…/m=YYYY-MM-01/<file>.parquet`. */
function dqopsFilePath(kind: DqopsKind, partition: DqopsPartition): string {
  return [kind, ...partitionPath(kind, partition.connection, partition.schema ?? '', partition.table ?? '', `${partition.month}-01`), LAYOUTS[kind].fileName].join('/');
}

/** One file an export writes: its kind, its path under `.data/` (`/`-separated) and the rows it holds now. */
export interface DqopsDataFileEntry {
  kind: DqopsKind;
  path: string;
  rows: number;
}

/**
 * The files `dqctl export dqops-data` would write from this store (GET /api/gitops/dqops-data): kind by kind in
 * DQOPS_KINDS order, each partition once, with its row count.
 */
export async function listDqopsDataFiles(store: Store): Promise<DqopsDataFileEntry[]> {
  const files: DqopsDataFileEntry[] = [];
  for (const kind of DQOPS_KINDS) {
    for (const partition of await store.dqopsPartitions(kind)) files.push({ kind, path: dqopsFilePath(kind, partition), rows: partition.rows ?? 0 });
  }
  return files;
}

/**
 * Checks the form of a file path under `.data/` that a client asked for or a server listed: `/`-separated, a
 * kind first, then the partition folders and the file name; no empty, `.` or `..` segment, no backslash, no
 * control character, nothing absolute. A path that fails is INVALID_ARGUMENT (HTTP 400); answers the kind.
 */
export function checkDqopsDataPath(path: string): DqopsKind {
  const segments = path.split('/');
  const kind = segments[0] as DqopsKind;
  const bad =
    !(DQOPS_KINDS as readonly string[]).includes(kind) ||
    segments.length !== (LAYOUTS[kind].tableLevel ? 5 : 4) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..' || /[\\\u0000-\u001f]/.test(segment)) ||
    segments[segments.length - 1] !== LAYOUTS[kind].fileName;
  if (bad) {
    throw new DqError(
      'INVALID_ARGUMENT',
      `${JSON.stringify(path.slice(0, 300))} is not a file of DQOps's .data/ (<kind>/c=…/t=…/m=YYYY-MM-01/<file>.parquet, as GET /api/gitops/dqops-data lists them)`,
    );
  }
  return kind;
}

/** One exported file being read: its rows and size, and its bytes (the temporary file is removed when the stream closes). */
export interface DqopsDataFileStream {
  kind: DqopsKind;
  rows: number;
  bytes: number;
  stream: Readable;
  /** Settles once the stream has closed (read to its end, or destroyed) and the temporary file is gone. */
  removed: Promise<void>;
}

/**
 * One file of the export (GET /api/gitops/dqops-data/file): the path must be one that listDqopsDataFiles lists
 * now (a malformed one is INVALID_ARGUMENT, an unlisted one NOT_FOUND); the partition is written with the export's
 * own code into a temporary file, which the answer streams and then removes. Memory holds one partition's rows.
 */
export async function openDqopsDataFile(store: Store, path: string, options: { batchRows?: number } = {}): Promise<DqopsDataFileStream> {
  const kind = checkDqopsDataPath(path);
  const partition = (await store.dqopsPartitions(kind)).find((p) => dqopsFilePath(kind, p) === path);
  if (!partition) throw new DqError('NOT_FOUND', `the store holds no rows for ${JSON.stringify(path)} (GET /api/gitops/dqops-data lists the files there are)`);
  const work = await mkdtemp(join(tmpdir(), 'dqctl-dqops-file-'));
  const removeWork = () => rm(work, { recursive: true, force: true });
  try {
    const file = join(work, LAYOUTS[kind].fileName);
    const engine = await openParquetEngine();
    let rows: number;
    try {
      rows = await writePartition(store, engine, kind, partition, file, options.batchRows);
    } finally {
      engine.close();
    }
    const { size } = await stat(file);
    const stream = createReadStream(file);
    const removed = new Promise<void>((resolve) => stream.once('close', () => void removeWork().then(resolve, resolve)));
    return { kind, rows, bytes: size, stream, removed };
  } catch (error) {
    await removeWork();
    throw error;
  }
}

/**
 * The id and hashes of a row dqctl measured itself: a readout's or result's as DQOps computes them where it can
 * (dqopsRowIdentity.ts); an execution error names its readout so (its own id: DQOps counts errors per process,
 * which no export can repeat); otherwise an id in DQOps's UUID form from a digest of the row's key.
 */
function identifyOwnRow(kind: DqopsKind, row: DqopsRow): void {
  const identity = kind === 'sensor_readouts' || kind === 'check_results' || kind === 'errors' ? ownCheckRowIdentity(row) : undefined;
  if (identity) {
    const { id, ...hashes } = identity;
    Object.assign(row, hashes);
    if (kind === 'errors') row.readout_id = id ?? null;
    else if (id) row.id = id;
  }
  row.id ??= ownRowId(kind, row);
}

/** An id for a row dqctl measured itself: the UUID form DQOps uses, from a digest of the row's key (stable between exports). */
function ownRowId(kind: DqopsKind, row: DqopsRow): string {
  const key = [kind, row.connection_name, row.schema_name, row.table_name, row.column_name, row.check_type, row.time_gradient, row.check_category,
    row.check_name, row.table_comparison, row.collector_name, row.time_period, row.collected_at, row.data_group_name, row.sample_index, row.executed_at, row.error_message];
  const hex = createHash('sha256').update(JSON.stringify(key)).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

