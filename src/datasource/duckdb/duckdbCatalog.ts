/**
 * A DuckDB connection's catalog, as DQOps lists it: in files mode a schema is a key of `directories`; its tables
 * are the folders in the schema's folder (a table of the files inside, fileRelation.ts) and the files of the
 * connection's format lying in it (a table named as the file, `orders.csv`); the columns of a table are what
 * DuckDB's reader detects in its files (`DESCRIBE`, DQOps's column_type: `VARCHAR`, `DECIMAL(14,6)`,
 * `TIMESTAMP WITH TIME ZONE`), every one nullable. A table whose files cannot be read (none left, a malformed
 * file) gets the reason instead of columns. A remote folder (a bucket) is listed through DuckDB's glob of its
 * files (httpfs or azure; without the extension, its session's error names it). An in_memory connection holds
 * nothing.
 */
import { readdir } from 'node:fs/promises';
import { DqError } from '../../model/index.js';
import { globRegExp, schemaTableKey, type CatalogRun, type SourceCatalog, type SourceColumn, type SourceTable, type TableColumns, type TableFilter } from '../sourceCatalog.js';
import type { DuckdbSettings } from './duckdbSettings.js';
import { fileRelation, isRemotePath } from './fileRelation.js';

/** pg_type's categories of DuckDB's types (by the type's first word). */
function categoryOf(baseType: string): string {
  if (/^(tinyint|smallint|integer|int|bigint|hugeint|utinyint|usmallint|uinteger|ubigint|uhugeint|float|real|double|decimal|numeric)$/.test(baseType)) return 'N';
  if (/^(varchar|text|string|char|bpchar|uuid|enum)$/.test(baseType)) return 'S';
  if (/^(date|time|timestamp|timestamptz|interval)/.test(baseType)) return 'D';
  if (baseType === 'boolean') return 'B';
  if (/\[\]$/.test(baseType)) return 'A';
  return 'U';
}

function columnOf(row: { column_name: unknown; column_type: unknown; null?: unknown }, ordinal: number): SourceColumn {
  const columnType = String(row.column_type);
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/i.exec(columnType);
  const baseType = /\[\]$/.test(columnType) ? columnType.toLowerCase() : columnType.replace(/\(.*$/, '').replace(/ WITH TIME ZONE$/i, 'tz').toLowerCase();
  return {
    name: String(row.column_name),
    ordinal,
    columnType,
    baseType,
    typeCategory: categoryOf(baseType),
    nullable: row.null === undefined || row.null === 'YES',
    length: null,
    precision: decimal ? Number(decimal[1]) : null,
    scale: decimal ? Number(decimal[2]) : null,
    primaryKeyPosition: null,
  };
}

/**
 * The tables of a remote folder from the files listed under it (glob `folder/**`), as a local folder's are read:
 * a file directly in the folder whose name has the format's extension is a table, and so is each first-level
 * folder holding files (its files, hive partitions below it included). Sorted, each once.
 */
export function tablesOfListedFiles(folder: string, files: readonly string[], extension: string | undefined): string[] {
  const prefix = `${folder.replace(/\/+$/, '')}/`;
  const names = new Set<string>();
  for (const file of files) {
    if (!file.startsWith(prefix)) continue;
    const [first, ...rest] = file.slice(prefix.length).split('/');
    if (first === undefined || first === '') continue;
    if (rest.length > 0 || (extension !== undefined && first.toLowerCase().includes(extension))) names.add(first);
  }
  return [...names].sort();
}

export function duckdbCatalog(connection: string, settingsOf: () => Promise<DuckdbSettings>): SourceCatalog {
  const schemasOf = async (filter: TableFilter): Promise<Array<[string, string]>> => {
    const settings = await settingsOf();
    if (settings.readMode !== 'files') return [];
    const pattern = filter.schema === undefined ? undefined : globRegExp(filter.schema);
    return Object.entries(settings.directories).filter(([schema]) => pattern === undefined || pattern.test(schema)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  };

  const listTables = async (run: CatalogRun, filter: TableFilter): Promise<SourceTable[]> => {
    const settings = await settingsOf();
    const extension = settings.format === undefined ? undefined : `.${settings.format}`;
    const tables: SourceTable[] = [];
    for (const [schema, folder] of await schemasOf(filter)) {
      let found: string[];
      if (isRemotePath(folder)) {
        // a bucket has no folders to read: DuckDB's glob lists its files (httpfs, or azure for az://; when the
        // extension is not installed, the session's error names it)
        const files = await run<{ file: unknown }>('select file from glob($1)', [`${folder.replace(/\/+$/, '')}/**`]);
        found = tablesOfListedFiles(folder, files.map((row) => String(row.file)), extension);
      } else {
        let entries;
        try {
          entries = await readdir(folder, { withFileTypes: true });
        } catch (error) {
          throw new DqError('DATASOURCE_QUERY_FAILED', `connection ${JSON.stringify(connection)}: the folder of schema ${JSON.stringify(schema)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { connection });
        }
        found = entries.filter((entry) => entry.isDirectory() || (extension !== undefined && entry.isFile() && entry.name.toLowerCase().includes(extension))).map((entry) => entry.name);
      }
      const names = found
        .filter((name) => !name.startsWith('.'))
        .filter((name) => filter.table === undefined || name === filter.table)
        .filter((name) => filter.tableContains === undefined || name.includes(filter.tableContains))
        .sort();
      for (const table of names) tables.push({ schema, table, kind: 'table' });
    }
    return tables;
  };

  return {
    async listSchemas(): Promise<string[]> {
      return (await schemasOf({})).map(([schema]) => schema);
    },
    listTables,
    async describeTables(run: CatalogRun, filter: TableFilter): Promise<Map<string, TableColumns>> {
      const settings = await settingsOf();
      const described = new Map<string, TableColumns>();
      const tables = filter.table !== undefined && filter.schema !== undefined && !filter.schema.includes('*') ? [{ schema: filter.schema, table: filter.table }] : await listTables(run, filter);
      for (const { schema, table } of tables) {
        const key = schemaTableKey(schema, table);
        try {
          const relation = filter.relation ?? fileRelation(connection, settings, schema, table).relation;
          const rows = await run<{ column_name: unknown; column_type: unknown; null: unknown }>(`describe select * from ${relation}`, []);
          described.set(key, rows.map((row, index) => columnOf(row, index + 1)));
        } catch (error) {
          described.set(key, { error: (error as Error).message });
        }
      }
      return described;
    },
  };
}
