import type { FastifyInstance } from 'fastify';
import { remoteSchemas, remoteTables, testConnection } from '../../app/probeDataSource.js';
import { DqError, isJsonObject, type JsonObject } from '../../model/index.js';
import type { ServerContext } from '../context.js';
import { checkConnectionName, checkSchemaName } from './tables.js';

/**
 * DQOps's `data_sources` group: test the settings of a connection before saving them, and browse the schemas
 * and tables of a connection's database (to choose what to import). Reaches the data source; the answers say
 * which schemas and tables are imported already.
 */
export async function dataSourcesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['data_sources'];
  const deps = () => {
    if (!context.dataSources) throw new DqError('NOT_IMPLEMENTED', 'this server was built without data source access');
    return { objects: context.objects, dataSources: context.dataSources };
  };

  api.post(
    '/datasource/testconnection',
    {
      schema: {
        tags,
        operationId: 'test_connection',
        summary: 'test_connection: connects with the settings of the body (a ConnectionModel) and answers SUCCESS or FAILURE with the reason',
        querystring: { type: 'object', properties: { verifyNameUniqueness: { type: 'boolean' }, verify_name_uniqueness: { type: 'boolean' } } },
        body: { type: 'object', additionalProperties: true },
        response: { 200: { type: 'object', properties: { connectionTestResult: { type: 'string' }, errorMessage: { type: 'string' } } } },
      },
      config: { role: 'editor' },
    },
    async (request) => {
      const body = request.body as JsonObject;
      const query = request.query as { verifyNameUniqueness?: boolean; verify_name_uniqueness?: boolean };
      const name = typeof body.connection_name === 'string' ? body.connection_name : undefined;
      // the body is a ConnectionModel: the provider blocks sit at its top level, as in a connection spec
      const spec: JsonObject = { provider_type: body.provider_type ?? null };
      if (isJsonObject(body.postgresql)) spec.postgresql = body.postgresql;
      return testConnection(deps(), name, spec, { verifyNameUniqueness: query.verifyNameUniqueness ?? query.verify_name_uniqueness });
    },
  );

  api.get(
    '/datasource/connections/:connectionName/schemas',
    {
      schema: {
        tags,
        operationId: 'get_remote_data_source_schemas',
        summary: "get_remote_data_source_schemas: the schemas of the connection's database",
        params: { type: 'object', properties: { connectionName: { type: 'string' } }, required: ['connectionName'] },
        response: { 200: { type: 'array', items: { type: 'object', properties: { connectionName: { type: 'string' }, schemaName: { type: 'string' }, alreadyImported: { type: 'boolean' } } } } },
      },
    },
    async (request) => remoteSchemas(deps(), checkConnectionName((request.params as { connectionName: string }).connectionName)),
  );

  api.get(
    '/datasource/connections/:connectionName/schemas/:schemaName/tables',
    {
      schema: {
        tags,
        operationId: 'get_remote_data_source_tables',
        summary: "get_remote_data_source_tables: the tables of one schema of the connection's database",
        params: { type: 'object', properties: { connectionName: { type: 'string' }, schemaName: { type: 'string' } }, required: ['connectionName', 'schemaName'] },
        querystring: { type: 'object', properties: { tableNameContains: { type: 'string' }, table_name_contains: { type: 'string' } } },
        response: {
          200: {
            type: 'array',
            items: { type: 'object', properties: { connectionName: { type: 'string' }, schemaName: { type: 'string' }, tableName: { type: 'string' }, alreadyImported: { type: 'boolean' } } },
          },
        },
      },
    },
    async (request) => {
      const params = request.params as { connectionName: string; schemaName: string };
      const query = request.query as { tableNameContains?: string; table_name_contains?: string };
      return remoteTables(deps(), checkConnectionName(params.connectionName), checkSchemaName(params.schemaName), query.tableNameContains ?? query.table_name_contains);
    },
  );
}
