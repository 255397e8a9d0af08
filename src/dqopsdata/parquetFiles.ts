import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DqError } from '../model/index.js';
import type { DqopsRow } from '../store/index.js';
import { ACCEPTED_TYPES, LAYOUTS, type KindLayout } from './layout.js';

/**
 * DQOps's Parquet files read and written with DuckDB's Parquet engine (an in-memory DuckDB, no database file).
 * Values cross as text: DuckDB casts every column to VARCHAR when reading (64-bit integers digit for digit,
 * timestamps to the microsecond) and casts the text back to the DQOps type of each column when writing, so no
 * value passes through a JS number on the way.
 */
export interface ParquetEngine {
  /**
   * The rows of one file of `layout`'s kind, `batchRows` at a time (DuckDB streams the file; memory holds one
   * batch). Refuses, naming the file (and column), a file that is not Parquet, lacks a required column or has a
   * column of the wrong type.
   */
  readRows(file: string, layout: KindLayout, batchRows: number): AsyncGenerator<DqopsRow[]>;
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

export async function openParquetEngine(): Promise<ParquetEngine> {
  const instance = await newInstance();
  const connection = await instance.connect();
  return new DuckDbParquetEngine(instance, connection);
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
    this.connection = await this.instance.connect();
  }

  async describe(file: string): Promise<Array<{ name: string; type: string }>> {
    try {
      const reader = await this.connection.runAndReadAll(`describe select * from read_parquet(${literal(file)})`);
      return reader.getRowObjectsJson().map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    } catch (error) {
      throw invalid(file, `not a readable Parquet file (${firstLine(error)})`);
    }
  }

  async *readRows(file: string, layout: KindLayout, batchRows: number): AsyncGenerator<DqopsRow[]> {
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
    // timestamps with zone are printed in UTC by DuckDB ('…+00'); every value is text
    const select = columns.map(({ name }) => `cast(${identifier(name)} as varchar)`).join(', ');
    let result;
    try {
      result = await this.connection.stream(`select ${select} from read_parquet(${literal(file)})`);
    } catch (error) {
      throw invalid(file, `cannot be read (${firstLine(error)})`);
    }
    const names = columns.map((c) => c.name);
    let batch: DqopsRow[] = [];
    for (;;) {
      let chunk;
      try {
        chunk = await result.fetchChunk();
      } catch (error) {
        throw invalid(file, `cannot be read (${firstLine(error)})`);
      }
      if (!chunk || chunk.rowCount === 0) break;
      for (const values of chunk.getRows()) {
        const row: DqopsRow = {};
        names.forEach((name, i) => {
          row[name] = values[i] === null ? null : String(values[i]);
        });
        batch.push(row);
      }
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
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
