/**
 * Accepted values: lists of expected values are bound as one array parameter (`= any($n::text[])`), never
 * spliced into the SQL. Texts compare exactly (case-sensitive) as `column::text`; numbers compare as numeric.
 */
import type { ScanContext, SensorDefinition, SubqueryContext } from '../sensorDefinition.js';
import { COUNTRY_CODES, CURRENCY_CODES } from '../textPatterns.js';
import { valuePercent, whenRows } from './shapes.js';

/**
 * How many values `expected_values` lists (a repeated value counts twice, as in DQOps): the reference of the
 * "in use" sensors (the rule's max_missing counts expected values missing = this - found).
 */
function expectedCount(ctx: ScanContext | SubqueryContext): string {
  const values = ctx.param('expected_values');
  return ctx.bind(Array.isArray(values) ? values.length : 0, 'integer');
}

/** An "in use" count: NULL (actual and expected) when there are no rows, as DQOps. */
function inUse(ctx: ScanContext, distinctCall: string, condition: string): { actual: string; expected: string } {
  return { actual: whenRows(ctx, ctx.aggregate(distinctCall, condition), null), expected: whenRows(ctx, expectedCount(ctx), null) };
}

const inTexts = (ctx: ScanContext): string => ctx.dialect.inList(ctx.text, ctx.bind(ctx.param('expected_values'), 'text[]'));
const inNumbers = (ctx: ScanContext): string => ctx.dialect.inList(ctx.column, ctx.bind(ctx.param('expected_values'), 'numeric[]'));

/**
 * Values in `expected_values`, percent of the non-NULL values (100 for none). An empty list measures nothing:
 * 0 when there are rows, NULL when there are none (DQOps's `MAX(0.0)` over the rows), whatever the values.
 */
function foundInSetPercent(meaning: string, condition: (ctx: ScanContext) => string): SensorDefinition {
  return {
    ...valuePercent(meaning, condition, 100),
    kind: 'aggregate',
    build: (ctx: ScanContext) => {
      const expected = ctx.param('expected_values');
      if (Array.isArray(expected) && expected.length === 0) return whenRows(ctx, ctx.bind(0, 'double precision'), null);
      return ctx.percent(ctx.countValues(condition(ctx)), ctx.countValues(), 100);
    },
  };
}

function topValues(ctx: SubqueryContext): string {
  const groups = ctx.source.groups;
  const groupSelect = groups.map((g) => `${g.select} as ${g.alias}`);
  const groupAliases = groups.map((g) => g.alias);
  const where = [...ctx.source.where, `${ctx.column} is not null`];
  if (ctx.checkFilter !== undefined) where.push(`(${ctx.checkFilter})`);
  const partitionBy = groupAliases.length > 0 ? `partition by ${groupAliases.join(', ')} ` : '';
  const expected = ctx.param('expected_values');
  if (!Array.isArray(expected) || expected.length === 0) {
    // Nothing expected: no actual value; the expected count 0 on every group that has rows (as DQOps).
    const rowsWhere = [...ctx.source.where, ...(ctx.checkFilter === undefined ? [] : [`(${ctx.checkFilter})`])];
    return [
      `select ${[...groupSelect, `${ctx.dialect.toDouble('null')} as actual_value`, `max(${ctx.bind(0, 'integer')}) as expected_value`].join(', ')}`,
      `from ${ctx.source.from}`,
      rowsWhere.length > 0 ? `where ${rowsWhere.join('\n  and ')}` : '',
      groups.length > 0 ? `group by ${groups.map((g) => g.expression).join(', ')}` : '',
    ]
      .filter((line) => line !== '')
      .join('\n');
  }
  return [
    'with value_counts as (',
    `  select ${[...groupSelect, `${ctx.text} as value`, 'count(*) as value_count'].join(', ')}`,
    `  from ${ctx.source.from}`,
    `  where ${where.join('\n    and ')}`,
    `  group by ${[...groups.map((g) => g.expression), ctx.text].join(', ')}`,
    '), ranked_values as (',
    `  select value_counts.*, rank() over (${partitionBy}order by value_count desc) as value_rank`,
    '  from value_counts',
    ')',
    `select ${[
      ...groupAliases,
      `${ctx.dialect.filtered('count(*)', `value_rank <= ${ctx.bind(ctx.param('top'), 'bigint')} and ${ctx.dialect.inList('value', ctx.bind(ctx.param('expected_values'), 'text[]'))}`)} as actual_value`,
      // max(): no row at all (no non-NULL value) gives NULL, as DQOps's MAX(list length) over no rows.
      `max(${expectedCount(ctx)}) as expected_value`,
    ].join(', ')}`,
    'from ranked_values',
    groupAliases.length > 0 ? `group by ${groupAliases.join(', ')}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

export const ACCEPTED_VALUES_SENSORS: Record<string, SensorDefinition> = {
  'column/accepted_values/text_found_in_set_percent': foundInSetPercent(
    'Values in `expected_values`, percent of the non-NULL values (100 for none); with an empty list 0 (NULL for no rows).',
    inTexts,
  ),
  'column/accepted_values/number_found_in_set_percent': foundInSetPercent(
    'Values in `expected_values` (numbers), percent of the non-NULL values (100 for none); with an empty list 0 (NULL for no rows).',
    inNumbers,
  ),
  'column/accepted_values/expected_text_values_in_use_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning:
      'How many of the `expected_values` occur in the column: `count(distinct column) filter (where column = any(expected))`; expected value: how many values the list holds; both NULL for no rows.',
    build: (ctx) => inUse(ctx, `count(distinct ${ctx.text})`, inTexts(ctx)),
  },
  'column/accepted_values/expected_numbers_in_use_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'How many of the `expected_values` (numbers) occur in the column; expected value: how many values the list holds; both NULL for no rows.',
    build: (ctx) => inUse(ctx, `count(distinct ${ctx.column})`, inNumbers(ctx)),
  },
  'column/accepted_values/expected_texts_in_top_values_count': {
    kind: 'subquery',
    needsColumn: true,
    meaning:
      'How many of the `expected_values` are among the values whose frequency rank (`rank()`: tied values share a rank, so more than `top` values may qualify) is at most `top`; a query of its own; expected value: how many values the list holds (NULL when the column has no non-NULL value; actual NULL, expected 0 for an empty list).',
    build: topValues,
  },
  'column/accepted_values/text_valid_country_code_percent': valuePercent(
    'Values that are a country code (ISO 3166-1 alpha-2 as DQOps lists them, any case, not trimmed), percent of the non-NULL values (100 for none).',
    (ctx) => ctx.dialect.inList(`upper(${ctx.text})`, ctx.bind(COUNTRY_CODES, 'text[]')),
    100,
  ),
  'column/accepted_values/text_valid_currency_code_percent': valuePercent(
    'Values that are a currency code or sign (ISO 4217 and local signs as DQOps lists them, any case, not trimmed), percent of the non-NULL values (100 for none).',
    (ctx) => ctx.dialect.inList(`upper(${ctx.text})`, ctx.bind(CURRENCY_CODES, 'text[]')),
    100,
  ),
};
