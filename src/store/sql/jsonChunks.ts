import type { SqlQueryable } from './sqlClient.js';

/**
 * Bulk writes send their rows as ONE jsonb parameter per statement (`jsonb_to_recordset($1::text::jsonb)`): a
 * fixed, small statement whatever the number of rows. Parameters are kept at most MAX_CHUNK_BYTES so that no
 * single message grows without bound.
 */
export const MAX_CHUNK_BYTES = 2 * 1024 * 1024;

/** JSON arrays of already-serialized rows, each at most MAX_CHUNK_BYTES (or one row, if a row is larger). */
export function* chunksOfJson(rows: readonly string[]): Generator<string> {
  let chunk: string[] = [];
  let size = 0;
  for (const row of rows) {
    if (chunk.length > 0 && size + row.length > MAX_CHUNK_BYTES) {
      yield `[${chunk.join(',')}]`;
      chunk = [];
      size = 0;
    }
    chunk.push(row);
    size += row.length + 1;
  }
  if (chunk.length > 0) yield `[${chunk.join(',')}]`;
}

/** A column of a bulk insert: its name, its type in the recordset, and the SQL value used when a row has none. */
export type RecordColumn = readonly [name: string, type: string, whenMissing?: string];

/**
 * Inserts rows (objects keyed by column name; a missing or null key is NULL, or the column's `whenMissing`) into
 * `table` through jsonb_to_recordset, one statement per chunk. Table and column names are constants of the
 * callers, never input.
 */
export async function insertJsonRecords(sql: SqlQueryable, table: string, columns: readonly RecordColumn[], rows: readonly object[]): Promise<number> {
  const statement =
    `insert into ${table} (${columns.map(([name]) => name).join(', ')}) ` +
    `select ${columns.map(([name, , whenMissing]) => (whenMissing ? `coalesce(r.${name}, ${whenMissing})` : `r.${name}`)).join(', ')} ` +
    `from jsonb_to_recordset($1::text::jsonb) as r(${columns.map(([name, type]) => `${name} ${type}`).join(', ')})`;
  for (const chunk of chunksOfJson(rows.map((row) => JSON.stringify(row)))) await sql.query(statement, [chunk]);
  return rows.length;
}
