/**
 * Text sensors: lengths (characters), word counts and whitespace. Every value is read as `column::text`, so the
 * sensors also work on non-text columns. As in DQOps, "whitespace" is what PostgreSQL's `btrim` removes: the
 * space character only (a tab, a line break or a no-break space is text), and a word is what lies between spaces.
 */
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';
import { NULL_PLACEHOLDERS } from '../textPatterns.js';
import { columnAggregate, valueCount, valuePercent } from './shapes.js';

function length(ctx: ScanContext): string {
  return ctx.dialect.charLength(ctx.text);
}

function lengthParam(ctx: ScanContext, name: string): string {
  return ctx.bind(ctx.param(name), 'integer');
}

/**
 * Words: the spaces inside the trimmed text plus one (so two spaces in a row make an empty word, as in DQOps);
 * 0 for an empty or blank text.
 */
function wordCount(ctx: ScanContext): string {
  const trimmed = ctx.dialect.trimSpaces(ctx.text);
  const space = ctx.bind(' ', 'text');
  const none = ctx.bind('', 'text');
  const chars = (text: string) => ctx.dialect.charLength(text);
  return `(${chars(trimmed)} - ${chars(`replace(${trimmed}, ${space}, ${none})`)} + case when ${chars(trimmed)} > 0 then 1 else 0 end)`;
}

const empty = (ctx: ScanContext): string => `${ctx.text} = ${ctx.bind('', 'text')}`;
const whitespaceOnly = (ctx: ScanContext): string => `${ctx.text} <> ${ctx.bind('', 'text')} and ${ctx.dialect.trimSpaces(ctx.text)} = ${ctx.bind('', 'text')}`;
const placeholder = (ctx: ScanContext): string => ctx.dialect.inList(`lower(${ctx.text})`, ctx.bind(NULL_PLACEHOLDERS, 'text[]'));
const surrounded = (ctx: ScanContext): string => `${ctx.dialect.trimSpaces(ctx.text)} <> ${ctx.bind('', 'text')} and ${ctx.text} <> ${ctx.dialect.trimSpaces(ctx.text)}`;

export const TEXT_SENSORS: Record<string, SensorDefinition> = {
  'column/text/text_min_length': columnAggregate('Shortest text, in characters: `min(length(column::text))`.', (ctx) => `min(${length(ctx)})`),
  'column/text/text_max_length': columnAggregate('Longest text, in characters.', (ctx) => `max(${length(ctx)})`),
  'column/text/text_mean_length': columnAggregate('Average text length, in characters.', (ctx) => `avg(${length(ctx)})`),
  'column/text/min_word_count': columnAggregate('Fewest words in a text: spaces in the trimmed text + 1 (a blank text has 0; a double space adds a word).', (ctx) => `min(${wordCount(ctx)})`),
  'column/text/max_word_count': columnAggregate('Most words in a text (counted as for min_word_count).', (ctx) => `max(${wordCount(ctx)})`),
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
  'column/whitespace/whitespace_text_count': valueCount('Non-empty texts made only of spaces.', whitespaceOnly),
  'column/whitespace/whitespace_text_percent': valuePercent('Non-empty texts made only of spaces, percent of the non-NULL values.', whitespaceOnly, 0),
  'column/whitespace/null_placeholder_text_count': valueCount(
    `Texts that stand for a missing value (any case, not trimmed): ${NULL_PLACEHOLDERS.map((p) => (p === '' ? "`''` (empty)" : `\`${p}\``)).join(', ')}.`,
    placeholder,
  ),
  'column/whitespace/null_placeholder_text_percent': valuePercent('Null placeholder texts, percent of the non-NULL values.', placeholder, 0),
  'column/whitespace/text_surrounded_by_whitespace_count': valueCount('Texts that start or end with a space (and are not only spaces).', surrounded),
  'column/whitespace/text_surrounded_by_whitespace_percent': valuePercent('Texts surrounded by whitespace, percent of the non-NULL values.', surrounded, 0),
};
