/**
 * DQOps's rule for merging rendered sensor queries: a query splits into the part up to its `SELECT` line, the
 * lines up to the one holding `actual_value`, those up to the one holding `expected_value` (optional), and the
 * rest. Queries whose first and last parts are the same (after whitespace) read the same rows in the same
 * groups and can run as one SELECT with several value columns. A query that does not split so (no `SELECT`
 * line, the alias used more than once, expected before actual) runs alone.
 */
export interface QueryFragments {
  prefix: string;
  actual: string;
  expected?: string;
  suffix: string;
  /** The parts outside the values, whitespace collapsed: equal keys merge. */
  staticKey: string;
}

const ACTUAL = 'actual_value';
const EXPECTED = 'expected_value';

function occurrences(text: string, word: string): number {
  return text.split(word).length - 1;
}

export function queryFragments(sql: string): QueryFragments | undefined {
  if (occurrences(sql, ACTUAL) !== 1 || occurrences(sql, EXPECTED) > 1) return undefined;
  const lines = sql.split(/\r?\n/);
  const select = lines.findIndex((line) => line.trim() === 'SELECT');
  if (select < 0) return undefined;
  const lastHaving = (word: string) => {
    for (let i = lines.length - 1; i > select; i--) if (lines[i].includes(word)) return i;
    return -1;
  };
  const actualAt = lastHaving(ACTUAL);
  const expectedAt = lastHaving(EXPECTED);
  if (actualAt < 0 || (expectedAt >= 0 && expectedAt < actualAt)) return undefined;
  const join = (from: number, to: number) => lines.slice(from, to).join('\n');
  const end = expectedAt >= 0 ? expectedAt + 1 : actualAt + 1;
  const prefix = join(0, select + 1);
  const suffix = join(end, lines.length);
  return {
    prefix,
    actual: join(select + 1, actualAt + 1),
    ...(expectedAt >= 0 ? { expected: join(actualAt + 1, expectedAt + 1) } : {}),
    suffix,
    staticKey: `${collapse(prefix)}\u0000${collapse(suffix)}`,
  };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A value fragment without its alias and trailing comma: the expression alone, or undefined when it is not one. */
export function valueExpression(fragment: string, alias: string): string | undefined {
  const match = new RegExp(`^([\\s\\S]*?)\\s+AS\\s+${alias}\\s*,?\\s*$`, 'i').exec(fragment);
  const expression = match?.[1].trim();
  return expression === undefined || expression === '' || /^,/.test(expression) ? undefined : expression;
}

/** The fragment with its alias renamed and without a trailing comma, to be listed with others. */
export function renamedFragment(fragment: string, alias: string, renamed: string): string {
  return fragment.replace(new RegExp(`\\b${alias}\\b`), renamed).replace(/,\s*$/, '');
}
