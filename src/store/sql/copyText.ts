/**
 * A value as a field of COPY's text format: backslash, tab, newline and carriage return escaped, NULL as `\N`.
 * (JSON text never holds a raw tab, newline or carriage return, only backslashes.)
 */
export function copyTextField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  const text = String(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : text;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Rows (already in COPY's text format, each ending with a newline) joined into pieces of about `pieceBytes`. */
export function* copyPieces(rows: Iterable<string>, pieceBytes: number): Generator<string> {
  let piece: string[] = [];
  let size = 0;
  for (const row of rows) {
    piece.push(row);
    size += row.length;
    if (size >= pieceBytes) {
      yield piece.join('');
      piece = [];
      size = 0;
    }
  }
  if (piece.length > 0) yield piece.join('');
}
