/**
 * DQOps's name patterns of its list filters (`filter` of GET …/tables, the `connection`/`schema`/`table` filters of
 * its searches): the rules of DQOps's StringPatternComparer, reproduced because clients written against DQOps
 * rely on them, quirks included.
 *
 * - no `*`: the whole name, ignoring case;
 * - `*text*` (exactly two stars, first and last): contains `text`, ignoring case;
 * - `*text`: ends with `text`; `text*`: starts with `text`; `pre*post`: starts with `pre` and ends with `post`
 *   (only the first star is a wildcard there: any further star is matched as a character);
 * - a name shorter than the pattern without its star(s) never matches.
 *
 * Case is ignored throughout (Java's regionMatches with ignoreCase, compared here with toLowerCase, which agrees
 * on every name a table or column can have in a DQOps home).
 */

export function isSearchPattern(pattern: string): boolean {
  return pattern.includes('*');
}

export function matchesSearchPattern(text: string, pattern: string): boolean {
  const firstStar = pattern.indexOf('*');
  if (firstStar < 0) return text.toLowerCase() === pattern.toLowerCase();
  let stars = 0;
  for (const char of pattern) if (char === '*') stars++;
  if (text.length < pattern.length - (stars === 2 ? 2 : 1)) return false;
  const lowerText = text.toLowerCase();
  const lowerPattern = pattern.toLowerCase();
  if (stars === 2 && firstStar === 0 && pattern.lastIndexOf('*') === pattern.length - 1) {
    return pattern.length === 2 || lowerText.includes(lowerPattern.slice(1, -1));
  }
  if (firstStar === 0) return lowerText.endsWith(lowerPattern.slice(1));
  if (firstStar === pattern.length - 1) return lowerText.startsWith(lowerPattern.slice(0, -1));
  return lowerText.startsWith(lowerPattern.slice(0, firstStar)) && lowerText.endsWith(lowerPattern.slice(firstStar + 1));
}

/**
 * A name part as DQOps reads it from a `schema.table` filter: one pair of quoting characters around it (`"x"`,
 * `'x'`, `` `x` ``, `[x]`) is dropped, as in SQL.
 */
export function withoutQuotes(name: string): string {
  if (name.length === 0) return name;
  const quoting = (c: string) => c === '[' || c === ']' || c === "'" || c === '"' || c === '`';
  const first = name[0];
  const last = name[name.length - 1];
  if (!quoting(first) || !quoting(last)) return name;
  if (first === '[' ? last !== ']' : first !== last) return name;
  return name.slice(1, -1);
}
