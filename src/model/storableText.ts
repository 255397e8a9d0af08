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

/** Where in a JSON value an unstorable string (key or value) or number sits: the path of keys and indexes. */
export interface UnstorableValue {
  path: Array<string | number>;
  /** The last segment of `path` is the offending key itself. */
  inKey: boolean;
  reason: UnstorableText['reason'] | 'a number JSON cannot hold (infinite or NaN)';
}

/**
 * Every string (key or value) of a JSON value holding unstorable text, and every number JSON cannot hold
 * (`.inf`, `.nan` in YAML, `1e999` in JSON parse to Infinity and NaN, which JSON.stringify silently turns into
 * null), in document order. Iterative, not recursive: a body or a document may be nested deeper than the call
 * stack.
 */
export function* unstorableValues(value: unknown): Generator<UnstorableValue> {
  // parent links instead of a path per value: the path is built only for a value reported
  interface Visit {
    value: unknown;
    key: string | number | null;
    parent: Visit | null;
  }
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
      if (found) yield { reason: found.reason, path: pathOf(visit), inKey: false };
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) yield { reason: 'a number JSON cannot hold (infinite or NaN)', path: pathOf(visit), inKey: false };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: visit });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      const children: Visit[] = [];
      for (const key of keys) {
        const child: Visit = { value: (current as Record<string, unknown>)[key], key, parent: visit };
        const found = findUnstorableText(key);
        if (found) yield { reason: found.reason, path: pathOf(child), inKey: true };
        else children.push(child);
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
}

export function findUnstorableValue(value: unknown): UnstorableValue | null {
  for (const found of unstorableValues(value)) return found;
  return null;
}

/** `/spec/labels/0` for messages. */
export function jsonPointer(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? '/' : path.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
