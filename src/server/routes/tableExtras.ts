import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { similarTables } from '../../app/similarTables.js';
import { checkConfigurationsOf, DEFAULT_MODEL_LIMIT, type CheckTarget } from '../../app/checkConfigurations.js';
import { DqError, isJsonObject, tableKey, type CheckType, type JsonObject, type TimeScale } from '../../model/index.js';
import { arrayOf } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { queryParam } from '../../app/results/resultsQuery.js';
import { tableListModel } from '../../app/tableModels.js';
import { bothSpellingsQuery } from './results.js';
import { capabilitiesFor, requireConnection, requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf } from './tables.js';

/**
 * The rest of DQOps's `tables` and `columns` operations: the check configuration of every column of one table
 * (…/columnchecks/{container}/model, as the schema-level models but for one table), the profiling setup status,
 * similar tables, and the "basic" updates of a table or column, which change only the fields of the list model
 * that are settings (the others, counts and capabilities, are ignored).
 */
const TABLE_BASIC_FIELDS = ['disabled', 'stage', 'priority', 'filter', 'do_not_collect_error_samples_in_profiling', 'always_collect_error_samples_in_monitoring', 'labels', 'owner', 'advanced_properties', 'file_format'];
const COLUMN_BASIC_FIELDS = ['disabled', 'sql_expression', 'id', 'labels', 'type_snapshot', 'advanced_properties'];

function pick(body: JsonObject, fields: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const field of fields) if (body[field] !== undefined) out[field] = body[field];
  return out;
}

export async function tableExtrasRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['tables'];
  const text = { type: 'string' };
  const modelQuery = bothSpellingsQuery([
    ['column_name_pattern', 'columnNamePattern', text],
    ['column_data_type', 'columnDataType', text],
    ['check_category', 'checkCategory', text],
    ['check_name', 'checkName', text],
    ['check_enabled', 'checkEnabled', { type: 'boolean' }],
    ['check_configured', 'checkConfigured', { type: 'boolean' }],
    ['limit', null, { type: 'integer', minimum: 1, maximum: 1_000_000 }],
  ]);
  const containers: Array<{ type: CheckType; segment: string; scaled: boolean }> = [
    { type: 'profiling', segment: 'profiling', scaled: false },
    { type: 'monitoring', segment: 'monitoring/:timeScale', scaled: true },
    { type: 'partitioned', segment: 'partitioned/:timeScale', scaled: true },
  ];
  for (const { type, segment, scaled } of containers) {
    api.get(
      `${TABLE_URL}/columnchecks/${segment}/model`,
      {
        schema: {
          tags,
          operationId: `get_table_columns_${type}_checks_model`,
          summary: `get_table_columns_${type}_checks_model: the effective ${type} checks of every column of the table (own and from policies)`,
          params: scaled ? { ...TABLE_PARAMS, properties: { ...TABLE_PARAMS.properties, timeScale: { type: 'string', enum: ['daily', 'monthly'] } }, required: [...TABLE_PARAMS.required, 'timeScale'] } : TABLE_PARAMS,
          querystring: modelQuery,
          response: { 200: arrayOf('CheckConfigurationModel') },
        },
      },
      async (request: FastifyRequest) => {
        const path = tablePathOf(request);
        const connection = await requireConnection(context, path.connection);
        const table = await requireTable(context, path);
        const query = request.query as Record<string, unknown>;
        return checkConfigurationsOf(
          context.objects,
          { connection, tables: [table], checkType: type, timeScale: scaled ? (request.params as { timeScale: TimeScale }).timeScale : null },
          {
            column_name_pattern: queryParam<string>(query, 'column_name_pattern', 'columnNamePattern'),
            column_data_type: queryParam<string>(query, 'column_data_type', 'columnDataType'),
            check_target: 'column' as CheckTarget,
            check_category: queryParam<string>(query, 'check_category', 'checkCategory'),
            check_name: queryParam<string>(query, 'check_name', 'checkName'),
            check_enabled: queryParam<boolean>(query, 'check_enabled', 'checkEnabled'),
            check_configured: queryParam<boolean>(query, 'check_configured', 'checkConfigured'),
            limit: queryParam<number>(query, 'limit') ?? DEFAULT_MODEL_LIMIT,
          },
        );
      },
    );
  }

  api.get(
    `${TABLE_URL}/profilingstatus`,
    {
      schema: {
        tags,
        operationId: 'get_table_profiling_status',
        summary: 'get_table_profiling_status: whether statistics were collected, checks are configured and results exist',
        params: TABLE_PARAMS,
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      const list = tableListModel(live, path, capabilitiesFor(context, request, live));
      const [statistics, results] = await Promise.all([
        context.store.latestStatistics({ connectionName: path.connection, schemaName: path.schema, tableName: path.table }),
        context.store.checkResults({ connectionName: path.connection, schemaName: path.schema, tableName: path.table, newest: { of: 'rows', count: 1 } }),
      ]);
      return {
        connection_name: path.connection,
        target: { schema_name: path.schema, table_name: path.table },
        basic_statistics_collected: statistics.length > 0,
        profiling_checks_configured: list.has_any_configured_profiling_checks,
        monitoring_checks_configured: list.has_any_configured_monitoring_checks,
        partition_checks_configured: list.has_any_configured_partition_checks,
        check_results_present: results.length > 0,
      };
    },
  );

  api.get(
    `${TABLE_URL}/similar`,
    {
      schema: {
        tags,
        operationId: 'find_similar_tables',
        summary: 'find_similar_tables: tables whose column names are most like this table\'s (Jaccard index in percent)',
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 1000 } } },
        response: { 200: { type: 'array', items: { type: 'object', additionalProperties: true } } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      return similarTables(context.objects, tableKey(path), (request.query as { limit?: number }).limit ?? 50);
    },
  );

  api.put(
    `${TABLE_URL}/basic`,
    { schema: { tags, operationId: 'update_table_basic', summary: `update_table_basic: sets ${TABLE_BASIC_FIELDS.join(', ')} from a TableListModel; 204`, params: TABLE_PARAMS, body: { type: 'object', additionalProperties: true } } },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const part = pick(request.body as JsonObject, TABLE_BASIC_FIELDS);
      refuseInvalidTableSpec(part, [], 'table');
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => ({ spec: { ...current.spec, ...part } }));
      return reply.status(204).send();
    },
  );

  api.put(
    `${TABLE_URL}/columns/:columnName/basic`,
    {
      schema: {
        tags: ['columns'],
        operationId: 'update_column_basic',
        summary: `update_column_basic: sets ${COLUMN_BASIC_FIELDS.join(', ')} from a ColumnListModel; 204`,
        params: { ...TABLE_PARAMS, properties: { ...TABLE_PARAMS.properties, columnName: { type: 'string' } }, required: [...TABLE_PARAMS.required, 'columnName'] },
        body: { type: 'object', additionalProperties: true },
      },
    },
    async (request, reply) => {
      const path = tablePathOf(request);
      const column = checkName('column name', (request.params as { columnName: string }).columnName, { slashes: true });
      await requireTable(context, path);
      const part = pick(request.body as JsonObject, COLUMN_BASIC_FIELDS);
      refuseInvalidTableSpec({ columns: { [column]: part } }, ['columns', column], 'column');
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
        const columns: JsonObject = isJsonObject(current.spec.columns) ? { ...current.spec.columns } : {};
        const existing = columns[column];
        if (!isJsonObject(existing)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${JSON.stringify(current.name)}`);
        columns[column] = { ...existing, ...part };
        return { spec: { ...current.spec, columns } };
      });
      return reply.status(204).send();
    },
  );
}
