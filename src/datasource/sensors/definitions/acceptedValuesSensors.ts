/**
 * Accepted values: lists of expected values are bound as one array parameter (`= any($n::text[])`), never
 * spliced into the SQL. Texts compare exactly (case-sensitive) as `column::text`; numbers compare as numeric.
 */
import type { ScanContext, SensorDefinition, SubqueryContext } from '../sensorDefinition.js';
import { COUNTRY_CODES, CURRENCY_CODES } from '../textPatterns.js';
import { valuePercent } from './shapes.js';

/**
 * How many different values `expected_values` lists: the reference of the "in use" sensors (the rule's
 * max_missing counts expected values missing = this - found).
 */
function expectedCount(ctx: ScanContext | SubqueryContext, as: 'text' | 'number'): string {
  const values = ctx.param('expected_values');
  const list = Array.isArray(values) ? values : [];
  const distinct = new Set(list.filter((v) => v !== null).map((v) => (as === 'number' ? Number(v) : String(v))));
  return ctx.bind(distinct.size, 'integer');
}

const inTexts = (ctx: ScanContext): string => `${ctx.text} = any(${ctx.bind(ctx.param('expected_values'), 'text[]')})`;
const inNumbers = (ctx: ScanContext): string => `${ctx.column} = any(${ctx.bind(ctx.param('expected_values'), 'numeric[]')})`;

function topValues(ctx: SubqueryContext): string {
  const groups = ctx.source.groups;
  const groupSelect = groups.map((g) => `${g.select} as ${g.alias}`);
  const groupAliases = groups.map((g) => g.alias);
  const where = [...ctx.source.where, `${ctx.column} is not null`];
  if (ctx.checkFilter !== undefined) where.push(`(${ctx.checkFilter})`);
  const partitionBy = groupAliases.length > 0 ? `partition by ${groupAliases.join(', ')} ` : '';
  return [
    'with value_counts as (',
    `  select ${[...groupSelect, `${ctx.text} as value`, 'count(*) as value_count'].join(', ')}`,
    `  from ${ctx.source.from}`,
    `  where ${where.join('\n    and ')}`,
    `  group by ${[...groups.map((g) => g.expression), ctx.text].join(', ')}`,
    '), ranked_values as (',
    `  select value_counts.*, row_number() over (${partitionBy}order by value_count desc, value collate "C") as value_rank`,
    '  from value_counts',
    ')',
    `select ${[
      ...groupAliases,
      `count(*) filter (where value_rank <= ${ctx.bind(ctx.param('top'), 'bigint')} and value = any(${ctx.bind(ctx.param('expected_values'), 'text[]')})) as actual_value`,
      `${expectedCount(ctx, 'text')} as expected_value`,
    ].join(', ')}`,
    'from ranked_values',
    groupAliases.length > 0 ? `group by ${groupAliases.join(', ')}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

export const ACCEPTED_VALUES_SENSORS: Record<string, SensorDefinition> = {
  'column/accepted_values/text_found_in_set_percent': valuePercent('Values in `expected_values`, percent of the non-NULL values (100 for none).', inTexts, 100),
  'column/accepted_values/number_found_in_set_percent': valuePercent('Values in `expected_values` (numbers), percent of the non-NULL values (100 for none).', inNumbers, 100),
  'column/accepted_values/expected_text_values_in_use_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning:
      'How many of the `expected_values` occur in the column: `count(distinct column) filter (where column = any(expected))`; expected value: how many values the list holds.',
    build: (ctx) => ({ actual: ctx.aggregate(`count(distinct ${ctx.text})`, inTexts(ctx)), expected: expectedCount(ctx, 'text') }),
  },
  'column/accepted_values/expected_numbers_in_use_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'How many of the `expected_values` (numbers) occur in the column; expected value: how many values the list holds.',
    build: (ctx) => ({ actual: ctx.aggregate(`count(distinct ${ctx.column})`, inNumbers(ctx)), expected: expectedCount(ctx, 'number') }),
  },
  'column/accepted_values/expected_texts_in_top_values_count': {
    kind: 'subquery',
    needsColumn: true,
    meaning:
      'How many of the `expected_values` are among the `top` most frequent values (ties broken by the value in byte order, ascending); a query of its own (a count per value, then a rank); expected value: how many values the list holds.',
    build: topValues,
  },
  'column/accepted_values/text_valid_country_code_percent': valuePercent(
    'Values that are an ISO 3166-1 alpha-2 country code (upper case), percent of the non-NULL values (100 for none).',
    (ctx) => `${ctx.text} = any(${ctx.bind(COUNTRY_CODES, 'text[]')})`,
    100,
  ),
  'column/accepted_values/text_valid_currency_code_percent': valuePercent(
    'Values that are an ISO 4217 currency code (upper case), percent of the non-NULL values (100 for none).',
    (ctx) => `${ctx.text} = any(${ctx.bind(CURRENCY_CODES, 'text[]')})`,
    100,
  ),
};
