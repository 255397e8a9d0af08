import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, parseTableKey, tableKeyPrefix, TIME_SCALES, type CheckType, type JsonObject, type LiveObject, type TimeScale } from '../../model/index.js';
import { arrayOf } from '../apiSchemas.js';
import type { Capabilities, ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { bulkEnableTemplates, checkConfigurationsOf, DEFAULT_MODEL_LIMIT, type CheckTarget } from '../../app/checkConfigurations.js';
import { jobTemplates } from '../../app/connectionModels.js';
import { capabilitiesOn, connectionNameOf, requireConnection } from './connections.js';
import { queryParam } from '../../app/results/resultsQuery.js';
import { bothSpellingsQuery } from './results.js';

/**
 * Schemas of a connection. A schema is not an object of its own: it is the part before the first dot of the
 * names of the connection's tables (`conn/schema.table`), so a connection's schemas are the distinct schemas of
 * its tables and a schema with no table does not exist (404).
 *
 * The routes are listed in SCHEMA_ROUTES, one entry a route; the helpers below (schemaNameOf, requireSchema,
 * tablesOfSchema, schemaModel) are what a schema-level route needs, so adding one is adding an entry.
 */


/** The schema name of a route's `:schemaName`, refused (400) when hostile. */
export function schemaNameOf(request: FastifyRequest): string {
  return checkName('schema name', (request.params as { schemaName: string }).schemaName);
}

/** The tables of one schema of a connection (live objects, sorted by name). */
export function tablesOfSchema(context: ServerContext, connection: string, schema: string): Promise<LiveObject[]> {
  return context.objects.list('table', tableKeyPrefix(connection, schema));
}

/** The connection (404 when unknown) and the tables of the schema (404 when it has none). */
export async function requireSchema(
  context: ServerContext,
  connection: string,
  schema: string,
): Promise<{ connection: LiveObject; tables: LiveObject[] }> {
  const live = await requireConnection(context, connection);
  const tables = await tablesOfSchema(context, connection, schema);
  if (tables.length === 0) throw new DqError('NOT_FOUND', `schema ${JSON.stringify(schema)} of connection ${JSON.stringify(connection)} not found`);
  return { connection: live, tables };
}

/** SchemaModel: the schema with the job templates scoped to it (`fullTableName` = `schema.*`). */
export function schemaModel(connection: string, schema: string, caps: Capabilities): JsonObject {
  return {
    connection_name: connection,
    schema_name: schema,
    directory_prefix: `sources/${connection}/${schema}.`,
    ...jobTemplates(connection, `${schema}.*`),
    ...caps,
  };
}

interface SchemaRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below /api. */
  url: string;
  /** The fastify schema without tags (every route here is tagged `schemas`). */
  schema: Record<string, unknown>;
  /** The least role (default: viewer for GET, editor otherwise). */
  config?: FastifyContextConfig;
  /** Returns the response body; set another status on `reply` (201, 204) and return undefined for none. */
  handler: (request: FastifyRequest, reply: FastifyReply, context: ServerContext) => Promise<unknown>;
}

const connectionParams = {
  type: 'object',
  properties: { connectionName: { type: 'string', description: 'connection name' } },
  required: ['connectionName'],
};

/** The `:connectionName` + `:schemaName` params of the routes below SCHEMA = /connections/{c}/schemas/{s}. */
export const schemaParams = {
  type: 'object',
  properties: { ...connectionParams.properties, schemaName: { type: 'string', description: 'schema name' } },
  required: ['connectionName', 'schemaName'],
};

export const SCHEMA_ROUTES: SchemaRoute[] = [
  {
    method: 'GET',
    url: '/connections/:connectionName/schemas',
    schema: {
      operationId: 'get_schemas', summary: 'get_schemas: the distinct schemas of the connection\'s tables, sorted',
      params: connectionParams,
      response: { 200: arrayOf('SchemaModel') },
    },
    async handler(request, _reply, context) {
      const name = connectionNameOf(request);
      const connection = await requireConnection(context, name);
      const caps = capabilitiesOn(context, request, connection);
      const schemas = new Set<string>();
      for (const table of await context.objects.list('table', tableKeyPrefix(name))) {
        const schema = parseTableKey(table.name)?.schema;
        if (schema !== undefined) schemas.add(schema);
      }
      return [...schemas].sort().map((schema) => schemaModel(name, schema, caps));
    },
  },
  ...schemaCheckRoutes(),
];

/**
 * The schema-level check operations, for profiling and for monitoring and partitioned checks at a time scale:
 * `…/model` lists the check configuration of every table and column of the schema as it is EFFECTIVE (the
 * table file's own checks and those of the matching policies, configured or not; see
 * policy/checkConfigurationModels.ts for the filters), and `…/bulkenable/…` the catalog's check templates.
 * Query parameters in both spellings (snake_case and DQOps clients' camelCase).
 */
function schemaCheckRoutes(): SchemaRoute[] {
  const containers: Array<{ type: CheckType; segment: string; scaled: boolean }> = [
    { type: 'profiling', segment: 'profiling', scaled: false },
    { type: 'monitoring', segment: 'monitoring/:timeScale', scaled: true },
    { type: 'partitioned', segment: 'partitioned/:timeScale', scaled: true },
  ];
  const scaledParams = {
    type: 'object',
    properties: { ...schemaParams.properties, timeScale: { type: 'string', enum: [...TIME_SCALES], description: 'CheckTimeScale' } },
    required: [...schemaParams.required, 'timeScale'],
  };
  const text = { type: 'string' };
  const target = { type: 'string', enum: ['table', 'column'] };
  const flag = { type: 'boolean' };
  const templateFilters: Array<[string, string, Record<string, unknown>]> = [
    ['check_target', 'checkTarget', target],
    ['check_category', 'checkCategory', text],
    ['check_name', 'checkName', text],
  ];
  const modelQuery = bothSpellingsQuery([
    ['table_name_pattern', 'tableNamePattern', text],
    ['column_name_pattern', 'columnNamePattern', text],
    ['column_data_type', 'columnDataType', text],
    ...templateFilters,
    ['check_enabled', 'checkEnabled', flag],
    ['check_configured', 'checkConfigured', flag],
    ['limit', null, { type: 'integer', minimum: 1, maximum: 1_000_000, description: `default ${DEFAULT_MODEL_LIMIT}` }],
  ]);
  const templateQuery = bothSpellingsQuery(templateFilters);
  const routes: SchemaRoute[] = [];
  for (const { type, segment, scaled } of containers) {
    const timeScaleOf = (request: FastifyRequest): TimeScale | null => (scaled ? (request.params as { timeScale: TimeScale }).timeScale : null);
    routes.push({
      method: 'GET',
      url: `/connections/:connectionName/schemas/:schemaName/${segment}/model`,
      schema: {
        operationId: `get_schema_${type}_checks_model`,
        summary: `get_schema_${type}_checks_model: the effective ${type} checks of the schema's tables and columns (own and from policies)`,
        params: scaled ? scaledParams : schemaParams,
        querystring: modelQuery,
        response: { 200: arrayOf('CheckConfigurationModel') },
      },
      async handler(request, _reply, context) {
        const name = connectionNameOf(request);
        const { connection, tables } = await requireSchema(context, name, schemaNameOf(request));
        const query = request.query as Record<string, unknown>;
        return checkConfigurationsOf(
          context.objects,
          { connection, tables, checkType: type, timeScale: timeScaleOf(request) },
          {
            table_name_pattern: queryParam<string>(query, 'table_name_pattern', 'tableNamePattern'),
            column_name_pattern: queryParam<string>(query, 'column_name_pattern', 'columnNamePattern'),
            column_data_type: queryParam<string>(query, 'column_data_type', 'columnDataType'),
            check_target: queryParam<CheckTarget>(query, 'check_target', 'checkTarget'),
            check_category: queryParam<string>(query, 'check_category', 'checkCategory'),
            check_name: queryParam<string>(query, 'check_name', 'checkName'),
            check_enabled: queryParam<boolean>(query, 'check_enabled', 'checkEnabled'),
            check_configured: queryParam<boolean>(query, 'check_configured', 'checkConfigured'),
            limit: queryParam<number>(query, 'limit') ?? DEFAULT_MODEL_LIMIT,
          },
        );
      },
    });
    routes.push({
      method: 'GET',
      url: `/connections/:connectionName/schemas/:schemaName/bulkenable/${segment}`,
      schema: {
        operationId: `get_schema_${type}_checks_templates`,
        summary: `get_schema_${type}_checks_templates: the catalog's ${type} checks as templates for bulk enabling`,
        params: scaled ? scaledParams : schemaParams,
        querystring: templateQuery,
        response: { 200: arrayOf('CheckTemplate') },
      },
      async handler(request, _reply, context) {
        const name = connectionNameOf(request);
        const { connection } = await requireSchema(context, name, schemaNameOf(request));
        const query = request.query as Record<string, unknown>;
        return bulkEnableTemplates(type, timeScaleOf(request), capabilitiesOn(context, request, connection), {
          check_target: queryParam<CheckTarget>(query, 'check_target', 'checkTarget'),
          check_category: queryParam<string>(query, 'check_category', 'checkCategory'),
          check_name: queryParam<string>(query, 'check_name', 'checkName'),
        });
      },
    });
  }
  return routes;
}

export async function schemasRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  for (const route of SCHEMA_ROUTES) {
    api.route({
      method: route.method,
      url: route.url,
      schema: { tags: ['schemas'], ...route.schema },
      ...(route.config ? { config: route.config } : {}),
      handler: (request, reply) => route.handler(request, reply, context),
    });
  }
}
