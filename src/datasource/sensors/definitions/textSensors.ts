/**
 * Text sensors: lengths (characters), word counts and whitespace. Every value is read as `column::text`, so the
 * sensors also work on non-text columns. "Whitespace" is the POSIX class [[:space:]] (spaces, tabs, line breaks).
 */
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';
import { NULL_PLACEHOLDERS, PATTERNS } from '../textPatterns.js';
import { columnAggregate, valueCount, valuePercent } from './shapes.js';

function length(ctx: ScanContext): string {
  return `length(${ctx.text})`;
}

function lengthParam(ctx: ScanContext, name: string): string {
  return ctx.bind(ctx.param(name), 'integer');
}

/** Words: runs of non-whitespace characters; 0 for an empty or blank text. */
function wordCount(ctx: ScanContext): string {
  return `cardinality(array_remove(regexp_split_to_array(${ctx.text}, ${ctx.bind(PATTERNS.whitespaceRun, 'text')}), ${ctx.bind('', 'text')}))`;
}

const empty = (ctx: ScanContext): string => `${ctx.text} = ${ctx.bind('', 'text')}`;
const whitespaceOnly = (ctx: ScanContext): string => `${ctx.text} <> ${ctx.bind('', 'text')} and ${ctx.text} ~ ${ctx.bind(PATTERNS.blank, 'text')}`;
const placeholder = (ctx: ScanContext): string => `lower(btrim(${ctx.text})) = any(${ctx.bind(NULL_PLACEHOLDERS, 'text[]')})`;
const surrounded = (ctx: ScanContext): string =>
  `${ctx.text} ~ ${ctx.bind(PATTERNS.surroundedByWhitespace, 'text')} and ${ctx.text} !~ ${ctx.bind(PATTERNS.blank, 'text')}`;

export const TEXT_SENSORS: Record<string, SensorDefinition> = {
  'column/text/text_min_length': columnAggregate('Shortest text, in characters: `min(length(column::text))`.', (ctx) => `min(${length(ctx)})`),
  'column/text/text_max_length': columnAggregate('Longest text, in characters.', (ctx) => `max(${length(ctx)})`),
  'column/text/text_mean_length': columnAggregate('Average text length, in characters.', (ctx) => `avg(${length(ctx)})`),
  'column/text/min_word_count': columnAggregate('Fewest words in a text (words: runs of non-whitespace; a blank text has 0).', (ctx) => `min(${wordCount(ctx)})`),
  'column/text/max_word_count': columnAggregate('Most words in a text.', (ctx) => `max(${wordCount(ctx)})`),
  'column/text/text_length_below_min_length_count': valueCount('Texts shorter than `min_length` characters.', (ctx) => `${length(ctx)} < ${lengthParam(ctx, 'min_length')}`),
  'column/text/text_length_below_min_length_percent': valuePercent(
    'Texts shorter than `min_length`, percent of the non-NULL values.',
    (ctx) => `${length(ctx)} < ${lengthParam(ctx, 'min_length')}`,
    0,
  ),
  'column/text/text_length_above_max_length_count': valueCount('Texts longer than `max_length` characters.', (ctx) => `${length(ctx)} > ${lengthParam(ctx, 'max_length')}`),
  'column/text/text_length_above_max_length_percent': valuePercent(
    'Texts longer than `max_length`, percent of the non-NULL values.',
    (ctx) => `${length(ctx)} > ${lengthParam(ctx, 'max_length')}`,
    0,
  ),
  'column/text/text_length_in_range_percent': valuePercent(
    'Texts of `min_length` to `max_length` characters (inclusive), percent of the non-NULL values (100 for none).',
    (ctx) => `${length(ctx)} between ${lengthParam(ctx, 'min_length')} and ${lengthParam(ctx, 'max_length')}`,
    100,
  ),

  'column/whitespace/empty_text_count': valueCount("Empty texts ('').", empty),
  'column/whitespace/empty_text_percent': valuePercent("Empty texts (''), percent of the non-NULL values.", empty, 0),
  'column/whitespace/whitespace_text_count': valueCount('Non-empty texts made only of whitespace.', whitespaceOnly),
  'column/whitespace/whitespace_text_percent': valuePercent('Non-empty texts made only of whitespace, percent of the non-NULL values.', whitespaceOnly, 0),
  'column/whitespace/null_placeholder_text_count': valueCount(
    `Texts that stand for a missing value (trimmed, any case): ${NULL_PLACEHOLDERS.map((p) => `\`${p}\``).join(', ')}.`,
    placeholder,
  ),
  'column/whitespace/null_placeholder_text_percent': valuePercent('Null placeholder texts, percent of the non-NULL values.', placeholder, 0),
  'column/whitespace/text_surrounded_by_whitespace_count': valueCount('Texts that start or end with whitespace (and are not only whitespace).', surrounded),
  'column/whitespace/text_surrounded_by_whitespace_percent': valuePercent('Texts surrounded by whitespace, percent of the non-NULL values.', surrounded, 0),
};
