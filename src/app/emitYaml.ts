import { Document, visit, type ToStringOptions } from 'yaml';
import type { Ordered } from './orderBySchema.js';

/**
 * YAML for exported files, written by the `yaml` package's Document API: block style, two-space indents, keys
 * in the order given (Maps), no line folding, so the same value always gives the same bytes. `updateYamlDocument`
 * writes into an existing file's Document with the same options, so an adopted file keeps its comments and layout.
 *
 * On top of the library's own quoting, a string is double-quoted when some reader would take it plain for
 * something else: YAML 1.1 readers (DQOps's SnakeYAML among them) read `yes`, `on`, `0755`, `1:20` or
 * `2025-03-04` as booleans, numbers and dates, though YAML 1.2 reads them as strings.
 */
export const YAML_OUTPUT: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: true,
  blockQuote: 'literal',
  defaultStringType: 'PLAIN',
  defaultKeyType: 'PLAIN',
  doubleQuotedAsJSON: false,
  nullStr: 'null',
  trueStr: 'true',
  falseStr: 'false',
};

export function emitYaml(value: Ordered): string {
  const doc = new Document(value, { version: '1.2', keepSourceTokens: false });
  quoteAmbiguousStrings(doc);
  return doc.toString(YAML_OUTPUT);
}

/** Marks the strings of a Document that a YAML 1.1 or 1.2 reader could read as another type to be double-quoted. */
export function quoteAmbiguousStrings(doc: Document.Parsed | Document): void {
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || node.type === 'QUOTE_SINGLE') return;
      if (isAmbiguous(node.value) || (node.value.includes('\n') && !literalBlockFits(node.value))) node.type = 'QUOTE_DOUBLE';
    },
  });
}

/** Plain scalars that some reader would read as something other than this string. */
const TYPED = [/^(y|yes|n|no|true|false|on|off|null|~)$/i, /^[+.]?[0-9]/, /^[-+]?\.(inf|nan)$/i, /^=$/, /^<<$/];

function isAmbiguous(text: string): boolean {
  return TYPED.some((re) => re.test(text));
}

/** Characters YAML does not allow unescaped (beyond the C0 controls). */
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;

/**
 * A literal block keeps a multi-line string exactly only when it has no character that needs escaping (tabs and
 * CRs included), does not start with a space or a line break, and has no line of spaces only (read back as
 * indentation); otherwise the string is double-quoted.
 */
function literalBlockFits(text: string): boolean {
  if (NEEDS_ESCAPE.test(text) || text.includes('\t') || text.includes('\r')) return false;
  if (text.startsWith(' ') || text.startsWith('\n')) return false;
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .every((line) => !/^ +$/.test(line));
}
