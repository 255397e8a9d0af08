/**
 * Custom SQL sensors. `sql_condition`, `sql_expression` and `sql_query` are SQL by design: they come from the
 * repository's table files (reviewed like code), are spliced as written (tokens `{alias}`, `{table}`,
 * `{column}` replaced) and run inside the read-only transaction of the data source with its statement timeout.
 * They are never taken from bound values, and values never become SQL.
 *
 * As in DQOps, a row fails a condition when the condition is FALSE and passes when it is TRUE; a NULL condition
 * neither passes nor fails. Column sensors look only at rows whose column is not NULL. Counts are NULL on no rows;
 * both percents are 100 when there is nothing to measure (no rows, or no non-NULL value for a column sensor).
 */
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';
import { whenRows } from './shapes.js';

type Target = 'table' | 'column';

function conditionSensors(target: Target): Record<string, SensorDefinition> {
  const needsColumn = target === 'column';
  const condition = (ctx: ScanContext): string => `(${ctx.userSql(String(ctx.param('sql_condition')))})`;
  // Column sensors measure the non-NULL values of the column; table sensors every row.
  const measured = (ctx: ScanContext, predicate: string): string => (needsColumn ? `${ctx.column} is not null and ${predicate}` : predicate);
  const passes = (ctx: ScanContext): string => measured(ctx, condition(ctx));
  const fails = (ctx: ScanContext): string => measured(ctx, `not ${condition(ctx)}`);
  const all = (ctx: ScanContext): string => (needsColumn ? ctx.countValues() : ctx.count());
  // Error samples: the rows a failed_* sensor counts; for a passed_* sensor the measured rows that do not pass.
  const doesNotPass = (ctx: ScanContext): string => measured(ctx, `${condition(ctx)} is not true`);
  const count = (meaning: string, counted: (ctx: ScanContext) => string): SensorDefinition => ({
    kind: 'aggregate',
    needsColumn,
    meaning,
    build: (ctx) => whenRows(ctx, ctx.count(counted(ctx)), null),
    failingRows: counted === fails ? fails : doesNotPass,
  });
  const percent = (meaning: string, counted: (ctx: ScanContext) => string): SensorDefinition => ({
    kind: 'aggregate',
    needsColumn,
    meaning,
    build: (ctx) => ctx.percent(ctx.count(counted(ctx)), all(ctx), 100),
    failingRows: counted === fails ? fails : doesNotPass,
  });
  const of = needsColumn ? 'non-NULL values' : 'rows';
  const on = needsColumn ? ' with a non-NULL value' : '';
  return {
    [`${target}/custom_sql/sql_condition_failed_count`]: count(`Rows${on} where \`sql_condition\` is FALSE (NULL neither passes nor fails); NULL for no rows.`, fails),
    [`${target}/custom_sql/sql_condition_failed_percent`]: percent(`Rows${on} where \`sql_condition\` is FALSE, percent of the ${of} (100 for none, as DQOps).`, fails),
    [`${target}/custom_sql/sql_condition_passed_count`]: count(`Rows${on} where \`sql_condition\` is TRUE; NULL for no rows.`, passes),
    [`${target}/custom_sql/sql_condition_passed_percent`]: percent(`Rows${on} where \`sql_condition\` is TRUE, percent of the ${of} (100 for none).`, passes),
    [`${target}/custom_sql/sql_aggregated_expression`]: {
      kind: 'aggregate',
      needsColumn,
      acceptsCheckFilter: false,
      meaning: 'The value of the aggregate expression `sql_expression` (e.g. `max({column}) - min({column})`); with a check filter it runs in a query of its own.',
      build: (ctx) => `(${ctx.userSql(String(ctx.param('sql_expression')))})`,
    },
    [`${target}/custom_sql/import_custom_result`]: {
      kind: 'custom',
      needsColumn,
      manyRows: true,
      meaning:
        'Rows of `sql_query` (a query of its own, `{schema_name}`, `{table_name}` and `{column_name}` replaced by the bare names) with columns `actual_value` and optionally `expected_value`, `severity` (0-3), `data_group`, `time_period`.',
      build: (ctx) => `select * from (\n${ctx.namesSql(ctx.userSql(String(ctx.param('sql_query'))))}\n) as custom_results`,
    },
  };
}

export const CUSTOM_SQL_SENSORS: Record<string, SensorDefinition> = {
  ...conditionSensors('table'),
  ...conditionSensors('column'),
  'table/custom_sql/sql_invalid_record_count': {
    kind: 'custom',
    needsColumn: false,
    meaning: 'Rows returned by `sql_query` (a query of its own that selects the invalid records).',
    build: (ctx) => `select count(*) as actual_value from (\n${ctx.userSql(String(ctx.param('sql_query')))}\n) as invalid_records`,
  },
  'column/custom_sql/sql_invalid_value_count': {
    kind: 'custom',
    needsColumn: true,
    meaning: 'Rows returned by `sql_query` (a query of its own that selects the invalid values).',
    build: (ctx) => `select count(*) as actual_value from (\n${ctx.userSql(String(ctx.param('sql_query')))}\n) as invalid_values`,
  },
};
