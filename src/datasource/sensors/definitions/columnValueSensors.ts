/**
 * Column sensors over the values themselves: nulls, uniqueness, numeric statistics and ranges, and booleans.
 * Numeric thresholds are bound as `bigint` when whole, else `numeric` (comparedNumber), so integer and decimal
 * columns compare exactly (float columns in double precision).
 */
import { SensorBuildError, type FailingRowsContext, type SensorDefinition } from '../sensorDefinition.js';
import { columnAggregate, comparedNumber, duplicatedRows, numericParam, valueCount, valuePercent, whenRows } from './shapes.js';

const LATITUDE = 90;
const LONGITUDE = 180;

function inRange(ctx: Parameters<typeof numericParam>[0], min: string, max: string): string {
  const conditions: string[] = [];
  if (ctx.param(min) !== null) conditions.push(`${ctx.column} >= ${numericParam(ctx, min)}`);
  if (ctx.param(max) !== null) conditions.push(`${ctx.column} <= ${numericParam(ctx, max)}`);
  return conditions.length === 0 ? 'true' : conditions.join(' and ');
}

function within(ctx: Parameters<typeof numericParam>[0], limit: number): string {
  return `${ctx.column} between ${comparedNumber(ctx, -limit)} and ${comparedNumber(ctx, limit)}`;
}

/** Error samples of the duplicate sensors: every row whose non-NULL value occurs more than once (all its copies). */
const duplicateValues = (ctx: FailingRowsContext): string => duplicatedRows(ctx, ctx.column, `${ctx.column} is not null`);

export const COLUMN_VALUE_SENSORS: Record<string, SensorDefinition> = {
  'column/nulls/null_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Rows where the column is NULL (NULL for no rows, as DQOps).',
    build: (ctx) => whenRows(ctx, ctx.count(`${ctx.column} is null`), null),
    failingRows: (ctx) => `${ctx.column} is null`,
  },
  'column/nulls/null_percent': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'NULLs as a percent of the rows (100 for no rows, as DQOps).',
    build: (ctx) => ctx.percent(ctx.count(`${ctx.column} is null`), ctx.count(), 100),
    failingRows: (ctx) => `${ctx.column} is null`,
  },
  'column/nulls/not_null_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Rows where the column is not NULL: `count(column)`.',
    build: (ctx) => ctx.countValues(),
  },
  'column/nulls/not_null_percent': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Non-NULL values as a percent of the rows (0 for no rows).',
    build: (ctx) => ctx.percent(ctx.countValues(), ctx.count(), 0),
  },

  'column/uniqueness/distinct_count': columnAggregate('Distinct non-NULL values: `count(distinct column)`.', (ctx) => `count(distinct ${ctx.column})`),
  'column/uniqueness/distinct_percent': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Distinct values as a percent of the non-NULL values (100 for none).',
    build: (ctx) => ctx.percent(ctx.aggregate(`count(distinct ${ctx.column})`), ctx.countValues(), 100),
  },
  'column/uniqueness/duplicate_count': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Non-NULL values that repeat an earlier value: `count(column) - count(distinct column)`.',
    build: (ctx) => `(${ctx.countValues()} - ${ctx.aggregate(`count(distinct ${ctx.column})`)})`,
    failingRows: duplicateValues,
  },
  'column/uniqueness/duplicate_percent': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'duplicate_count as a percent of the non-NULL values (0 for none).',
    build: (ctx) => ctx.percent(`(${ctx.countValues()} - ${ctx.aggregate(`count(distinct ${ctx.column})`)})`, ctx.countValues(), 0),
    failingRows: duplicateValues,
  },

  'column/range/min_value': columnAggregate('Smallest value: `min(column)` (numeric columns).', (ctx) => `min(${ctx.column})`),
  'column/range/max_value': columnAggregate('Largest value: `max(column)` (numeric columns).', (ctx) => `max(${ctx.column})`),
  'column/numeric/mean': columnAggregate('Average: `avg(column)`.', (ctx) => `avg(${ctx.column})`),
  'column/numeric/sum': columnAggregate('Sum: `sum(column)`.', (ctx) => `sum(${ctx.column})`),
  'column/numeric/sample_stddev': columnAggregate('`stddev_samp(column)`.', (ctx) => `stddev_samp(${ctx.column})`),
  'column/numeric/population_stddev': columnAggregate('`stddev_pop(column)`.', (ctx) => `stddev_pop(${ctx.column})`),
  'column/numeric/sample_variance': columnAggregate('`var_samp(column)`.', (ctx) => `var_samp(${ctx.column})`),
  'column/numeric/population_variance': columnAggregate('`var_pop(column)`.', (ctx) => `var_pop(${ctx.column})`),
  'column/numeric/percentile': {
    kind: 'aggregate',
    needsColumn: true,
    meaning: 'Continuous percentile `percentile_value` (0..1, default the median): `percentile_cont(p) within group (order by column)`.',
    build: (ctx) => {
      const p = ctx.param('percentile_value');
      if (typeof p !== 'number' || p < 0 || p > 1) throw new SensorBuildError('the sensor parameter "percentile_value" must be between 0 and 1');
      // refused before it runs, so it cannot fail the merged scan of the table's other sensors
      if (ctx.dialect.name === 'mysql') throw new SensorBuildError('MySQL and MariaDB have no percentile aggregate (DQOps has no mysql or mariadb percentile sensor either)');
      return ctx.aggregate(`percentile_cont(${ctx.bind(p, 'double precision')}) within group (order by ${ctx.column})`);
    },
  },

  'column/numeric/negative_count': valueCount('Values < 0.', (ctx) => `${ctx.column} < ${comparedNumber(ctx, 0)}`),
  'column/numeric/negative_percent': valuePercent('Values < 0, percent of the non-NULL values.', (ctx) => `${ctx.column} < ${comparedNumber(ctx, 0)}`, 0),
  'column/numeric/non_negative_count': valueCount('Values >= 0.', (ctx) => `${ctx.column} >= ${comparedNumber(ctx, 0)}`),
  'column/numeric/non_negative_percent': valuePercent('Values >= 0, percent of the non-NULL values.', (ctx) => `${ctx.column} >= ${comparedNumber(ctx, 0)}`, 0),
  'column/numeric/number_below_min_value_count': valueCount('Values < `min_value`.', (ctx) => `${ctx.column} < ${numericParam(ctx, 'min_value')}`),
  'column/numeric/number_below_min_value_percent': valuePercent('Values < `min_value`, percent of the non-NULL values.', (ctx) => `${ctx.column} < ${numericParam(ctx, 'min_value')}`, 0),
  'column/numeric/number_above_max_value_count': valueCount('Values > `max_value`.', (ctx) => `${ctx.column} > ${numericParam(ctx, 'max_value')}`),
  'column/numeric/number_above_max_value_percent': valuePercent('Values > `max_value`, percent of the non-NULL values.', (ctx) => `${ctx.column} > ${numericParam(ctx, 'max_value')}`, 0),
  'column/numeric/number_in_range_percent': valuePercent(
    'Values in [`min_value`, `max_value`] (an unset bound is open), percent of the non-NULL values (100 for none).',
    (ctx) => inRange(ctx, 'min_value', 'max_value'),
    100,
  ),
  'column/numeric/integer_in_range_percent': valuePercent(
    'Values in [`min_value`, `max_value`] (integers; an unset bound is open), percent of the non-NULL values (100 for none).',
    (ctx) => inRange(ctx, 'min_value', 'max_value'),
    100,
  ),
  'column/numeric/invalid_latitude_count': valueCount('Values outside [-90, 90].', (ctx) => `not (${within(ctx, LATITUDE)})`),
  'column/numeric/valid_latitude_percent': valuePercent('Values in [-90, 90], percent of the non-NULL values (100 for none).', (ctx) => within(ctx, LATITUDE), 100),
  'column/numeric/invalid_longitude_count': valueCount('Values outside [-180, 180].', (ctx) => `not (${within(ctx, LONGITUDE)})`),
  'column/numeric/valid_longitude_percent': valuePercent('Values in [-180, 180], percent of the non-NULL values (100 for none).', (ctx) => within(ctx, LONGITUDE), 100),

  'column/bool/true_percent': valuePercent('Values that are true (`column::boolean`), percent of the non-NULL values (100 for none, as DQOps).', (ctx) => ctx.dialect.asBoolean(ctx.column), 100, 'none'),
  'column/bool/false_percent': valuePercent('Values that are false (`column::boolean`), percent of the non-NULL values (100 for none, as DQOps).', (ctx) => `not ${ctx.dialect.asBoolean(ctx.column)}`, 100, 'none'),
};
