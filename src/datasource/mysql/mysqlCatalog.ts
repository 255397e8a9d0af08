/**
 * MySQL's and MariaDB's catalog (information_schema) as dqctl's import and statistics read it: a schema is a
 * database (the system ones left out), tables and views, and each column with DQOps's type snapshot: MySQL's
 * `data_type` (`varchar`, `int`, `datetime`, as DQOps's JDBC import records it) with its length, precision and
 * scale, and its position in the primary key. Statements use the session's ANSI_QUOTES (mysqlDataSource.ts).
 */
import { likePattern, schemaTableKey, type CatalogRun, type SourceCatalog, type SourceColumn, type SourceTable, type TableColumns, type TableFilter } from '../sourceCatalog.js';

const SYSTEM_SCHEMAS = "('mysql', 'information_schema', 'performance_schema', 'sys')";

/** pg_type's categories of MySQL's types: what the statistics and error samples ask of a column. */
const CATEGORIES: Record<string, string> = {
  tinyint: 'N', smallint: 'N', mediumint: 'N', int: 'N', integer: 'N', bigint: 'N', decimal: 'N', numeric: 'N', float: 'N', double: 'N', real: 'N',
  char: 'S', varchar: 'S', tinytext: 'S', text: 'S', mediumtext: 'S', longtext: 'S', enum: 'S', set: 'S',
  date: 'D', datetime: 'D', timestamp: 'D', time: 'D', year: 'D',
  bit: 'B', boolean: 'B',
};

/** The schema and table conditions of a filter, with their bound values from `first` on. */
function filterSql(filter: TableFilter, schemaColumn: string, tableColumn: string, first: number): { sql: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (filter.schema !== undefined) {
    values.push(likePattern(filter.schema));
    // a backslash escapes in MySQL's literals: '\\' is one backslash, LIKE's escape character
    conditions.push(`${schemaColumn} like $${first + values.length - 1} escape '\\\\'`);
  }
  if (filter.tableContains !== undefined) {
    values.push(filter.tableContains);
    conditions.push(`instr(${tableColumn}, $${first + values.length - 1}) > 0`);
  }
  if (filter.table !== undefined) {
    values.push(filter.table);
    conditions.push(`${tableColumn} = $${first + values.length - 1}`);
  }
  return { sql: conditions.map((c) => `\n  and ${c}`).join(''), values };
}

export const MYSQL_CATALOG: SourceCatalog = {
  async listSchemas(run: CatalogRun): Promise<string[]> {
    const rows = await run<{ name: string }>(`select schema_name as name from information_schema.schemata where schema_name not in ${SYSTEM_SCHEMAS} order by binary schema_name`, []);
    return rows.map((row) => String(row.name));
  },

  async listTables(run: CatalogRun, filter: TableFilter): Promise<SourceTable[]> {
    const where = filterSql(filter, 'table_schema', 'table_name', 1);
    const rows = await run<{ schema: string; table: string; kind: string }>(
      `select table_schema as "schema", table_name as "table", table_type as kind
from information_schema.tables
where table_schema not in ${SYSTEM_SCHEMAS}${where.sql}
order by binary table_schema, binary table_name`,
      where.values,
    );
    return rows.map((row) => ({ schema: String(row.schema), table: String(row.table), kind: /view/i.test(String(row.kind)) ? 'view' : 'table' }));
  },

  async describeTables(run: CatalogRun, filter: TableFilter): Promise<Map<string, TableColumns>> {
    const where = filterSql(filter, 'c.table_schema', 'c.table_name', 1);
    const rows = await run<Record<string, unknown>>(
      `select c.table_schema as "schema", c.table_name as "table", c.column_name as name, c.ordinal_position as ordinal,
  c.data_type as data_type, c.is_nullable = 'YES' as nullable, c.character_maximum_length as length,
  c.numeric_precision as "precision", c.numeric_scale as scale, k.ordinal_position as pk_position
from information_schema.columns as c
  left join information_schema.key_column_usage as k
    on k.table_schema = c.table_schema and k.table_name = c.table_name and k.column_name = c.column_name and k.constraint_name = 'PRIMARY'
where c.table_schema not in ${SYSTEM_SCHEMAS}${where.sql}
order by binary c.table_schema, binary c.table_name, c.ordinal_position`,
      where.values,
    );
    const byTable = new Map<string, TableColumns>();
    for (const row of rows) {
      const key = schemaTableKey(String(row.schema), String(row.table));
      let columns = byTable.get(key) as SourceColumn[] | undefined;
      if (columns === undefined) byTable.set(key, (columns = []));
      const type = String(row.data_type).toLowerCase();
      const number = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
      const category = CATEGORIES[type] ?? 'U';
      columns.push({
        name: String(row.name),
        ordinal: Number(row.ordinal),
        columnType: type,
        baseType: type,
        typeCategory: category,
        nullable: Number(row.nullable) === 1 || row.nullable === true,
        length: category === 'S' ? number(row.length) : null,
        precision: type === 'decimal' || type === 'numeric' ? number(row.precision) : null,
        scale: type === 'decimal' || type === 'numeric' ? number(row.scale) : null,
        primaryKeyPosition: number(row.pk_position),
      });
    }
    return byTable;
  },
};
