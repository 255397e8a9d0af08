/**
 * DuckDB's SQL. DuckDB reads PostgreSQL's syntax for most of what sensors write (FILTER, `::` casts,
 * percentile_cont … WITHIN GROUP, extract(epoch …)); what differs is here: `numeric` is DECIMAL(18,3) in DuckDB,
 * so exact numbers and numeric parameters are DOUBLE; `~` is a full match, so a regex that may match anywhere is
 * regexp_matches (RE2 syntax: no back-references, `[[:alpha:]]` is ASCII); lists are DuckDB lists; there is no
 * btrim, to_char or make_interval.
 */
import { quoteIdent } from '../sensors/quoteIdent.js';
import type { SqlDialect, SqlParameterType } from './dialect.js';

const TYPES: Record<SqlParameterType, string> = {
  text: 'VARCHAR',
  'text[]': 'VARCHAR[]',
  numeric: 'DOUBLE',
  'numeric[]': 'DOUBLE[]',
  'double precision': 'DOUBLE',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamptz: 'TIMESTAMPTZ',
};

/** The strptime layouts of a date written as text (besides what a timestamp cast reads). */
const DATE_LAYOUTS = ['%d/%m/%Y', '%d-%m-%Y', '%m-%d-%Y', '%m/%d/%Y', '%Y/%m/%d', '%b %-d, %Y'];

export const DUCKDB: SqlDialect = {
  name: 'duckdb',
  quoteIdent,
  // standard strings: a quote is doubled, a backslash is a backslash
  literal: (value) => `'${value.replaceAll("'", "''")}'`,
  sqlType: (type) => TYPES[type],
  placeholder: (index, type) => `$${index}::${TYPES[type]}`,
  instantTypes: new Set(['timestamptz']),
  statementUsesCores: true,
  toText: (expression) => `CAST(${expression} AS VARCHAR)`,
  toDouble: (expression) => `CAST(${expression} AS DOUBLE)`,
  exactNumeric: 'DOUBLE',
  regexContains: (text, pattern) => `regexp_matches(${text}, ${pattern})`,
  inList: (value, list) => `list_contains(${list}, ${value})`,
  // DuckDB's trim() removes spaces and no-break spaces (not tabs or line breaks), as DQOps's duckdb templates read it
  trimSpaces: (text) => `trim(${text})`,
  truncate: (unit, expression) => `date_trunc('${unit}', ${expression})`,
  formatDay: (expression) => `strftime(${expression}, '%Y-%m-%d')`,
  months: (months) => `to_months(${months})`,
  secondsBetween: (later, earlier) => `extract(epoch from (${later} - ${earlier}))`,
  asTimestamp: (expression) => `(${expression})::timestamp`,
  asInstant: (expression) => `CAST(${expression} AS TIMESTAMPTZ)`,
  toDate: (expression) => `CAST(${expression} AS DATE)`,
  plusDays: (date, days) => `${date} + ${days}`,
  daysBetweenDates: (later, earlier) => `(${later} - ${earlier})`,
  asBoolean: (expression) => `CAST(${expression} AS BOOLEAN)`,
  recordText: (expressions) => `CAST(row(${expressions.join(', ')}) AS VARCHAR)`,
  // as DQOps's duckdb template: a timestamp DuckDB reads, or one of the day-month-year layouts
  parsesAsDate: (text) =>
    `(${[`try_cast(${text} AS TIMESTAMP) is not null`, ...DATE_LAYOUTS.map((layout) => `try_strptime(${text}, '${layout}') is not null`)].join(' or ')})`,
  charLength: (text) => `length(${text})`,
  textPosition: (text, part) => `strpos(${text}, ${part})`,
  filtered: (call, condition) => `${call} filter (where ${condition})`,
  limit: (count) => `limit ${count}`,
  // the columns of whatever the relation reads (a file set's columns as DuckDB detects them; every one nullable)
  describeColumns: ({ relation }) =>
    `select column_name, column_type, "null" = 'YES' as nullable, row_number() over () as ordinal from (describe select * from ${relation})`,
};
