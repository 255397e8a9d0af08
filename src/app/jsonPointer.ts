/** A JSON pointer (RFC 6901) to a place in a request body, as the 400 answers locate their violations. */
export function jsonPointer(path: readonly (string | number)[]): string {
  return path.length === 0 ? '/' : path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
