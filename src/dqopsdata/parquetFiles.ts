import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DqError } from '../model/index.js';
import type { DqopsRow } from '../store/index.js';
import { ACCEPTED_TYPES, LAYOUTS, type KindLayout } from './layout.js';

/**
 * DQOps's Parquet files read and written with DuckDB's Parquet engine (an in-memory DuckDB, no database file,
 * its time zone UTC). No value passes through a JS number on the way: reading, DuckDB writes the rows as CSV files
 * itself (every value cast to text: 64-bit integers digit for digit, timestamps to the microsecond, instants in
 * UTC), which the store loads by COPY; writing, DuckDB casts the text back to each column's DQOps type.
 */
export interface ParquetEngine {
  /**
   * The rows of some files of `layout`'s kind (read by ONE query: a query per file would cost more than a small
   * file's rows), written by DuckDB's CSV writer as PostgreSQL's `format csv` into `dir`, in parts of about
   * `maxPartBytes` each (what a reader of one part holds at most): a line per row, the `columns`' values as
   * text (an unquoted empty field is null: missing, or absent from the file; a file's `fixed` values replace its
   * columns'), then a JSON object of the file's other columns. Returns the rows written and the parts in order.
   * Refuses, naming the file (and column and row), a file that is not Parquet, lacks a required column, has a
   * column of the wrong type, a row without an id, or a row whose month column is empty or outside the file's
   * `month` (`YYYY-MM`, its `m=` folder).
   */
  writeCsvParts(
    files: readonly ParquetSource[],
    layout: KindLayout,
    options: { columns: readonly string[]; dir: string; maxPartBytes: number },
  ): Promise<{ rows: number; parts: string[] }>;
  /** Writes `rows` as one Parquet file with exactly the kind's columns and types (missing values null). */
  writeFile(file: string, layout: KindLayout, rows: readonly DqopsRow[]): Promise<void>;
  /** The columns of a Parquet file and their DuckDB types (for checks of what was written). */
  describe(file: string): Promise<Array<{ name: string; type: string }>>;
  close(): void;
}

/** A file to read, with its month folder and the values its folders give (incidents: connection_name). */
export interface ParquetSource {
  path: string;
  /** `YYYY-MM` of the file's `m=` folder. */
  month: string;
  fixed?: Readonly<Record<string, string>>;
}

/** Files one query of writeCsvParts reads at most (the caller passes at most this many). */
export const FILES_PER_QUERY = 100;

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function invalid(file: string, message: string): DqError {
  return new DqError('DQOPS_DATA_INVALID', `${file}: ${message}`);
}

function newInstance(): Promise<DuckDBInstance> {
  return DuckDBInstance.create(':memory:', { threads: '1' });
}

async function connect(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  // instants are read and written as UTC text ('…+00')
  await connection.run(`set TimeZone = 'UTC'`);
  return connection;
}

export async function openParquetEngine(): Promise<ParquetEngine> {
  const instance = await newInstance();
  return new DuckDbParquetEngine(instance, await connect(instance));
}

/** A file's rows, without the Hive partition columns (c, t, m) DuckDB would add from DQOps's folder names. */
function source(file: string): string {
  return `read_parquet(${literal(file)}, hive_partitioning = false)`;
}

/** The rows of several files, their columns matched by name (a column a file lacks is null), each row with its `filename`. */
function sources(files: readonly ParquetSource[]): string {
  return `read_parquet([${files.map((f) => literal(f.path)).join(', ')}], union_by_name = true, filename = true, hive_partitioning = false)`;
}

/** The files as a table (path, month, and one column per fixed value), to join with their rows by filename. */
function fileTable(files: readonly ParquetSource[], fixedNames: readonly string[]): string {
  const rows = files.map((f) => `(${[f.path, f.month, ...fixedNames.map((n) => f.fixed?.[n] ?? null)].map((v) => (v === null ? 'null::varchar' : literal(v))).join(', ')})`);
  return `(select * from (values ${rows.join(', ')}) as source_files(source_path, source_month${fixedNames.map((n) => `, ${identifier(`fixed_${n}`)}`).join('')}))`;
}

/**
 * Files an in-memory DuckDB reads or writes before it is replaced by a fresh one: an instance keeps native memory
 * for every file it opened (measured: ~0.2 MiB a file, not freed by closing the connection), so a home of
 * thousands of files would grow the process without bound; with a fresh instance every 100 files it stays flat.
 */
const FILES_PER_INSTANCE = FILES_PER_QUERY;

class DuckDbParquetEngine implements ParquetEngine {
  #tables = 0;
  #files = 0;

  constructor(
    private instance: DuckDBInstance,
    private connection: DuckDBConnection,
  ) {}

  /** Counts a file; every FILES_PER_INSTANCE files, starts over with a fresh in-memory DuckDB. */
  private async nextFile(): Promise<void> {
    await this.nextFiles(1);
  }

  /** Counts files about to be read; past FILES_PER_INSTANCE since the last fresh DuckDB, starts over with one. */
  private async nextFiles(count: number): Promise<void> {
    this.#files += count;
    if (this.#files < FILES_PER_INSTANCE) return;
    this.#files = 0;
    this.close();
    this.instance = await newInstance();
    this.connection = await connect(this.instance);
  }

  async describe(file: string): Promise<Array<{ name: string; type: string }>> {
    try {
      const reader = await this.connection.runAndReadAll(`describe select * from ${source(file)}`);
      return reader.getRowObjectsJson().map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    } catch (error) {
      throw invalid(file, `not a readable Parquet file (${firstLine(error)})`);
    }
  }

  async writeCsvParts(
    files: readonly ParquetSource[],
    layout: KindLayout,
    options: { columns: readonly string[]; dir: string; maxPartBytes: number },
  ): Promise<{ rows: number; parts: string[] }> {
    if (files.length === 0) return { rows: 0, parts: [] };
    if (files.length > FILES_PER_QUERY) throw new RangeError(`at most ${FILES_PER_QUERY} files per query`);
    await this.nextFiles(files.length);
    const columns = await this.validate(files, layout);
    const present = new Set(columns.map((c) => c.name));
    const fixedNames = [...new Set(files.flatMap((f) => Object.keys(f.fixed ?? {})))];
    const text = (name: string) => (present.has(name) ? `cast(r.${identifier(name)} as varchar)` : 'null::varchar');
    const values = options.columns.map((name) => (fixedNames.includes(name) ? `coalesce(f.${identifier(`fixed_${name}`)}, ${text(name)})` : text(name)));
    const others = columns.filter(({ name }) => !options.columns.includes(name));
    const object = others.length === 0 ? `'{}'` : `cast(json_object(${others.map(({ name }) => `${literal(name)}, ${text(name)}`).join(', ')}) as varchar)`;
    await this.checkRows(files, layout, fixedNames);
    const where = files.length === 1 ? files[0].path : `${files.length} files from ${files[0].path}`;
    let rows: number;
    try {
      // DuckDB's CSV writer quotes what needs quoting, writes an empty string as "" and null as nothing
      const written = await this.connection.runAndReadAll(
        `copy (select ${[...values, object].join(', ')} from ${sources(files)} as r join ${fileTable(files, fixedNames)} as f on r.filename = f.source_path)
           to ${literal(options.dir)} (format csv, header false, file_size_bytes ${Math.max(1, Math.floor(options.maxPartBytes))}, overwrite_or_ignore true)`,
      );
      rows = Number(written.getRows()[0]?.[0] ?? 0);
    } catch (error) {
      throw invalid(where, `cannot be read (${firstLine(error)})`);
    }
    const parts = (await readdir(options.dir).catch(() => [] as string[]))
      .map((name) => ({ name, n: /^data_(\d+)\.csv$/.exec(name)?.[1] }))
      .filter((part): part is { name: string; n: string } => part.n !== undefined)
      .sort((a, b) => Number(a.n) - Number(b.n))
      .map((part) => join(options.dir, part.name));
    return { rows, parts };
  }

  /**
   * The columns of the files' rows (matched by name), after checking each file: readable, with every required
   * column, each column of an accepted type. Two queries for all the files (their schemas; the columns' types
   * as DuckDB reads them together); only when those find a fault, each file alone, to name the file at fault.
   */
  private async validate(files: readonly ParquetSource[], layout: KindLayout): Promise<Array<{ name: string; type: string }>> {
    let names: Map<string, Set<string>>;
    let columns: Array<{ name: string; type: string }>;
    try {
      const schema = (await this.connection.runAndReadAll(
        `select file_name, name from parquet_schema([${files.map((f) => literal(f.path)).join(', ')}]) where coalesce(num_children, 0) = 0`,
      )).getRowObjectsJson();
      names = new Map(files.map((f) => [f.path, new Set<string>()]));
      for (const row of schema) names.get(String(row.file_name))?.add(String(row.name));
      columns = (await this.connection.runAndReadAll(`describe select * exclude (filename) from ${sources(files)}`))
        .getRowObjectsJson()
        .map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    } catch {
      for (const file of files) await this.describeChecked(file.path, layout);
      throw invalid(files[0].path, 'cannot be read with the files beside it');
    }
    for (const file of files) {
      const present = names.get(file.path)!;
      for (const name of layout.required) if (!present.has(name)) throw invalid(file.path, `the required column ${name} is missing`);
    }
    if (columns.some(({ name, type }) => !accepted(layout, name, type))) {
      for (const file of files) await this.describeChecked(file.path, layout);
      const [wrong] = columns.filter(({ name, type }) => !accepted(layout, name, type));
      throw invalid(files[0].path, `column ${wrong.name} of these files reads as ${wrong.type}, DQOps writes it as ${new Map(layout.columns).get(wrong.name)}`);
    }
    return columns;
  }

  /** One file's columns, refused (naming the file) when unreadable or a column is of a type DQOps does not write. */
  private async describeChecked(file: string, layout: KindLayout): Promise<void> {
    const columns = await this.describe(file);
    for (const { name, type } of columns) {
      if (!accepted(layout, name, type)) throw invalid(file, `column ${name} is ${type}, DQOps writes it as ${new Map(layout.columns).get(name)}`);
    }
  }

  /** The first row without an id, or whose month column is empty or outside its file's month folder: refused. */
  private async checkRows(files: readonly ParquetSource[], layout: KindLayout, fixedNames: readonly string[]): Promise<void> {
    const when = `cast(r.${identifier(layout.monthColumn)} as varchar)`;
    let bad;
    try {
      bad = (await this.connection.runAndReadAll(
        `select f.source_path as file, f.source_month as folder, cast(r.id as varchar) as id, ${when} as month
           from ${sources(files)} as r join ${fileTable(files, fixedNames)} as f on r.filename = f.source_path
          where r.id is null or ${when} is null or left(${when}, 7) <> f.source_month limit 1`,
      )).getRowObjectsJson()[0];
    } catch (error) {
      throw invalid(files.length === 1 ? files[0].path : `${files.length} files from ${files[0].path}`, `cannot be read (${firstLine(error)})`);
    }
    if (!bad) return;
    const file = String(bad.file);
    if (bad.id === null) throw invalid(file, 'a row without an id (column id is empty)');
    if (bad.month === null) throw invalid(file, `column ${layout.monthColumn} is empty in row ${String(bad.id)}`);
    throw invalid(file, `column ${layout.monthColumn} of row ${String(bad.id)} is ${String(bad.month)}, outside its month folder m=${String(bad.folder)}-01`);
  }

  async writeFile(file: string, layout: KindLayout, rows: readonly DqopsRow[]): Promise<void> {
    await this.nextFile();
    const table = `dqops_rows_${++this.#tables}`;
    const columns = layout.columns;
    await this.connection.run(`create temp table ${table} (${columns.map(([name]) => `${identifier(name)} varchar`).join(', ')})`);
    try {
      const appender = await this.connection.createAppender(table);
      for (const row of rows) {
        for (const [name] of columns) {
          const value = row[name];
          if (value === null || value === undefined) appender.appendNull();
          else appender.appendVarchar(value);
        }
        appender.endRow();
      }
      appender.flushSync();
      appender.closeSync();
      const casts = columns.map(([name, type]) => `cast(${identifier(name)} as ${type === 'TIMESTAMPTZ' ? 'timestamptz' : type}) as ${identifier(name)}`);
      await this.connection.run(`copy (select ${casts.join(', ')} from ${table}) to ${literal(file)} (format parquet)`);
    } finally {
      await this.connection.run(`drop table ${table}`);
    }
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}

/** Whether a column read as `type` is one DQOps writes for it (a column DQOps does not have may be anything). */
function accepted(layout: KindLayout, name: string, type: string): boolean {
  const want = layout.columns.find(([column]) => column === name)?.[1];
  return !want || ACCEPTED_TYPES[want].includes(type);
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).split('\n')[0];
}

export { LAYOUTS };
