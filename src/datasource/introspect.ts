import { DqError } from '../model/index.js';
import type { DataSource, DataSourceSession, SessionOptions } from './dataSource.js';
import { likePattern, schemaTableKey, type CatalogRun, type SourceCatalog, type SourceColumn, type SourceTable, type TableColumns, type TableFilter } from './sourceCatalog.js';

/**
 * What a PostgreSQL data source holds, read from pg_catalog with bound parameters: schemas, tables (tables,
 * partitioned tables, views, materialized views, foreign tables; not the partitions of a partitioned table),
 * and columns with their type, nullability, length / precision / scale and primary key position.
 *
 * `column_type` is the type's name in pg_type (`int4`, `varchar`, `numeric`, `timestamptz`, `_int4` for an
 * array, a domain's own name): the names a DQOps PostgreSQL import records, which `data_type` policy targets
 * match and `dataTypeCategoryOf` understands. The statistics use the base type of a domain.
 */
export type { SourceColumn, SourceTable, TableFilter } from './sourceCatalog.js';
export { likePattern, schemaTableKey } from './sourceCatalog.js';

/** The catalog of a source that is not PostgreSQL (MySQL's information_schema, DuckDB's folders), if any. */
function catalogOf(source: DataSource | DataSourceSession): SourceCatalog | undefined {
  return source.catalog;
}

function runner(source: DataSource | DataSourceSession, options: SessionOptions): CatalogRun {
  return <R extends object>(text: string, params: readonly unknown[]) => query<R>(source, text, [...params], options);
}

/** Only the tables that could be described (the others are read with describeTablesOrFailures). */
function described(all: Map<string, TableColumns>): Map<string, SourceColumn[]> {
  const out = new Map<string, SourceColumn[]>();
  for (const [key, columns] of all) if (Array.isArray(columns)) out.set(key, columns);
  return out;
}

const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema')
  and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'`;

const KINDS: Record<string, SourceTable['kind']> = { r: 'table', p: 'partitioned_table', v: 'view', m: 'materialized_view', f: 'foreign_table' };

export async function listSchemas(source: DataSource, options: SessionOptions = {}): Promise<string[]> {
  const catalog = catalogOf(source);
  if (catalog) return source.session((session) => catalog.listSchemas(runner(session, {})), options);
  const rows = await source.query<{ name: string }>(
    `select n.nspname as name from pg_catalog.pg_namespace n where ${USER_SCHEMAS} order by n.nspname collate "C"`,
    [],
    options,
  );
  return rows.map((r) => r.name);
}

export async function listTables(source: DataSource | DataSourceSession, filter: TableFilter = {}, options: SessionOptions = {}): Promise<SourceTable[]> {
  const catalog = catalogOf(source);
  if (catalog) return catalog.listTables(runner(source, options), filter);
  const rows = await query<{ schema: string; table: string; kind: string }>(
    source,
    `select n.nspname as schema, c.relname as table, c.relkind::text as kind
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition and ${USER_SCHEMAS}
        and ($1::text is null or n.nspname like $1 escape '\\')
        and ($2::text is null or strpos(c.relname, $2) > 0)
      order by n.nspname collate "C", c.relname collate "C"`,
    [filter.schema ? likePattern(filter.schema) : null, filter.tableContains ? filter.tableContains : null],
    options,
  );
  return rows.map((r) => ({ schema: r.schema, table: r.table, kind: KINDS[r.kind] ?? 'table' }));
}

const COLUMNS_SQL = `
  select n.nspname as schema, c.relname as table, a.attname as name, a.attnum::int as ordinal,
         t.typname as column_type, coalesce(bt.typname, t.typname) as base_type,
         coalesce(bt.typcategory, t.typcategory)::text as type_category,
         not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)) as nullable,
         case when t.typtype = 'd' then t.typtypmod else a.atttypmod end as typmod,
         pk.position as pk_position
    from pg_catalog.pg_attribute a
    join pg_catalog.pg_class c on c.oid = a.attrelid
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    join pg_catalog.pg_type t on t.oid = a.atttypid
    left join pg_catalog.pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
    left join lateral (
      select k.position::int as position
        from pg_catalog.pg_index i, unnest(i.indkey::int2[]) with ordinality as k(attnum, position)
       where i.indrelid = c.oid and i.indisprimary and k.attnum = a.attnum
    ) pk on true
   where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p', 'v', 'm', 'f')`;

interface ColumnRow {
  schema: string;
  table: string;
  name: string;
  ordinal: number;
  column_type: string;
  base_type: string;
  type_category: string;
  nullable: boolean;
  typmod: number;
  pk_position: number | null;
}

/**
 * The columns of one table in column order; empty when the table does not exist (or has no columns). `relation`:
 * what the table reads when the data source says (a DuckDB table's files, from its spec).
 */
export async function describeTable(source: DataSource | DataSourceSession, schema: string, table: string, options: SessionOptions = {}, relation?: string): Promise<SourceColumn[]> {
  const catalog = catalogOf(source);
  if (catalog) {
    const filter: TableFilter = { schema, table, ...(relation === undefined ? {} : { relation }) };
    const columns = (await catalog.describeTables(runner(source, options), filter)).get(schemaTableKey(schema, table));
    if (columns !== undefined && !Array.isArray(columns)) throw new DqError('DATASOURCE_QUERY_FAILED', columns.error);
    return columns ?? [];
  }
  const rows = await query<ColumnRow>(source, `${COLUMNS_SQL} and n.nspname = $1 and c.relname = $2 order by a.attnum`, [schema, table], options);
  return rows.map(toColumn);
}

/** The columns of every table the filter selects, in one query: `schema\0table` → columns. */
export async function describeTables(source: DataSource | DataSourceSession, filter: TableFilter = {}, options: SessionOptions = {}): Promise<Map<string, SourceColumn[]>> {
  return described(await describeTablesOrFailures(source, filter, options));
}

/** As describeTables, with the reason for each table whose columns cannot be read (DuckDB files). */
export async function describeTablesOrFailures(source: DataSource | DataSourceSession, filter: TableFilter = {}, options: SessionOptions = {}): Promise<Map<string, TableColumns>> {
  const catalog = catalogOf(source);
  if (catalog) return catalog.describeTables(runner(source, options), filter);
  const rows = await query<ColumnRow>(
    source,
    `${COLUMNS_SQL} and not c.relispartition and ${USER_SCHEMAS}
       and ($1::text is null or n.nspname like $1 escape '\\')
       and ($2::text is null or strpos(c.relname, $2) > 0)
     order by n.nspname collate "C", c.relname collate "C", a.attnum`,
    [filter.schema ? likePattern(filter.schema) : null, filter.tableContains ? filter.tableContains : null],
    options,
  );
  const byTable = new Map<string, SourceColumn[]>();
  for (const row of rows) {
    const key = schemaTableKey(row.schema, row.table);
    let columns = byTable.get(key);
    if (!columns) byTable.set(key, (columns = []));
    columns.push(toColumn(row));
  }
  return byTable;
}

function toColumn(row: ColumnRow): SourceColumn {
  const { length, precision, scale } = typeModifiers(row.base_type, row.typmod);
  return {
    name: row.name,
    ordinal: row.ordinal,
    columnType: row.column_type,
    baseType: row.base_type,
    typeCategory: row.type_category,
    nullable: row.nullable,
    length,
    precision,
    scale,
    primaryKeyPosition: row.pk_position,
  };
}

/** Decodes atttypmod the way PostgreSQL stores it: character types length + 4, numeric ((p << 16) | s) + 4. */
function typeModifiers(baseType: string, typmod: number): { length: number | null; precision: number | null; scale: number | null } {
  const none = { length: null, precision: null, scale: null };
  if (typmod < 0) return none;
  if (baseType === 'varchar' || baseType === 'bpchar') return { ...none, length: typmod - 4 };
  if (baseType === 'bit' || baseType === 'varbit') return { ...none, length: typmod };
  if (baseType === 'numeric') {
    const packed = typmod - 4;
    const precision = (packed >> 16) & 0xffff;
    // the scale is an 11-bit signed number since PostgreSQL 15 (negative scales round to tens, hundreds …)
    let scale = packed & 0x7ff;
    if (scale & 0x400) scale -= 0x800;
    return { ...none, precision, scale };
  }
  return none;
}

function query<R extends object>(source: DataSource | DataSourceSession, text: string, params: unknown[], options: SessionOptions): Promise<R[]> {
  return 'session' in source ? source.query<R>(text, params, options) : source.query<R>(text, params);
}
