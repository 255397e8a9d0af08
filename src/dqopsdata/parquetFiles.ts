import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DqError } from '../model/index.js';
import type { DqopsRow } from '../store/index.js';
import { ACCEPTED_TYPES, LAYOUTS, type KindLayout } from './layout.js';

/**
 * DQOps's Parquet files read and written with DuckDB's Parquet engine (an in-memory DuckDB, no database file,
 * its time zone UTC). No value passes through a JS number on the way: reading, DuckDB builds each row's CSV line
 * itself (every value cast to text: 64-bit integers digit for digit, timestamps to the microsecond, instants in
 * UTC), so the import only joins lines into batches for the store's COPY; writing, DuckDB casts the text back to
 * each column's DQOps type.
 */
export interface ParquetEngine {
  /**
   * The rows of one file of `layout`'s kind as CSV text (PostgreSQL's `format csv`), batches of at most
   * `maxBatchBytes` (or one row if a row is larger): a line per row, the `columns`' values as text, quoted (an
   * unquoted empty field: missing, or absent from the file; `fixed` gives a column's value instead of the
   * file's), then a JSON object of the file's other columns. DuckDB streams the file; memory holds one batch. Refuses, naming the file (and column and row),
   * a file that is not Parquet, lacks a required column, has a column of the wrong type, a row without an id, or
   * a row whose month column is empty or outside `month` (`YYYY-MM`, the file's `m=` folder).
   */
  readCsvBatches(
    file: string,
    layout: KindLayout,
    options: { columns: readonly string[]; fixed?: Readonly<Record<string, string>>; month: string; maxBatchBytes: number },
  ): AsyncGenerator<{ csv: string; rows: number }>;
  /** Writes `rows` as one Parquet file with exactly the kind's columns and types (missing values null). */
  writeFile(file: string, layout: KindLayout, rows: readonly DqopsRow[]): Promise<void>;
  /** The columns of a Parquet file and their DuckDB types (for checks of what was written). */
  describe(file: string): Promise<Array<{ name: string; type: string }>>;
  close(): void;
}

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

/**
 * Files an in-memory DuckDB reads or writes before it is replaced by a fresh one: an instance keeps native memory
 * for every file it opened (measured: ~0.2 MiB a file, not freed by closing the connection), so a home of
 * thousands of files would grow the process without bound; with a fresh instance every 100 files it stays flat.
 */
const FILES_PER_INSTANCE = 100;

class DuckDbParquetEngine implements ParquetEngine {
  #tables = 0;
  #files = 0;

  constructor(
    private instance: DuckDBInstance,
    private connection: DuckDBConnection,
  ) {}

  /** Counts a file; every FILES_PER_INSTANCE files, starts over with a fresh in-memory DuckDB. */
  private async nextFile(): Promise<void> {
    if (++this.#files % FILES_PER_INSTANCE !== 0) return;
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

  async *readCsvBatches(
    file: string,
    layout: KindLayout,
    options: { columns: readonly string[]; fixed?: Readonly<Record<string, string>>; month: string; maxBatchBytes: number },
  ): AsyncGenerator<{ csv: string; rows: number }> {
    await this.nextFile();
    const columns = await this.describe(file);
    const present = new Map(columns.map((c) => [c.name, c.type]));
    for (const name of layout.required) {
      if (!present.has(name)) throw invalid(file, `the required column ${name} is missing`);
    }
    const expected = new Map(layout.columns);
    for (const { name, type } of columns) {
      const want = expected.get(name);
      if (want && !ACCEPTED_TYPES[want].includes(type)) throw invalid(file, `column ${name} is ${type}, DQOps writes it as ${want}`);
    }
    await this.checkRows(file, layout, options.month);
    const text = (name: string) => (present.has(name) ? `cast(${identifier(name)} as varchar)` : 'null::varchar');
    const fixed = options.fixed ?? {};
    const values = options.columns.map((name) => (name in fixed ? `${literal(fixed[name])}::varchar` : text(name)));
    const others = columns.filter(({ name }) => !options.columns.includes(name));
    const object = others.length === 0 ? `'{}'` : `cast(json_object(${others.map(({ name }) => `${literal(name)}, ${text(name)}`).join(', ')}) as varchar)`;
    // a CSV field: quoted (quotes doubled), or empty for null
    const field = (value: string) => `coalesce('"' || replace(${value}, '"', '""') || '"', '')`;
    let result;
    try {
      result = await this.connection.stream(`select ${[...values, object].map(field).join(` || ',' || `)} from ${source(file)}`);
    } catch (error) {
      throw invalid(file, `cannot be read (${firstLine(error)})`);
    }
    let parts: string[] = [];
    let bytes = 0;
    for (;;) {
      let chunk;
      try {
        chunk = await result.fetchChunk();
      } catch (error) {
        throw invalid(file, `cannot be read (${firstLine(error)})`);
      }
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getColumnValues(0) as string[]) {
        if (parts.length > 0 && bytes + row.length > options.maxBatchBytes) {
          yield { csv: parts.join('\n') + '\n', rows: parts.length };
          parts = [];
          bytes = 0;
        }
        parts.push(row);
        bytes += row.length + 1;
      }
    }
    if (parts.length > 0) yield { csv: parts.join('\n') + '\n', rows: parts.length };
  }

  /** The first row without an id, or whose month column is empty or outside the file's month folder: refused. */
  private async checkRows(file: string, layout: KindLayout, month: string): Promise<void> {
    const when = `cast(${identifier(layout.monthColumn)} as varchar)`;
    let bad;
    try {
      bad = (await this.connection.runAndReadAll(
        `select cast(id as varchar) as id, ${when} as month from ${source(file)} where id is null or ${when} is null or left(${when}, 7) <> ${literal(month)} limit 1`,
      )).getRowObjectsJson()[0];
    } catch (error) {
      throw invalid(file, `cannot be read (${firstLine(error)})`);
    }
    if (!bad) return;
    if (bad.id === null) throw invalid(file, 'a row without an id (column id is empty)');
    if (bad.month === null) throw invalid(file, `column ${layout.monthColumn} is empty in row ${String(bad.id)}`);
    throw invalid(file, `column ${layout.monthColumn} of row ${String(bad.id)} is ${String(bad.month)}, outside its month folder m=${month}-01`);
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

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).split('\n')[0];
}

export { LAYOUTS };
