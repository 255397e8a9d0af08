/**
 * Names JSON types and values the way a person editing YAML thinks of them: a mapping, a list, a string "abc".
 * Used in "expected integer, got string "abc"".
 */

const TYPE_NAMES: Record<string, string> = {
  object: 'mapping',
  array: 'list',
  string: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
};

/** `integer`, `mapping or null`, ... from ajv's `type` parameter (a name, a comma list or an array). */
export function describeExpectedType(type: unknown): string {
  const names = (Array.isArray(type) ? type.map(String) : String(type).split(',')).map((t) => TYPE_NAMES[t.trim()] ?? t.trim());
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** `string "abc"`, `integer 5`, `number 1.5`, `boolean true`, `null`, `list`, `mapping`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return `string ${quote(value)}`;
    case 'number':
      return `${Number.isInteger(value) ? 'integer' : 'number'} ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'object':
      return 'mapping';
    default:
      return typeof value;
  }
}

/** JSON-quoted and shortened, for messages. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
}

/** `"a", "b" or "c"` */
export function quoteList(values: readonly unknown[]): string {
  const quoted = values.map(quote);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}
