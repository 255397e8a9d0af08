/**
 * Shapes shared by many sensor definitions: a count of the values meeting a condition, and the share of the
 * values (or rows) meeting it. Conventions (see README "Sensors"): value-level sensors measure non-null values
 * only (nulls are the nulls sensors' business); a percent whose denominator is 0 answers `empty`: 0 when the
 * condition describes a problem, 100 when it describes a valid value.
 */
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';

type Condition = (ctx: ScanContext) => string;

/** Non-null values of the column meeting the condition. */
export function valueCount(meaning: string, condition: Condition): SensorDefinition {
  return { kind: 'aggregate', needsColumn: true, meaning, build: (ctx) => ctx.countValues(condition(ctx)) };
}

/** Share (percent) of the non-null values meeting the condition. */
export function valuePercent(meaning: string, condition: Condition, empty: 0 | 100 | null): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn: true,
    meaning,
    build: (ctx) => ctx.percent(ctx.countValues(condition(ctx)), ctx.countValues(), empty),
  };
}

/** Rows meeting the condition (table or column sensors whose condition is about the whole row). */
export function rowCount(meaning: string, needsColumn: boolean, condition: Condition): SensorDefinition {
  return { kind: 'aggregate', needsColumn, meaning, build: (ctx) => ctx.count(condition(ctx)) };
}

/** Share (percent) of the rows meeting the condition. */
export function rowPercent(meaning: string, needsColumn: boolean, condition: Condition, empty: 0 | 100 | null): SensorDefinition {
  return {
    kind: 'aggregate',
    needsColumn,
    meaning,
    build: (ctx) => ctx.percent(ctx.count(condition(ctx)), ctx.count(), empty),
  };
}

/** A plain aggregate of the column, e.g. `min`, `avg`. */
export function columnAggregate(meaning: string, call: (ctx: ScanContext) => string): SensorDefinition {
  return { kind: 'aggregate', needsColumn: true, meaning, build: (ctx) => ctx.aggregate(call(ctx)) };
}

/** `not (text ~ pattern)`: a non-null value that does not match. */
export function notMatching(ctx: ScanContext, pattern: string): string {
  return `not (${ctx.text} ~ ${ctx.bind(pattern, 'text')})`;
}

export function matching(ctx: ScanContext, pattern: string): string {
  return `${ctx.text} ~ ${ctx.bind(pattern, 'text')}`;
}

/** The numeric parameter, bound as numeric. */
export function numericParam(ctx: ScanContext, name: string): string {
  return ctx.bind(ctx.param(name), 'numeric');
}
