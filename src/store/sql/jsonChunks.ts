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
