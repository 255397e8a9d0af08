import type { FastifyInstance } from 'fastify';
import { isJsonObject, type JsonObject, type JsonValue } from '../../model/index.js';
import type { StatisticsRow } from '../../store/store.js';
import { ref } from '../apiSchemas.js';
import { capabilitiesOf, type ServerContext } from '../context.js';
import { paramsSchema, targetOf, type Target } from './results.js';

/**
 * The statistics `collect statistics` stored (src/store/statistics.ts), read back as DQOps's statistics models:
 * a table's own statistics, every column's, or one column's, each from its latest collection, with the job
 * template that collects them again. 404 for a connection, table or column that is not in the live store; an
 * empty `statistics` list until the first collection.
 */
function metricOf(row: StatisticsRow): JsonObject {
  const [dataType, result]: [string, JsonValue] =
    row.errorMessage !== null
      ? ['null', null]
      : row.resultJson !== null
        ? ['json', row.resultJson]
        : row.resultDouble !== null
          ? ['double', row.resultDouble]
          : row.resultText !== null
            ? ['string', row.resultText]
            : ['null', null];
  return {
    category: row.collectorCategory,
    collector: row.collectorName,
    result_data_type: dataType,
    result,
    data_group: row.dataGroup,
    collected_at: row.collectedAt,
    ...(row.errorMessage !== null ? { error_message: row.errorMessage } : {}),
  };
}

function tableKey(target: Target): JsonObject {
  return { schema_name: target.schema, table_name: target.table };
}

function columnModel(target: Target, column: string, rows: readonly StatisticsRow[], canCollect: boolean): JsonObject {
  const columns = isJsonObject(target.tableSpec.columns) ? target.tableSpec.columns : {};
  const spec = isJsonObject(columns[column]) ? columns[column] : {};
  return {
    connection_name: target.connection,
    table: tableKey(target),
    column_name: column,
    disabled: spec.disabled === true,
    ...(isJsonObject(spec.type_snapshot) ? { type_snapshot: spec.type_snapshot } : {}),
    statistics: rows.map(metricOf),
    collect_column_statistics_job_template: { connection: target.connection, fullTableName: `${target.schema}.${target.table}`, enabled: true, columnNames: [column], collectorTarget: 'column' },
    can_collect_statistics: canCollect,
    can_delete_statistics: canCollect,
  };
}

export async function statisticsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['table_statistics'];
  const TABLE = '/connections/:connectionName/schemas/:schemaName/tables/:tableName';

  api.get(
    `${TABLE}/statistics`,
    {
      schema: {
        tags,
        operationId: 'get_table_statistics',
        summary: 'get_table_statistics: the table-level statistics (row count) of the latest collection',
        params: paramsSchema(false, false),
        response: { 200: ref('TableStatisticsModel') },
      },
    },
    async (request) => {
      const target = await targetOf(context, request, false);
      const rows = await context.store.latestStatistics({ connectionName: target.connection, schemaName: target.schema, tableName: target.table, columnName: null });
      const can = capabilitiesOf(request.caller).can_collect_statistics;
      const fullTableName = `${target.schema}.${target.table}`;
      return {
        connection_name: target.connection,
        table: tableKey(target),
        statistics: rows.map(metricOf),
        collect_table_statistics_job_template: { connection: target.connection, fullTableName, enabled: true, collectorTarget: 'table' },
        collect_table_and_column_statistics_job_template: { connection: target.connection, fullTableName, enabled: true },
        can_collect_statistics: can,
        can_delete_statistics: can,
      };
    },
  );

  api.get(
    `${TABLE}/columns/statistics`,
    {
      schema: {
        tags,
        operationId: 'get_table_columns_statistics',
        summary: 'get_table_columns_statistics: the statistics of every column of the table, by column name',
        params: paramsSchema(false, false),
        response: { 200: ref('TableColumnsStatisticsModel') },
      },
    },
    async (request) => {
      const target = await targetOf(context, request, false);
      const rows = await context.store.latestStatistics({ connectionName: target.connection, schemaName: target.schema, tableName: target.table });
      const can = capabilitiesOf(request.caller).can_collect_statistics;
      const byColumn = new Map<string, StatisticsRow[]>();
      for (const row of rows) if (row.columnName !== null) byColumn.set(row.columnName, [...(byColumn.get(row.columnName) ?? []), row]);
      const declared = Object.keys(isJsonObject(target.tableSpec.columns) ? target.tableSpec.columns : {});
      // the table's columns, and columns that have statistics but left the table file, by name
      const columns = [...new Set([...declared, ...byColumn.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return {
        connection_name: target.connection,
        table: tableKey(target),
        column_statistics: columns.map((column) => columnModel(target, column, byColumn.get(column) ?? [], can)),
        collect_column_statistics_job_template: { connection: target.connection, fullTableName: `${target.schema}.${target.table}`, enabled: true, collectorTarget: 'column' },
        can_collect_statistics: can,
        can_delete_statistics: can,
      };
    },
  );

  api.get(
    `${TABLE}/columns/:columnName/statistics`,
    {
      schema: {
        tags,
        operationId: 'get_column_statistics',
        summary: 'get_column_statistics: the statistics of one column from the latest collection',
        params: paramsSchema(true, false),
        response: { 200: ref('ColumnStatisticsModel') },
      },
    },
    async (request) => {
      const target = await targetOf(context, request, true);
      const rows = await context.store.latestStatistics({ connectionName: target.connection, schemaName: target.schema, tableName: target.table, columnName: target.column! });
      return columnModel(target, target.column!, rows, capabilitiesOf(request.caller).can_collect_statistics);
    },
  );
}
