/**
 * The category of a PostgreSQL column type, as the `data_type_category` target of a column policy names it.
 * The type is read from `type_snapshot.column_type` as the import wrote it: any case, with or without type
 * modifiers (`varchar(255)`, `numeric(10,2)`, `timestamp(3) with time zone`).
 *
 * PostgreSQL has no separate "datetime" type, so `datetime_datetime` is never produced: both `timestamp` and
 * `timestamptz` are `datetime_timestamp` (a policy for timestamps should reach both).
 * `clob` is never produced either: PostgreSQL's `text` is an ordinary text type.
 */

export const DATA_TYPE_CATEGORIES = [
  'numeric_integer', 'numeric_decimal', 'numeric_float', 'datetime_timestamp', 'datetime_datetime', 'datetime_date',
  'datetime_time', 'text', 'clob', 'json', 'bool', 'binary', 'array', 'other',
] as const;

export type DataTypeCategory = (typeof DATA_TYPE_CATEGORIES)[number];

const CATEGORY_OF_TYPE: ReadonlyMap<string, DataTypeCategory> = new Map<string, DataTypeCategory>([
  ...names('numeric_integer', 'int2', 'int4', 'int8', 'int', 'smallint', 'integer', 'bigint',
    'serial', 'serial2', 'serial4', 'serial8', 'smallserial', 'bigserial'),
  ...names('numeric_decimal', 'numeric', 'decimal', 'money'),
  ...names('numeric_float', 'real', 'float', 'float4', 'float8', 'double precision'),
  ...names('datetime_timestamp', 'timestamp', 'timestamptz', 'timestamp with time zone', 'timestamp without time zone'),
  ...names('datetime_date', 'date'),
  ...names('datetime_time', 'time', 'timetz', 'time with time zone', 'time without time zone'),
  ...names('text', 'text', 'varchar', 'character varying', 'char', 'character', 'bpchar', 'name', 'uuid', 'citext'),
  ...names('json', 'json', 'jsonb'),
  ...names('bool', 'bool', 'boolean'),
  ...names('binary', 'bytea'),
]);

function names(category: DataTypeCategory, ...types: string[]): [string, DataTypeCategory][] {
  return types.map((type) => [type, category]);
}

/** The category of a column type; `other` for unknown types, undefined when the column has no type. */
export function dataTypeCategoryOf(columnType: string | null | undefined): DataTypeCategory | undefined {
  if (typeof columnType !== 'string') return undefined;
  let type = columnType.trim().toLowerCase();
  if (type === '') return undefined;
  // `integer[]`, `varchar(20)[]`, `int4[][]`, and the internal names of array types (`_int4`).
  if (type.endsWith(']') || type.startsWith('_')) return 'array';
  // Type modifiers may sit before a suffix (`timestamp(3) with time zone`); drop them wherever they are.
  type = type.replace(/\([^)]*\)/g, ' ').replace(/\s+/g, ' ').trim();
  // A schema-qualified name (`pg_catalog.int4`, `public.citext`) is categorized by its last part.
  const dot = type.lastIndexOf('.');
  if (dot >= 0 && !type.includes(' ')) type = type.slice(dot + 1);
  return CATEGORY_OF_TYPE.get(type) ?? 'other';
}
