/**
 * Text PostgreSQL cannot store: a NUL character (text and jsonb refuse `\u0000`) and a lone UTF-16 surrogate
 * (`\ud800` without its pair is not a Unicode character; jsonb refuses its escape and UTF-8 cannot encode it).
 * Every way in (a request's path, query and JSON body; a repository's files and names) refuses such text before
 * it reaches SQL, so the database never answers it with an error that would surface as "internal error".
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface UnstorableText {
  /** Offset of the offending UTF-16 code unit in the string. */
  index: number;
  reason: 'a NUL character (\\u0000)' | 'a lone UTF-16 surrogate';
}

export function findUnstorableText(text: string): UnstorableText | null {
  const match = UNSTORABLE.exec(text);
  if (!match) return null;
  return { index: match.index, reason: match[0] === '\u0000' ? 'a NUL character (\\u0000)' : 'a lone UTF-16 surrogate' };
}

/** Where in a JSON value unstorable text sits: the path of keys and indexes (the last is the key itself when `inKey`). */
export interface UnstorableValue extends UnstorableText {
  path: Array<string | number>;
  inKey: boolean;
}

/**
 * The first string (key or value) of a JSON value holding unstorable text. Iterative, not recursive: a body or
 * a document may be nested deeper than the call stack.
 */
export function findUnstorableValue(value: unknown): UnstorableValue | null {
  // parent links instead of a path per value: the path is built only for the one value reported
  interface Visit { value: unknown; key: string | number | null; parent: Visit | null }
  const pathOf = (visit: Visit): Array<string | number> => {
    const path: Array<string | number> = [];
    for (let v: Visit | null = visit; v && v.key !== null; v = v.parent) path.push(v.key);
    return path.reverse();
  };
  const stack: Visit[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      const found = findUnstorableText(current);
      if (found) return { ...found, path: pathOf(visit), inKey: false };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: visit });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        const child: Visit = { value: (current as Record<string, unknown>)[key], key, parent: visit };
        const found = findUnstorableText(key);
        if (found) return { ...found, path: pathOf(child), inKey: true };
        stack.push(child);
      }
    }
  }
  return null;
}

/** `/spec/labels/0` for messages. */
export function jsonPointer(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? '/' : path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
