/**
 * The text filters of a policy target (and of the schema-level model filters): a comma-separated list of
 * names, each item trimmed, any item may match, case-sensitive, `*` matching any run of characters anywhere
 * in an item (`*`, `abc*`, `*abc`, `a*b`, `*abc*`). A filter with no non-empty item filters nothing.
 * Patterns are compiled once (exact names into a Set, wildcard items into one anchored RegExp) because
 * the same policy is tested against thousands of tables.
 */

export interface NamePattern {
  /** The filter as written, for messages. */
  readonly source: string;
  /** True when `value` matches one of the items. */
  matches(value: string): boolean;
  /** True when one of `values` matches one of the items. */
  matchesAny(values: readonly string[]): boolean;
}

/** Compiles a filter; undefined when it does not filter (absent, not a string, or only empty items). */
export function compileNamePattern(filter: unknown): NamePattern | undefined {
  if (typeof filter !== 'string') return undefined;
  const items = filter.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length === 0) return undefined;
  if (items.includes('*')) return matchEverything(filter);
  const exact = new Set<string>();
  const wildcards: string[] = [];
  for (const item of items) {
    if (item.includes('*')) wildcards.push(item.split('*').map(escapeRegExp).join('.*'));
    else exact.add(item);
  }
  const regex = wildcards.length === 0 ? undefined : new RegExp(`^(?:${wildcards.join('|')})$`, 's');
  const matches = regex === undefined
    ? (value: string) => exact.has(value)
    : (value: string) => exact.has(value) || regex.test(value);
  return {
    source: filter,
    matches,
    matchesAny: (values) => {
      for (const value of values) if (matches(value)) return true;
      return false;
    },
  };
}

function matchEverything(source: string): NamePattern {
  return { source, matches: () => true, matchesAny: (values) => values.length > 0 };
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.|?+()[\]{}]/g, '\\$&');
}
