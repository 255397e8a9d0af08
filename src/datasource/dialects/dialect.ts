/**
 * What differs between the SQL of two data sources, in one place per concern: quoting names and literals, the
 * types of bound values, texts and doubles, regular expressions, list membership, trimming, date truncation and
 * formatting, month arithmetic and row limits. Sensor definitions, the merged scan and the other queries ask the
 * dialect of their request for these and write everything else in the SQL both engines share (aggregates with
 * FILTER, CASE, casts to standard types). A new kind of source is a new dialect, not a new engine.
 */
export type DialectName = 'postgresql' | 'duckdb' | 'mysql';

/** The types of bound values, as sensors name them (the dialect names them in its SQL). */
export type SqlParameterType =
  | 'text'
  | 'text[]'
  | 'numeric'
  | 'numeric[]'
  | 'double precision'
  | 'integer'
  | 'bigint'
  | 'boolean'
  | 'date'
  | 'timestamptz';

/** Binds a value and returns its placeholder. */
export type Bind = (value: unknown, type: SqlParameterType) => string;

export interface SqlDialect {
  readonly name: DialectName;
  /** A schema, table or column name, always quoted (see quoteIdent.ts). */
  quoteIdent(name: string): string;
  /** A string literal, for the few places a value cannot be bound (a table function's file paths and options). */
  literal(value: string): string;
  /** The SQL type of a bound parameter type. */
  sqlType(type: SqlParameterType): string;
  /**
   * The placeholder of the `index`-th (1-based) bound value, with its type; `value` is the value bound there (as
   * SqlParameters holds it), for a dialect whose driver writes values into the statement (MySQL).
   */
  placeholder(index: number, type: SqlParameterType, value?: unknown): string;
  /**
   * The value bound for an instant (a Date), as the source reads it without a warning; absent: ISO 8601 in UTC
   * (`2025-01-01T00:00:00.000Z`), which PostgreSQL and DuckDB read as a timestamptz.
   */
  instantValue?(value: Date): string;
  /**
   * The column types (lower-case, as the source's catalog names them) whose values are instants, points in time
   * (DQOps's `instant`): PostgreSQL's and DuckDB's `timestamptz`, MySQL's `timestamp` (stored in UTC and shown in
   * the session's zone, which dqctl's sessions set to UTC). A `timestamp` elsewhere, or MySQL's `datetime`, is a
   * local date and time.
   */
  readonly instantTypes: ReadonlySet<string>;
  /**
   * Whether the engine spreads one statement over several cores (PostgreSQL's parallel query, DuckDB's threads).
   * Where it does not (MySQL, MariaDB), a table's queries that cannot share its scan run beside the scan on free
   * sessions of the connection (runTableChecks).
   */
  readonly statementUsesCores: boolean;
  /** A value as text, as the source displays it; `columnType` is the type snapshot when known. */
  toText(expression: string, columnType?: string): string;
  /** A value as a double (every sensor readout). */
  toDouble(expression: string): string;
  /** The exact numeric type used for ratios (`numeric` on PostgreSQL). */
  readonly exactNumeric: string;
  /** True when `text` contains a match of the regular expression `pattern` (both SQL). */
  regexContains(text: string, pattern: string): string;
  /** True when `value` equals an element of the bound list `list`. */
  inList(value: string, list: string): string;
  /** The text without leading and trailing spaces (the space character only). */
  trimSpaces(text: string): string;
  /** The start of the day or month of a date or time. */
  truncate(unit: 'day' | 'month', expression: string): string;
  /** A date or time as `YYYY-MM-DD` text. */
  formatDay(expression: string): string;
  /** An interval of `months` (SQL of an integer) months. */
  months(months: string): string;
  /** Seconds from `earlier` to `later` (two times of the same kind), as a number. */
  secondsBetween(later: string, earlier: string): string;
  /** A value read as a timestamp without time zone. */
  asTimestamp(expression: string): string;
  /** A value read as an instant (a timestamp with time zone; MySQL's session is UTC, so a datetime). */
  asInstant(expression: string): string;
  /** A value read as a date. */
  toDate(expression: string): string;
  /** A date plus `days` (SQL of an integer) days, a date. */
  plusDays(date: string, days: string): string;
  /** Whole days from the date `earlier` to the date `later`, an integer. */
  daysBetweenDates(later: string, earlier: string): string;
  /** A value read as a boolean (a number: not zero). */
  asBoolean(expression: string): string;
  /**
   * True when a text parses as a calendar date, where the dialect has its own test (DuckDB: its regular
   * expressions have no back-references); absent: the patterns of textPatterns.ts.
   */
  parsesAsDate?(text: string): string;
  /** A record of values as one text that tells NULLs and values apart (to group or compare records). */
  recordText(expressions: readonly string[]): string;
  /** The length of a text in characters. */
  charLength(text: string): string;
  /** The 1-based position of the first `part` in `text` (both SQL), 0 when it is not in it. */
  textPosition(text: string, part: string): string;
  /** An aggregate call (`count(*)`, `sum(x)`, `count(distinct x)`) over only the rows meeting `condition`. */
  filtered(call: string, condition: string): string;
  /** The clause limiting a query to `count` (SQL of an integer) rows. */
  limit(count: string): string;
  /**
   * The columns of a table from the source's catalog, one row each in their order: `column_name`, `column_type`
   * (as the source writes it), `nullable` (boolean), `ordinal`. No row when the table does not exist.
   */
  describeColumns(target: { schema: string; table: string; relation: string }, bind: Bind): string;
}
