import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, type JsonObject, type LiveObject } from '../../model/index.js';
import { arrayOf } from '../apiSchemas.js';
import type { Capabilities, ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { capabilitiesOn, connectionNameOf, jobTemplates, requireConnection } from './connections.js';

/**
 * Schemas of a connection. A schema is not an object of its own: it is the part before the first dot of the
 * names of the connection's tables (`conn/schema.table`), so a connection's schemas are the distinct schemas of
 * its tables and a schema with no table does not exist (404).
 *
 * The routes are listed in SCHEMA_ROUTES, one entry a route; the helpers below (schemaNameOf, requireSchema,
 * tablesOfSchema, schemaModel) are what a schema-level route needs, so adding one is adding an entry.
 */

/** The schema part of a table object name `conn/schema.table`. */
export function schemaOfTableName(connection: string, tableObjectName: string): string {
  const rest = tableObjectName.slice(connection.length + 1);
  const dot = rest.indexOf('.');
  return dot < 0 ? rest : rest.slice(0, dot);
}

/** The schema name of a route's `:schemaName`, refused (400) when hostile. */
export function schemaNameOf(request: FastifyRequest): string {
  return checkName('schema name', (request.params as { schemaName: string }).schemaName);
}

/** The tables of one schema of a connection (live objects, sorted by name). */
export function tablesOfSchema(context: ServerContext, connection: string, schema: string): Promise<LiveObject[]> {
  return context.objects.list('table', `${connection}/${schema}.`);
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
      for (const table of await context.objects.list('table', `${name}/`)) schemas.add(schemaOfTableName(name, table.name));
      return [...schemas].sort().map((schema) => schemaModel(name, schema, caps));
    },
  },
];

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
