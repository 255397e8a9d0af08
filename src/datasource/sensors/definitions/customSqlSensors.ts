/**
 * Custom SQL sensors. `sql_condition`, `sql_expression` and `sql_query` are SQL by design: they come from the
 * repository's table files (reviewed like code), are spliced as written (tokens `{alias}`, `{table}`,
 * `{column}` replaced) and run inside the read-only transaction of the data source with its statement timeout.
 * They are never taken from bound values, and values never become SQL. A condition passes on a row when it is
 * TRUE; FALSE and NULL fail.
 */
import type { ScanContext, SensorDefinition } from '../sensorDefinition.js';
import { rowCount, rowPercent } from './shapes.js';

type Target = 'table' | 'column';

function conditionSensors(target: Target): Record<string, SensorDefinition> {
  const needsColumn = target === 'column';
  const condition = (ctx: ScanContext): string => `(${ctx.userSql(String(ctx.param('sql_condition')))})`;
  return {
    [`${target}/custom_sql/sql_condition_failed_count`]: rowCount('Rows where `sql_condition` is not TRUE.', needsColumn, (ctx) => `${condition(ctx)} is not true`),
    [`${target}/custom_sql/sql_condition_failed_percent`]: rowPercent('Rows where `sql_condition` is not TRUE, percent of the rows (0 for none).', needsColumn, (ctx) => `${condition(ctx)} is not true`, 0),
    // the rows it counts pass; its failing rows (error samples) are the others
    [`${target}/custom_sql/sql_condition_passed_count`]: rowCount('Rows where `sql_condition` is TRUE.', needsColumn, (ctx) => `${condition(ctx)} is true`, (ctx) => `${condition(ctx)} is not true`),
    [`${target}/custom_sql/sql_condition_passed_percent`]: rowPercent('Rows where `sql_condition` is TRUE, percent of the rows (100 for none).', needsColumn, (ctx) => `${condition(ctx)} is true`, 100),
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
      meaning: 'Rows of `sql_query` (a query of its own) with columns `actual_value` and optionally `expected_value`, `severity` (0-3), `data_group`, `time_period`.',
      build: (ctx) => `select * from (\n${ctx.userSql(String(ctx.param('sql_query')))}\n) as custom_results`,
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
