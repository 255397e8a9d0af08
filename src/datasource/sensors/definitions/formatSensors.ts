/**
 * Format sensors: values that do (or do not) look like an e-mail address, a UUID, an IP address, a US phone
 * number or zip code, a date; texts parsable as numbers, booleans or dates; the detected data type of a text
 * column; date ranges. The patterns are dqctl's own (textPatterns.ts), bound as parameters.
 */
import { SensorBuildError, type ScanContext, type SensorDefinition } from '../sensorDefinition.js';
import { BOOLEAN_TEXTS, dateFormatPattern, EMAIL_LOCAL_MAX, integerPattern, namePatternOf, PARSABLE_DATE_PATTERNS, PATTERNS } from '../textPatterns.js';
import { matching, notMatching, valueCount, valuePercent } from './shapes.js';

function datePattern(ctx: ScanContext): string {
  const format = String(ctx.param('date_format'));
  const pattern = dateFormatPattern(ctx.dialect.name, format);
  if (pattern === undefined) throw new SensorBuildError(`unknown date_format ${JSON.stringify(format)}`);
  return pattern;
}

/**
 * A value later than the future limit. As DQOps: a `DATE` snapshot compares with today (the run's date in the
 * session's time zone) plus max_future_days rounded to whole days (PostgreSQL's numeric-to-integer cast rounds
 * half away from zero; DuckDB's day interval truncates toward zero); any other snapshot compares the value as a time with now plus max_future_days in whole
 * seconds. That limit is computed here and bound, not `now + interval` in SQL, which PostgreSQL would evaluate
 * per row.
 */
function futureValue(ctx: ScanContext): string {
  const days = Number(ctx.param('max_future_days'));
  const away = (value: number): number => Math.sign(value) * Math.round(Math.abs(value));
  const { dialect } = ctx;
  // DQOps's duckdb template adds INTERVAL (days) DAY, which DuckDB truncates toward zero
  const wholeDays = dialect.name === 'duckdb' ? Math.trunc(days) : away(days);
  if (ctx.columnType === 'DATE') return `${ctx.column} > ${dialect.asTimestamp(dialect.plusDays(dialect.toDate(ctx.now), ctx.bind(wholeDays, 'integer')))}`;
  return `${dialect.asInstant(ctx.column)} > ${ctx.bind(new Date(ctx.nowValue.getTime() + away(days * 86_400) * 1000), 'timestamptz')}`;
}

/**
 * A valid e-mail address (PATTERNS.email), written so that PostgreSQL need not count the local part's characters
 * in its regex engine: the pattern without the count, and the position of the `@` (textPatterns.ts).
 */
function validEmail(ctx: ScanContext): string {
  const at = ctx.dialect.textPosition(ctx.text, ctx.bind('@', 'text'));
  return `(${matching(ctx, PATTERNS.emailWithoutLocalLimit)} and ${at} <= ${ctx.bind(EMAIL_LOCAL_MAX + 1, 'integer')})`;
}

const anyMatches = (ctx: ScanContext, patterns: readonly string[]): string => patterns.map((pattern) => matching(ctx, pattern)).join(' or ');

/**
 * The data type all non-null texts share, as the code the rule `detected_datatype_equals` expects: 1 integers,
 * 2 numbers (an optional `.` or `,` fraction), 3 dates, 4 datetimes, 5 timestamps, 6 booleans, 7 texts (no value
 * is blank or of a type above), 8 mixed (and blank texts); NULL when there are no values. Values are not trimmed.
 */
function detectedDatatype(ctx: ScanContext): string {
  const n = ctx.countValues();
  const p = PATTERNS.detected;
  const all = (pattern: string): string => `${ctx.countValues(matching(ctx, pattern))} = ${n}`;
  const known = [p.integer, p.decimal, p.date, p.datetime, p.timestamp, p.boolean].map((pattern) => matching(ctx, pattern)).join(' or ');
  // Texts count as "texts" when they are of no known type and not blank (btrim: spaces only).
  const plainText = `not (${known}) and ${ctx.dialect.trimSpaces(ctx.text)} <> ${ctx.bind('', 'text')}`;
  return [
    'case',
    `    when ${n} = 0 then null`,
    `    when ${all(p.integer)} then 1`,
    `    when ${all(p.float)} then 2`,
    `    when ${all(p.date)} then 3`,
    `    when ${all(p.datetime)} then 4`,
    `    when ${all(p.timestamp)} then 5`,
    `    when ${all(p.boolean)} then 6`,
    `    when ${ctx.countValues(plainText)} = ${n} then 7`,
    '    else 8',
    '  end',
  ].join('\n');
}

export const FORMAT_SENSORS: Record<string, SensorDefinition> = {
  'column/patterns/text_not_matching_regex_count': valueCount('Values not matching the POSIX regular expression `regex` (`!~`); 0 for no values.', (ctx) => notMatching(ctx, String(ctx.param('regex'))), 0),
  'column/patterns/texts_not_matching_regex_percent': valuePercent(
    'Values not matching `regex`, percent of the non-NULL values (100 for none, as DQOps).',
    (ctx) => notMatching(ctx, String(ctx.param('regex'))),
    100,
    'meets',
  ),
  'column/patterns/invalid_email_format_count': valueCount('Values that are not an e-mail address (up to 64 characters @ a dotted domain whose last part has 2-4 letters).', (ctx) => `not ${validEmail(ctx)}`),
  'column/patterns/invalid_email_format_percent': valuePercent('Invalid e-mail addresses, percent of the non-NULL values.', (ctx) => `not ${validEmail(ctx)}`, 0),
  'column/patterns/invalid_uuid_format_count': valueCount('Values that are not a UUID (8-4-4-4-12 hex digits; each separator a dash, a whitespace or none).', (ctx) => notMatching(ctx, PATTERNS.uuid)),
  'column/patterns/invalid_uuid_format_percent': valuePercent('Invalid UUIDs, percent of the non-NULL values (100 for none, as DQOps).', (ctx) => notMatching(ctx, PATTERNS.uuid), 100, 'meets'),
  'column/patterns/invalid_ip4_address_format_count': valueCount('Values that are not a dotted IPv4 address (four 0-255 numbers; `01` allowed).', (ctx) => notMatching(ctx, PATTERNS.ip4)),
  'column/patterns/invalid_ip6_address_format_count': valueCount('Values that are not an IPv6 address (full, `::`-compressed, `fe80::…%zone`, IPv4-mapped or -embedded).', (ctx) => notMatching(ctx, PATTERNS.ip6)),
  'column/patterns/invalid_usa_phone_count': valueCount('Values that are not a US phone number (optional prefix 1, +1, 001, (1), (+1), (001); 3+3+4 digits, separators whitespace . -, area code optionally in parentheses).', (ctx) => notMatching(ctx, PATTERNS.usaPhone)),
  'column/patterns/invalid_usa_phone_percent': valuePercent('Invalid US phone numbers, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.usaPhone), 0),
  'column/patterns/invalid_usa_zipcode_count': valueCount('Values that are not a US zip code (12345 or 12345-6789).', (ctx) => notMatching(ctx, PATTERNS.usaZipcode)),
  'column/patterns/invalid_usa_zipcode_percent': valuePercent('Invalid US zip codes, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.usaZipcode), 0),
  'column/patterns/text_not_matching_date_pattern_count': valueCount(
    'Values not in the layout `date_format` (month 01-12, day 01-31; not checked against the calendar); 0 for no values.',
    (ctx) => notMatching(ctx, datePattern(ctx)),
    0,
  ),
  'column/patterns/text_not_matching_date_patterns_percent': valuePercent(
    'Values not in the layout `date_format`, percent of the non-NULL values (100 for none, as DQOps).',
    (ctx) => notMatching(ctx, datePattern(ctx)),
    100,
    'meets',
  ),
  'column/patterns/text_not_matching_name_pattern_percent': valuePercent(
    "Values that are not a name (on PostgreSQL only letters, spaces, dots, apostrophes and hyphens, '' is not; on DuckDB and MySQL two words or an initial and a word, as DQOps's templates there), percent of the non-NULL values (100 for none, as DQOps).",
    (ctx) => notMatching(ctx, namePatternOf(ctx.dialect.name)),
    100,
    'meets',
  ),

  'column/pii/contains_email_percent': valuePercent('Values containing an e-mail address between separators (start/end, space, tab, line break, `.,:;"\'`|`), percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.emailInText), 0),
  'column/pii/contains_usa_phone_percent': valuePercent('Values containing a US phone number (not inside a longer number), percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.usaPhoneInText), 0),
  'column/pii/contains_usa_zipcode_percent': valuePercent('Values containing a US zip code between separators, percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.usaZipcodeInText), 0),
  'column/pii/contains_ip4_percent': valuePercent('Values containing an IPv4 address between separators, percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.ip4InText), 0),
  'column/pii/contains_ip6_percent': valuePercent('Values containing an IPv6 address between separators (all eight groups, or groups around `::`), percent of the non-NULL values.', (ctx) => anyMatches(ctx, PATTERNS.ip6InText), 0),

  'column/conversions/text_parsable_to_boolean_percent': valuePercent(
    `Values that are ${BOOLEAN_TEXTS.map((t) => `\`${t}\``).join(', ')} (any case, not trimmed), percent of the non-NULL values (100 for none).`,
    (ctx) => ctx.dialect.inList(`lower(${ctx.text})`, ctx.bind(BOOLEAN_TEXTS, 'text[]')),
    100,
  ),
  'column/conversions/text_parsable_to_integer_percent': valuePercent('Values that are only digits (no sign, not trimmed), percent of the non-NULL values (100 for none).', (ctx) => matching(ctx, integerPattern(ctx.dialect.name)), 100),
  'column/conversions/text_parsable_to_float_percent': valuePercent(
    'Values that are digits with an optional dot, or a dot and digits (no sign, no exponent, not trimmed), percent of the non-NULL values (100 for none).',
    (ctx) => matching(ctx, PATTERNS.float),
    100,
  ),
  'column/conversions/text_parsable_to_date_percent': valuePercent(
    'Values that are a calendar date (day, month and year in any order with `/`, `-` or `.`, numeric or English three-letter month, 2- or 4-digit year, leap years checked), percent of the non-NULL values (100 for none).',
    (ctx) => ctx.dialect.parsesAsDate?.(ctx.text) ?? anyMatches(ctx, PARSABLE_DATE_PATTERNS),
    100,
  ),
  'column/datatype/string_datatype_detect': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Data type shared by all non-NULL texts, as a code: 1 integers, 2 numbers, 3 dates, 4 datetimes, 5 timestamps, 6 booleans, 7 texts (none blank), 8 mixed; NULL for no values.',
    build: detectedDatatype,
  },

  'column/datetime/date_in_range_percent': valuePercent(
    'Values whose date (`column::date`) is in [`min_date`, `max_date`], percent of the non-NULL values (0 for none, as DQOps).',
    (ctx) => `${ctx.dialect.toDate(ctx.column)} between ${ctx.bind(ctx.param('min_date'), 'date')} and ${ctx.bind(ctx.param('max_date'), 'date')}`,
    0,
    'fails',
  ),
  'column/datetime/date_values_in_future_percent': valuePercent(
    'Values later than now plus `max_future_days` days (`column::timestamptz`), percent of the non-NULL values; for a column whose type snapshot is `DATE` (upper case, as DQOps tests it), later than today plus `max_future_days` rounded to whole days.',
    futureValue,
    0,
  ),
  'column/datetime/text_match_date_format_percent': valuePercent(
    'Values in the layout `date_format`, percent of the non-NULL values (100 for none).',
    (ctx) => matching(ctx, datePattern(ctx)),
    100,
  ),
};
