import type { FastifyInstance } from 'fastify';
import { ref } from '../apiSchemas.js';
import { capabilitiesOf, type ServerContext } from '../context.js';
import { columnStatisticsModel, tableColumnsStatisticsModel, tableStatisticsModel } from '../../app/results/statisticsModels.js';
import { paramsSchema, targetOf } from './results.js';

/**
 * The statistics routes: a table's own statistics, every column's, or one column's, as DQOps's models
 * (src/app/results/statisticsModels.ts). 404 for a connection, table or column that is not in the live store;
 * an empty `statistics` list until the first collection.
 */
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
      return tableStatisticsModel(target, rows, capabilitiesOf(request.caller).can_collect_statistics);
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
      return tableColumnsStatisticsModel(target, rows, capabilitiesOf(request.caller).can_collect_statistics);
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
      return columnStatisticsModel(target, target.column!, rows, capabilitiesOf(request.caller).can_collect_statistics);
    },
  );
}
