/**
 * MySQL's and MariaDB's SQL (DQOps's `mysql` and `mariadb` providers). The data source opens every session with
 * `sql_mode` ANSI_QUOTES and PIPES_AS_CONCAT, so names are quoted with double quotes as on the other sources
 * (quoteIdent.ts) and `||` concatenates. What differs is here: there is no FILTER clause (an aggregate reads a
 * CASE instead), no `::` cast, no arrays (a bound list is expanded into `(?, ?, …)` by the driver), REGEXP
 * follows the column's collation (case-insensitive by default, so patterns open with `(?-i)`), and dates are
 * truncated and formatted with date_format. Placeholders are written `$n` like the others and turned into the
 * driver's `?` by the data source (mysqlDataSource.ts), outside string literals.
 */
import { quoteIdent } from '../sensors/quoteIdent.js';
import type { SqlDialect, SqlParameterType } from './dialect.js';

const TYPES: Record<SqlParameterType, string> = {
  text: 'char',
  'text[]': 'char',
  numeric: 'decimal(65,30)',
  'numeric[]': 'decimal(65,30)',
  'double precision': 'double',
  integer: 'signed',
  bigint: 'signed',
  boolean: 'signed',
  date: 'date',
  timestamptz: 'datetime(6)',
};

/** An instant as instantValue writes it: a DATETIME(6) literal's text. */
const INSTANT_VALUE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/** `fn(args)` or `fn(distinct args)`, the shape of every aggregate a sensor filters. */
const AGGREGATE_CALL = /^\s*([a-z_][a-z0-9_]*)\s*\(\s*(distinct\s+)?([\s\S]*)\)\s*$/i;

export const MYSQL: SqlDialect = {
  name: 'mysql',
  quoteIdent,
  // without NO_BACKSLASH_ESCAPES a backslash escapes in a literal: it is doubled, as a quote is
  literal: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
  sqlType: (type) => TYPES[type],
  placeholder: (index, type, value) => {
    // a list is expanded by the driver into `a, b, c`; the parentheses make it an IN list
    if (type.endsWith('[]')) return `($${index})`;
    if (type === 'boolean') return `$${index}`;
    // The driver writes every value into the statement: a text, a whole number or an instant (instantValue) it
    // writes as the literal the cast would make (a text in the connection's character set and collation), and a
    // literal is read once, where a constant cast in a per-row expression is evaluated on every row.
    if (type === 'text' && typeof value === 'string') return `$${index}`;
    if ((type === 'integer' || type === 'bigint') && Number.isSafeInteger(value)) return `$${index}`;
    if (type === 'timestamptz' && typeof value === 'string' && INSTANT_VALUE.test(value)) return `timestamp $${index}`;
    return `cast($${index} as ${TYPES[type]})`;
  },
  // the session's time zone is UTC; ISO 8601's `T` and `Z` would make MySQL truncate the text with a warning, on
  // every row where the cast sits in a per-row expression
  instantValue: (value) => `${value.toISOString().slice(0, 10)} ${value.toISOString().slice(11, 23)}000`,
  instantTypes: new Set(['timestamp']),
  statementUsesCores: false,
  toText: (expression) => `cast(${expression} as char)`,
  toDouble: (expression) => `cast(${expression} as double)`,
  exactNumeric: 'decimal(65,30)',
  regexContains: (text, pattern) => `(${text} regexp concat('(?-i)', ${pattern}))`,
  inList: (value, list) => `${value} in ${list}`,
  trimSpaces: (text) => `trim(both ' ' from ${text})`,
  truncate: (unit, expression) =>
    unit === 'day' ? `cast(date_format(${expression}, '%Y-%m-%d') as date)` : `cast(date_format(${expression}, '%Y-%m-01') as date)`,
  formatDay: (expression) => `date_format(${expression}, '%Y-%m-%d')`,
  months: (months) => `interval ${months} month`,
  secondsBetween: (later, earlier) => `(timestampdiff(microsecond, ${earlier}, ${later}) / 1000000.0)`,
  asTimestamp: (expression) => `cast(${expression} as datetime(6))`,
  // the session's time zone is UTC, so an instant is its UTC datetime
  asInstant: (expression) => `cast(${expression} as datetime(6))`,
  toDate: (expression) => `cast(${expression} as date)`,
  plusDays: (date, days) => `date_add(${date}, interval ${days} day)`,
  daysBetweenDates: (later, earlier) => `datediff(${later}, ${earlier})`,
  // MySQL's booleans are numbers
  asBoolean: (expression) => `(${expression} <> 0)`,
  // json_array tells a NULL from the text 'null' and quotes texts
  recordText: (expressions) => `json_array(${expressions.join(', ')})`,
  // length() counts bytes in MySQL
  charLength: (text) => `char_length(${text})`,
  textPosition: (text, part) => `locate(${part}, ${text})`,
  filtered: (call, condition) => {
    const match = AGGREGATE_CALL.exec(call);
    if (match === null) throw new Error(`MySQL has no FILTER clause and ${call} is not an aggregate call`);
    const [, fn, distinct = '', argument] = match;
    const value = argument!.trim() === '*' ? '1' : argument!;
    return `${fn}(${distinct}case when ${condition} then ${value} end)`;
  },
  // LIMIT takes a number, not an expression: the bound count stays a bare placeholder (the driver writes the number)
  limit: (count) => `limit ${count.replace(/^cast\((\$\d+) as signed\)$/, '$1')}`,
  describeColumns: ({ schema, table }, bind) =>
    [
      'select column_name as column_name, column_type as column_type, is_nullable = \'YES\' as nullable, ordinal_position as ordinal',
      'from information_schema.columns',
      `where table_schema = ${bind(schema, 'text')} and table_name = ${bind(table, 'text')}`,
      'order by ordinal_position',
    ].join('\n'),
};

/**
 * MySQL's dialect for one table whose text columns are known (`textColumns`: the column references, as the
 * sensors write them, of CHAR, VARCHAR and TEXT columns in utf8mb4, the session's character set): `toText` of
 * such a column relabels it with the session's `collation` (the same characters, compared as `cast(x as char)`
 * compares them) instead of converting it, which copies every value of every row (about a tenth of a merged
 * scan's CPU on MariaDB). Any other expression, or a column of another character set, keeps the cast.
 */
export function mysqlTableDialect(collation: string, textColumns: ReadonlySet<string>): SqlDialect {
  if (textColumns.size === 0) return MYSQL;
  return { ...MYSQL, toText: (expression, columnType) => (textColumns.has(expression) ? `(${expression} collate ${collation})` : MYSQL.toText(expression, columnType)) };
}
