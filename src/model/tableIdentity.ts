/**
 * A table's identity, and the one way to turn it into the name of its object in the store and back. The name
 * is DQOps's `connection/schema.table`: the schema ends at the first dot after the slash (DQOps splits table
 * file names the same way, so a schema name holds no dot), and the table name may hold anything. A connection
 * name may hold a `/` (a folder `sources/a%2Fb`), so in the key its `%` and `/` are percent-encoded: every key
 * then splits at its first `/`, and a name without those characters keys exactly as it reads.
 */
export interface TableIdentity {
  readonly connection: string;
  readonly schema: string;
  readonly table: string;
}

function encodeConnection(connection: string): string {
  return connection.replace(/[%/]/g, (ch) => (ch === '%' ? '%25' : '%2F'));
}

function decodeConnection(encoded: string): string {
  return encoded.replace(/%2F|%25/gi, (escape) => (escape.toUpperCase() === '%2F' ? '/' : '%'));
}

export function tableKey(table: TableIdentity): string {
  return `${encodeConnection(table.connection)}/${table.schema}.${table.table}`;
}

/** The common start of the keys of a connection's tables (of one schema, when given): a store list prefix. */
export function tableKeyPrefix(connection: string, schema?: string): string {
  return schema === undefined ? `${encodeConnection(connection)}/` : `${encodeConnection(connection)}/${schema}.`;
}

/** The identity of a table key; undefined for a string that is not one. */
export function parseTableKey(key: string): TableIdentity | undefined {
  const slash = key.indexOf('/');
  if (slash <= 0) return undefined;
  const dot = key.indexOf('.', slash + 1);
  if (dot < 0) return undefined;
  return { connection: decodeConnection(key.slice(0, slash)), schema: key.slice(slash + 1, dot), table: key.slice(dot + 1) };
}

export function sameTable(a: TableIdentity, b: TableIdentity): boolean {
  return a.connection === b.connection && a.schema === b.schema && a.table === b.table;
}
