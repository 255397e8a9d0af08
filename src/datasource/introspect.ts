import type { DataSource, DataSourceSession, SessionOptions } from './dataSource.js';

/**
 * What a PostgreSQL data source holds, read from pg_catalog with bound parameters: schemas, tables (tables,
 * partitioned tables, views, materialized views, foreign tables; not the partitions of a partitioned table),
 * and columns with their type, nullability, length / precision / scale and primary key position.
 *
 * `column_type` is the type's name in pg_type (`int4`, `varchar`, `numeric`, `timestamptz`, `_int4` for an
 * array, a domain's own name): the names a DQOps PostgreSQL import records, which `data_type` policy targets
 * match and `dataTypeCategoryOf` understands. The statistics use the base type of a domain.
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
  /** pg_type name of the declared type. */
  columnType: string;
  /** The type under a domain (the declared type otherwise). */
  baseType: string;
  /** pg_type.typcategory of the base type: N numeric, S string, D date/time, B boolean, U user, A array, … */
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
}

/** `*` glob → a LIKE pattern with `%`, `_` and `\` escaped (for `like $n escape '\'`). */
export function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

const USER_SCHEMAS = `n.nspname not in ('pg_catalog', 'information_schema')
  and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'`;

const KINDS: Record<string, SourceTable['kind']> = { r: 'table', p: 'partitioned_table', v: 'view', m: 'materialized_view', f: 'foreign_table' };

export async function listSchemas(source: DataSource, options: SessionOptions = {}): Promise<string[]> {
  const rows = await source.query<{ name: string }>(
    `select n.nspname as name from pg_catalog.pg_namespace n where ${USER_SCHEMAS} order by n.nspname collate "C"`,
    [],
    options,
  );
  return rows.map((r) => r.name);
}

export async function listTables(source: DataSource | DataSourceSession, filter: TableFilter = {}, options: SessionOptions = {}): Promise<SourceTable[]> {
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

/** The columns of one table in column order; empty when the table does not exist (or has no columns). */
export async function describeTable(source: DataSource | DataSourceSession, schema: string, table: string, options: SessionOptions = {}): Promise<SourceColumn[]> {
  const rows = await query<ColumnRow>(source, `${COLUMNS_SQL} and n.nspname = $1 and c.relname = $2 order by a.attnum`, [schema, table], options);
  return rows.map(toColumn);
}

/** The columns of every table the filter selects, in one query: `schema\0table` → columns. */
export async function describeTables(source: DataSource | DataSourceSession, filter: TableFilter = {}, options: SessionOptions = {}): Promise<Map<string, SourceColumn[]>> {
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

export function schemaTableKey(schema: string, table: string): string {
  return `${schema}\0${table}`;
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
