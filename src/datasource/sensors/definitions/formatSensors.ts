/**
 * Format sensors: values that do (or do not) look like an e-mail address, a UUID, an IP address, a US phone
 * number or zip code, a date; texts parsable as numbers, booleans or dates; the detected data type of a text
 * column; date ranges. The patterns are dqctl's own (textPatterns.ts), bound as parameters.
 */
import { SensorBuildError, type ScanContext, type SensorDefinition } from '../sensorDefinition.js';
import { BOOLEAN_TEXTS, BOOLEAN_WORDS, DATE_FORMAT_PATTERNS, PATTERNS } from '../textPatterns.js';
import { matching, notMatching, valueCount, valuePercent } from './shapes.js';

function datePattern(ctx: ScanContext): string {
  const format = String(ctx.param('date_format'));
  const pattern = DATE_FORMAT_PATTERNS[format];
  if (pattern === undefined) throw new SensorBuildError(`unknown date_format ${JSON.stringify(format)}`);
  return pattern;
}

const trimmed = (ctx: ScanContext): string => `btrim(${ctx.text})`;
const trimmedMatches = (ctx: ScanContext, pattern: string): string => `${trimmed(ctx)} ~ ${ctx.bind(pattern, 'text')}`;

/**
 * The data type all non-null texts share, as the code the rule `detected_datatype_equals` expects: 1 integers,
 * 2 floats (numbers, some with a fraction or exponent), 3 dates, 4 datetimes (no time zone), 5 timestamps (with
 * a zone), 6 booleans, 7 texts (none of the above), 8 mixed; NULL when there are no values.
 */
function detectedDatatype(ctx: ScanContext): string {
  const n = ctx.countValues();
  const integer = trimmedMatches(ctx, PATTERNS.integer);
  const float = trimmedMatches(ctx, PATTERNS.float);
  const date = trimmedMatches(ctx, PATTERNS.date);
  const datetime = trimmedMatches(ctx, PATTERNS.datetime);
  const timestamp = trimmedMatches(ctx, PATTERNS.timestamp);
  const boolean = `lower(${trimmed(ctx)}) = any(${ctx.bind(BOOLEAN_WORDS, 'text[]')})`;
  const all = (condition: string): string => `${ctx.countValues(condition)} = ${n}`;
  return [
    'case',
    `    when ${n} = 0 then null`,
    `    when ${all(integer)} then 1`,
    `    when ${all(float)} then 2`,
    `    when ${all(date)} then 3`,
    `    when ${all(datetime)} then 4`,
    `    when ${all(timestamp)} then 5`,
    `    when ${all(boolean)} then 6`,
    `    when ${ctx.countValues(`${float} or ${date} or ${datetime} or ${timestamp} or ${boolean}`)} = 0 then 7`,
    '    else 8',
    '  end',
  ].join('\n');
}

export const FORMAT_SENSORS: Record<string, SensorDefinition> = {
  'column/patterns/text_not_matching_regex_count': valueCount('Values not matching the POSIX regular expression `regex` (`!~`).', (ctx) => notMatching(ctx, String(ctx.param('regex')))),
  'column/patterns/texts_not_matching_regex_percent': valuePercent(
    'Values not matching `regex`, percent of the non-NULL values.',
    (ctx) => notMatching(ctx, String(ctx.param('regex'))),
    0,
  ),
  'column/patterns/invalid_email_format_count': valueCount('Values that are not an e-mail address (local part @ dotted domain with a 2+ letter top level).', (ctx) => notMatching(ctx, PATTERNS.email)),
  'column/patterns/invalid_email_format_percent': valuePercent('Invalid e-mail addresses, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.email), 0),
  'column/patterns/invalid_uuid_format_count': valueCount('Values that are not a UUID (8-4-4-4-12 hex digits).', (ctx) => notMatching(ctx, PATTERNS.uuid)),
  'column/patterns/invalid_uuid_format_percent': valuePercent('Invalid UUIDs, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.uuid), 0),
  'column/patterns/invalid_ip4_address_format_count': valueCount('Values that are not a dotted IPv4 address (four 0-255 numbers).', (ctx) => notMatching(ctx, PATTERNS.ip4)),
  'column/patterns/invalid_ip6_address_format_count': valueCount('Values that are not an IPv6 address (full or `::`-compressed; no embedded IPv4).', (ctx) => notMatching(ctx, PATTERNS.ip6)),
  'column/patterns/invalid_usa_phone_count': valueCount('Values that are not a US phone number (optional +1, area code with or without parentheses, separators space . -).', (ctx) => notMatching(ctx, PATTERNS.usaPhone)),
  'column/patterns/invalid_usa_phone_percent': valuePercent('Invalid US phone numbers, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.usaPhone), 0),
  'column/patterns/invalid_usa_zipcode_count': valueCount('Values that are not a US zip code (12345 or 12345-6789).', (ctx) => notMatching(ctx, PATTERNS.usaZipcode)),
  'column/patterns/invalid_usa_zipcode_percent': valuePercent('Invalid US zip codes, percent of the non-NULL values.', (ctx) => notMatching(ctx, PATTERNS.usaZipcode), 0),
  'column/patterns/text_not_matching_date_pattern_count': valueCount('Values not in the layout `date_format` (month 01-12, day 01-31; not checked against the calendar).', (ctx) => notMatching(ctx, datePattern(ctx))),
  'column/patterns/text_not_matching_date_patterns_percent': valuePercent('Values not in the layout `date_format`, percent of the non-NULL values.', (ctx) => notMatching(ctx, datePattern(ctx)), 0),
  'column/patterns/text_not_matching_name_pattern_percent': valuePercent(
    "Values that are not a name (words of letters joined by single spaces, hyphens or apostrophes), percent of the non-NULL values.",
    (ctx) => notMatching(ctx, PATTERNS.name),
    0,
  ),

  'column/pii/contains_email_percent': valuePercent('Values containing an e-mail address anywhere, percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.emailInText), 0),
  'column/pii/contains_usa_phone_percent': valuePercent('Values containing a US phone number (not inside a longer number), percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.usaPhoneInText), 0),
  'column/pii/contains_usa_zipcode_percent': valuePercent('Values containing a US zip code (not inside a longer number), percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.usaZipcodeInText), 0),
  'column/pii/contains_ip4_percent': valuePercent('Values containing an IPv4 address, percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.ip4InText), 0),
  'column/pii/contains_ip6_percent': valuePercent('Values containing an IPv6 address (all eight groups, or groups on both sides of `::`), percent of the non-NULL values.', (ctx) => matching(ctx, PATTERNS.ip6InText), 0),

  'column/conversions/text_parsable_to_boolean_percent': valuePercent(
    `Trimmed values that are ${BOOLEAN_TEXTS.map((t) => `\`${t}\``).join(', ')} (any case), percent of the non-NULL values (100 for none).`,
    (ctx) => `lower(${trimmed(ctx)}) = any(${ctx.bind(BOOLEAN_TEXTS, 'text[]')})`,
    100,
  ),
  'column/conversions/text_parsable_to_integer_percent': valuePercent('Trimmed values that are an integer (`[+-]digits`), percent of the non-NULL values (100 for none).', (ctx) => trimmedMatches(ctx, PATTERNS.integer), 100),
  'column/conversions/text_parsable_to_float_percent': valuePercent('Trimmed values that are a decimal number (optional fraction and exponent), percent of the non-NULL values (100 for none).', (ctx) => trimmedMatches(ctx, PATTERNS.float), 100),
  'column/conversions/text_parsable_to_date_percent': valuePercent(
    'Trimmed values in a numeric date layout (YYYY-MM-DD, YYYY/MM/DD, YYYY.MM.DD, DD-MM-YYYY, DD/MM/YYYY, DD.MM.YYYY, MM/DD/YYYY), percent of the non-NULL values (100 for none).',
    (ctx) => trimmedMatches(ctx, PATTERNS.date),
    100,
  ),
  'column/datatype/string_datatype_detect': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Data type shared by all non-NULL texts, as a code: 1 integers, 2 floats, 3 dates, 4 datetimes, 5 timestamps (with zone), 6 booleans, 7 texts, 8 mixed; NULL for no values.',
    build: detectedDatatype,
  },

  'column/datetime/date_in_range_percent': valuePercent(
    'Values whose date (`column::date`) is in [`min_date`, `max_date`], percent of the non-NULL values (100 for none).',
    (ctx) => `(${ctx.column})::date between ${ctx.bind(ctx.param('min_date'), 'date')} and ${ctx.bind(ctx.param('max_date'), 'date')}`,
    100,
  ),
  'column/datetime/date_values_in_future_percent': valuePercent(
    'Values later than now plus `max_future_days` days (`column::timestamptz`), percent of the non-NULL values.',
    // The limit is computed here and bound, not `now + interval` in SQL, which PostgreSQL would evaluate per row.
    (ctx) => `(${ctx.column})::timestamptz > ${ctx.bind(new Date(ctx.nowValue.getTime() + Number(ctx.param('max_future_days')) * 86_400_000), 'timestamptz')}`,
    0,
  ),
  'column/datetime/text_match_date_format_percent': valuePercent(
    'Values in the layout `date_format`, percent of the non-NULL values (100 for none).',
    (ctx) => matching(ctx, datePattern(ctx)),
    100,
  ),
};
