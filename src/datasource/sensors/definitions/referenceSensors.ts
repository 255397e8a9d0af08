/**
 * Sensors that read a second table of the same data source: referential integrity (a LEFT JOIN to the distinct
 * keys of the foreign table with how often each occurs, so the scan keeps one row per analyzed row yet can weigh
 * a row as DQOps's plain LEFT JOIN does, once per matching foreign row) and accuracy (an aggregate of this
 * table as the actual value, the same aggregate of the reference table, as a scalar subquery, as the expected
 * value; the rule compares the two). Table names in parameters: `table` (same schema) or `schema.table`.
 */
import { quoteIdent } from '../quoteIdent.js';
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';
import { whenRows } from './shapes.js';

/**
 * DQOps's foreign_key_match_percent over its LEFT JOIN: every joined row counts (a value matching k foreign rows
 * counts k times, an unmatched or NULL value once) and passes unless its value is not NULL and unmatched; NULL on
 * no rows.
 */
function foreignKeyMatchPercent(ctx: ScanContext): string {
  const alias = foreignKeyAlias(ctx);
  const weight = `coalesce(${alias}.copies, 1)`;
  const passing = ctx.aggregate(`sum(case when ${alias}.foreign_key is null and ${ctx.column} is not null then 0 else ${weight} end)`);
  return `100.0 * ${passing} / ${ctx.aggregate(`sum(${weight})`)}`;
}

function foreignKeyAlias(ctx: ScanContext): string {
  const table = ctx.tableRef(String(ctx.param('foreign_table')));
  const column = quoteIdent(String(ctx.param('foreign_column')));
  return ctx.leftJoin(
    `select ${column} as foreign_key, count(*) as copies from ${table} where ${column} is not null group by ${column}`,
    (alias) => `${alias}.foreign_key = ${ctx.column}`,
  );
}

function accuracy(meaning: string, aggregate: (column: string) => string): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn: true,
    meaning,
    build: (ctx) => {
      const reference = ctx.tableRef(String(ctx.param('referenced_table')));
      const referenceColumn = `reference_table.${quoteIdent(String(ctx.param('referenced_column')))}`;
      return {
        actual: ctx.aggregate(aggregate(ctx.column)),
        expected: `(select ${aggregate(referenceColumn)} from ${reference} as reference_table)`,
      };
    },
  };
}

export const REFERENCE_SENSORS: Record<string, SensorDefinition> = {
  'column/integrity/foreign_key_not_match_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Non-NULL values not found in `foreign_table`.`foreign_column` (LEFT JOIN to its distinct non-NULL keys); NULL for no rows.',
    build: (ctx) => whenRows(ctx, ctx.countValues(`${foreignKeyAlias(ctx)}.foreign_key is null`), null),
    failingRows: (ctx) => `${ctx.column} is not null and ${foreignKeyAlias(ctx)}.foreign_key is null`,
  },
  'column/integrity/foreign_key_match_percent': {
    kind: 'aggregate',
    needsColumn: true,
    meaning:
      'Rows whose value is NULL or found in `foreign_table`.`foreign_column`, percent of the rows, a row counted once per matching foreign row as in DQOps\'s LEFT JOIN (NULL for no rows).',
    build: foreignKeyMatchPercent,
    failingRows: (ctx) => `${ctx.column} is not null and ${foreignKeyAlias(ctx)}.foreign_key is null`,
  },
  'column/accuracy/total_sum_match_percent': accuracy('Actual: `sum(column)`; expected: `sum(referenced_column)` of `referenced_table`.', (c) => `sum(${c})`),
  'column/accuracy/total_min_match_percent': accuracy('Actual: `min(column)`; expected: the same on the reference.', (c) => `min(${c})`),
  'column/accuracy/total_max_match_percent': accuracy('Actual: `max(column)`; expected: the same on the reference.', (c) => `max(${c})`),
  'column/accuracy/total_average_match_percent': accuracy('Actual: `avg(column)`; expected: the same on the reference.', (c) => `avg(${c})`),
  'column/accuracy/total_not_null_count_match_percent': accuracy('Actual: `count(column)`; expected: the same on the reference.', (c) => `count(${c})`),
  'table/accuracy/total_row_count_match_percent': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Actual: `count(*)`; expected: `count(*)` of `referenced_table`.',
    build: (ctx) => ({
      actual: ctx.count(),
      expected: `(select count(*) from ${ctx.tableRef(String(ctx.param('referenced_table')))} as reference_table)`,
    }),
  },
};
