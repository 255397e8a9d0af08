/**
 * What a data source holds (schemas, tables, their columns), for the sources whose catalog is not PostgreSQL's
 * pg_catalog (introspect.ts reads that one): MySQL's and MariaDB's information_schema (mysql/mysqlCatalog.ts) and
 * the folders and files of a DuckDB connection (duckdb/duckdbCatalog.ts). A catalog runs its statements through
 * the `run` it is given, so it reads inside the caller's session (one slot, one snapshot where the source has one).
 */

export interface SourceTable {
  schema: string;
  table: string;
  kind: 'table' | 'partitioned_table' | 'view' | 'materialized_view' | 'foreign_table';
}

export interface SourceColumn {
  name: string;
  /** 1-based position among the live columns. */
  ordinal: number;
  /** The type as the source's import records it (pg_type name; MySQL's data_type; DuckDB's column_type). */
  columnType: string;
  /** The type under a domain (the declared type otherwise; lower case without parameters on DuckDB). */
  baseType: string;
  /** The type's category as pg_type names it: N numeric, S string, D date/time, B boolean, U other, A array. */
  typeCategory: string;
  nullable: boolean;
  /** Declared length of character types (`varchar(20)` → 20). */
  length: number | null;
  /** Declared precision / scale of `numeric(p, s)`. */
  precision: number | null;
  scale: number | null;
  /** 1-based position in the primary key, null when not part of it. */
  primaryKeyPosition: number | null;
}

export interface TableFilter {
  /** Schema name, `*` wildcards (case-sensitive); absent: every schema but the system ones. */
  schema?: string;
  /** Only tables whose name contains this text (case-sensitive). */
  tableContains?: string;
  /** Only the table of exactly this name. */
  table?: string;
  /** With `table`: what the table reads (a DuckDB table's files as its spec names them). */
  relation?: string;
}

/** Runs one statement with `$n` bound values in the caller's session. */
export type CatalogRun = <R extends object>(text: string, params: readonly unknown[]) => Promise<R[]>;

/** The columns of a table, or why they cannot be read (a DuckDB table whose files are missing or malformed). */
export type TableColumns = SourceColumn[] | { error: string };

export interface SourceCatalog {
  listSchemas(run: CatalogRun): Promise<string[]>;
  listTables(run: CatalogRun, filter: TableFilter): Promise<SourceTable[]>;
  /** The columns of every table the filter selects: `schema\0table` → columns (in order) or the reason. */
  describeTables(run: CatalogRun, filter: TableFilter): Promise<Map<string, TableColumns>>;
}

export function schemaTableKey(schema: string, table: string): string {
  return `${schema}\0${table}`;
}

/** `*` glob → a LIKE pattern with `%`, `_` and `\` escaped (for `like $n escape '\'`). */
export function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** `*` glob → a whole-name regular expression. */
export function globRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}
