/** PostgreSQL's SQL: the dialect every existing sensor query was written in (its text must not change). */
import { quoteIdent } from '../sensors/quoteIdent.js';
import type { SqlDialect } from './dialect.js';

export const POSTGRESQL: SqlDialect = {
  name: 'postgresql',
  quoteIdent,
  literal: (value) => `'${value.replaceAll("'", "''")}'`,
  sqlType: (type) => type,
  placeholder: (index, type) => `$${index}::${type}`,
  instantTypes: new Set(['timestamptz']),
  statementUsesCores: true,
  // inet's cast to text appends the netmask (`10.1.2.3/32`); abbrev() gives it as PostgreSQL displays it
  toText: (expression, columnType) => (columnType?.trim().toLowerCase() === 'inet' ? `abbrev(${expression})` : `(${expression})::text`),
  toDouble: (expression) => `(${expression})::double precision`,
  exactNumeric: 'numeric',
  regexContains: (text, pattern) => `${text} ~ ${pattern}`,
  inList: (value, list) => `${value} = any(${list})`,
  trimSpaces: (text) => `btrim(${text})`,
  truncate: (unit, expression) => `date_trunc('${unit}', ${expression})`,
  formatDay: (expression) => `to_char(${expression}, 'YYYY-MM-DD')`,
  months: (months) => `make_interval(months => ${months})`,
  secondsBetween: (later, earlier) => `extract(epoch from (${later} - ${earlier}))`,
  asTimestamp: (expression) => `(${expression})::timestamp`,
  asInstant: (expression) => `(${expression})::timestamptz`,
  toDate: (expression) => `(${expression})::date`,
  plusDays: (date, days) => `${date} + ${days}`,
  daysBetweenDates: (later, earlier) => `(${later} - ${earlier})`,
  asBoolean: (expression) => `(${expression})::boolean`,
  recordText: (expressions) => `row(${expressions.join(', ')})::text`,
  charLength: (text) => `length(${text})`,
  textPosition: (text, part) => `strpos(${text}, ${part})`,
  filtered: (call, condition) => `${call} filter (where ${condition})`,
  limit: (count) => `limit ${count}`,
  // tables, partitioned tables, views, materialized views, foreign tables
  describeColumns: ({ schema, table }, bind) =>
    [
      'select attribute.attname as column_name, format_type(attribute.atttypid, attribute.atttypmod) as column_type,',
      '  not attribute.attnotnull as nullable, attribute.attnum as ordinal',
      'from pg_catalog.pg_class as relation',
      '  join pg_catalog.pg_namespace as namespace on namespace.oid = relation.relnamespace',
      '  left join pg_catalog.pg_attribute as attribute',
      '    on attribute.attrelid = relation.oid and attribute.attnum > 0 and not attribute.attisdropped',
      `where namespace.nspname = ${bind(schema, 'text')}`,
      `  and relation.relname = ${bind(table, 'text')}`,
      `  and relation.relkind::text = any(${bind(['r', 'p', 'v', 'm', 'f'], 'text[]')})`,
      'order by attribute.attnum',
    ].join('\n'),
};
