/**
 * Shapes shared by many sensor definitions: a count of the values meeting a condition, and the share of the
 * values (or rows) meeting it. Conventions (see docs/sensors.md): value-level sensors measure non-null values
 * only (nulls are the nulls sensors' business); a percent whose denominator is 0 answers `empty`: 0 when the
 * condition describes a problem, 100 when it describes a valid value.
 *
 * What a sensor answers on no input follows DQOps's definition of that sensor, not one rule: a count written as a
 * sum in DQOps is NULL when there are no rows (`noRows: null`), one written as a count is 0; some shares of
 * problems answer 100 on no values. So each definition states its empty answer, and separately which rows fail.
 *
 * Error samples: the failing rows of a count are the rows it counts; of a share, the rows meeting the condition
 * when it describes a problem (`failing: 'meets'`), the values NOT meeting it when it describes a valid value
 * (`failing: 'fails'`); by default derived from `empty` (0: a problem, 100: a valid value); a share with
 * `empty` null has no failing side and is not sampled.
 */
import type { FailingRowsContext, ScanContext, SensorDefinition } from '../sensorDefinition.js';

type Condition = (ctx: ScanContext) => string;

/** A non-null value of the column meeting the condition. */
function valueMeets(ctx: FailingRowsContext, condition: Condition): string {
  return `${ctx.column} is not null and (${condition(ctx)})`;
}

/** A non-null value of the column not meeting the condition (false or unknown). */
function valueFails(ctx: FailingRowsContext, condition: Condition): string {
  return `${ctx.column} is not null and (${condition(ctx)}) is not true`;
}

/** `count` when the analyzed rows (after the check's filter) are not empty, else `noRows` (DQOps's SUM of nothing). */
export function whenRows(ctx: ScanContext, count: string, noRows: 0 | null): string {
  return noRows === 0 ? count : `case when ${ctx.count()} = 0 then null else ${count} end`;
}

/** Non-null values of the column meeting the condition; `noRows` on a table (or group) without rows. */
export function valueCount(meaning: string, condition: Condition, noRows: 0 | null = null): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn: true,
    meaning,
    build: (ctx) => whenRows(ctx, ctx.countValues(condition(ctx)), noRows),
    failingRows: (ctx) => valueMeets(ctx, condition),
  };
}

/** Share (percent) of the non-null values meeting the condition; `empty` when there are no non-null values. */
export function valuePercent(meaning: string, condition: Condition, empty: 0 | 100 | null, failing: 'meets' | 'fails' | 'none' = empty === null ? 'none' : empty === 0 ? 'meets' : 'fails'): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn: true,
    meaning,
    build: (ctx) => ctx.percent(ctx.countValues(condition(ctx)), ctx.countValues(), empty),
    ...(failing === 'none' ? {} : { failingRows: (ctx: FailingRowsContext) => (failing === 'meets' ? valueMeets(ctx, condition) : valueFails(ctx, condition)) }),
  };
}

/**
 * Rows meeting the condition (table or column sensors whose condition is about the whole row); its failing rows
 * are the rows it counts unless `failing` says otherwise.
 */
export function rowCount(meaning: string, needsColumn: boolean, condition: Condition, failing: Condition = condition): SensorDefinition {
  return { kind: 'aggregate', needsColumn, meaning, build: (ctx) => ctx.count(condition(ctx)), failingRows: (ctx) => failing(ctx) };
}

/** Share (percent) of the rows meeting the condition. */
export function rowPercent(meaning: string, needsColumn: boolean, condition: Condition, empty: 0 | 100 | null): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn,
    meaning,
    build: (ctx) => ctx.percent(ctx.count(condition(ctx)), ctx.count(), empty),
    ...(empty === null ? {} : { failingRows: (ctx: FailingRowsContext) => (empty === 0 ? condition(ctx) : `(${condition(ctx)}) is not true`) }),
  };
}

/** A plain aggregate of the column, e.g. `min`, `avg`. */
export function columnAggregate(meaning: string, call: (ctx: ScanContext) => string): SensorDefinition {
  return { kind: 'aggregate', needsColumn: true, meaning, build: (ctx) => ctx.aggregate(call(ctx)) };
}

/** `not (text ~ pattern)` (in the dialect): a non-null value that does not match. */
export function notMatching(ctx: ScanContext, pattern: string): string {
  return `not (${ctx.dialect.regexContains(ctx.text, ctx.bind(pattern, 'text'))})`;
}

export function matching(ctx: ScanContext, pattern: string): string {
  return ctx.dialect.regexContains(ctx.text, ctx.bind(pattern, 'text'));
}

/**
 * A number a column is compared with: a whole number as bigint, any other as numeric; both compare exactly with
 * integer and decimal columns (and in double precision with float columns), as DQOps's literal would. A whole
 * number bound as numeric would make PostgreSQL convert every value of an integer column to numeric first.
 */
export function comparedNumber(ctx: ScanContext, value: unknown): string {
  return ctx.bind(value, typeof value === 'number' && Number.isSafeInteger(value) ? 'bigint' : 'numeric');
}

/** The numeric parameter, bound for a comparison (comparedNumber). */
export function numericParam(ctx: ScanContext, name: string): string {
  return comparedNumber(ctx, ctx.param(name));
}

/**
 * Error samples of the duplicate sensors: rows whose `key` (a value, or a record of columns as text) occurs more
 * than once among the analyzed rows of the same data group and partition, with the check's filter:
 * `(group, key) in (select group, key … group by … having count(*) > 1)`. The group values are compared as the
 * text of a record, so a NULL group value is a group like any other.
 */
export function duplicatedRows(ctx: FailingRowsContext, key: string, keyCondition?: string): string {
  const groups = ctx.source.groups.map((g) => g.expression);
  const keys = groups.length > 0 ? [ctx.dialect.recordText(groups), key] : [key];
  const where = [...ctx.source.where];
  if (keyCondition !== undefined) where.push(keyCondition);
  if (ctx.checkFilter !== undefined) where.push(`(${ctx.checkFilter})`);
  const list = keys.join(', ');
  return (
    `(${list}) in (select ${list} from ${ctx.source.from} where ${where.join(' and ')} ` +
    `group by ${keys.map((_, index) => index + 1).join(', ')} having count(*) > 1)`
  );
}
