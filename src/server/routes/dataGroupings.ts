import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { DqError, isJsonObject, tableKey, type JsonObject } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { capabilitiesFor, requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf, type TablePath } from './tables.js';

/**
 * DQOps's `data_grouping_configurations` group: the named data groupings of a table (`spec.groupings`) and which
 * one is the default (`spec.default_grouping_name`). Each write is an update of the table, validated as a table
 * spec. Creating a name that exists answers 409, reading, replacing or deleting a missing one 404.
 */
export async function dataGroupingsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['data_grouping_configurations'];
  const URL = `${TABLE_URL}/groupings`;
  const nameParams = (key: string) => ({
    type: 'object',
    properties: { ...TABLE_PARAMS.properties, [key]: { type: 'string', description: 'data grouping configuration name' } },
    required: [...TABLE_PARAMS.required, key],
  });
  const nameOf = (request: FastifyRequest, key: string) => checkName('data grouping configuration name', (request.params as Record<string, string>)[key], { slashes: true });
  const groupingsOf = (spec: JsonObject): JsonObject => (isJsonObject(spec.groupings) ? spec.groupings : {});
  const trimmedBody = {
    type: 'object',
    properties: {
      data_grouping_configuration_name: { type: 'string', minLength: 1 },
      spec: ref('DataGroupingConfigurationSpec'),
      can_edit: { type: 'boolean', description: 'accepted and ignored' },
      yaml_parsing_error: { type: 'string', description: 'accepted and ignored' },
    },
  };
  const write = async (request: FastifyRequest, path: TablePath, change: (groupings: JsonObject, spec: JsonObject, table: string) => JsonObject) => {
    await requireTable(context, path);
    await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
      const spec = change({ ...groupingsOf(current.spec) }, current.spec, current.name);
      refuseInvalidTableSpec({ groupings: spec.groupings ?? {} }, ['spec'], 'data grouping configuration');
      return { spec };
    });
  };
  const missing = (name: string, table: string) => new DqError('NOT_FOUND', `data grouping configuration ${JSON.stringify(name)} not found in table ${JSON.stringify(table)}`);

  api.get(
    URL,
    {
      schema: {
        tags,
        operationId: 'get_table_grouping_configurations',
        summary: 'get_table_grouping_configurations: the named data groupings of the table, sorted by name',
        params: TABLE_PARAMS,
        response: { 200: { type: 'array', items: { type: 'object', additionalProperties: true } } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      const defaultName = typeof live.spec.default_grouping_name === 'string' ? live.spec.default_grouping_name : undefined;
      const { can_edit } = capabilitiesFor(context, request, live);
      return Object.keys(groupingsOf(live.spec))
        .sort()
        .map((name) => ({
          connection_name: path.connection,
          schema_name: path.schema,
          table_name: path.table,
          data_grouping_configuration_name: name,
          default_data_grouping_configuration: name === defaultName,
          can_edit,
        }));
    },
  );

  api.get(
    `${URL}/:groupingConfigurationName`,
    {
      schema: {
        tags,
        operationId: 'get_table_grouping_configuration',
        summary: 'get_table_grouping_configuration: one named data grouping of the table',
        params: nameParams('groupingConfigurationName'),
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const name = nameOf(request, 'groupingConfigurationName');
      const live = await requireTable(context, path);
      const grouping = groupingsOf(live.spec)[name];
      if (!isJsonObject(grouping)) throw missing(name, live.name);
      return {
        connection_name: path.connection,
        schema_name: path.schema,
        table_name: path.table,
        data_grouping_configuration_name: name,
        spec: grouping,
        can_edit: capabilitiesFor(context, request, live).can_edit,
      };
    },
  );

  api.post(
    URL,
    { schema: { tags, operationId: 'create_table_grouping_configuration', summary: 'create_table_grouping_configuration: adds a named data grouping; 201, 409 when the name exists', params: TABLE_PARAMS, body: { ...trimmedBody, required: ['data_grouping_configuration_name'] } } },
    async (request, reply) => {
      const body = request.body as { data_grouping_configuration_name: string; spec?: JsonObject };
      const name = checkName('data grouping configuration name', body.data_grouping_configuration_name, { slashes: true });
      await write(request, tablePathOf(request), (groupings, spec, table) => {
        if (name in groupings) throw new DqError('ALREADY_EXISTS', `data grouping configuration ${JSON.stringify(name)} already exists in table ${JSON.stringify(table)}`);
        return { ...spec, groupings: { ...groupings, [name]: body.spec ?? {} } };
      });
      return reply.status(201).send();
    },
  );

  api.put(
    `${URL}/:dataGroupingConfigurationName`,
    { schema: { tags, operationId: 'update_table_grouping_configuration', summary: 'update_table_grouping_configuration: replaces a named data grouping (and renames it when the body names another); 204', params: nameParams('dataGroupingConfigurationName'), body: trimmedBody } },
    async (request, reply) => {
      const name = nameOf(request, 'dataGroupingConfigurationName');
      const body = request.body as { data_grouping_configuration_name?: string; spec?: JsonObject };
      const newName = body.data_grouping_configuration_name ? checkName('data grouping configuration name', body.data_grouping_configuration_name, { slashes: true }) : name;
      await write(request, tablePathOf(request), (groupings, spec, table) => {
        if (!(name in groupings)) throw missing(name, table);
        delete groupings[name];
        groupings[newName] = body.spec ?? {};
        const next: JsonObject = { ...spec, groupings };
        if (spec.default_grouping_name === name) next.default_grouping_name = newName;
        return next;
      });
      return reply.status(204).send();
    },
  );

  api.patch(
    `${URL}/setdefault`,
    {
      schema: {
        tags,
        operationId: 'set_table_default_grouping_configuration',
        summary: 'set_table_default_grouping_configuration: names the default data grouping of the table; 204',
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { dataGroupingConfigurationName: { type: 'string', minLength: 1 }, data_grouping_configuration_name: { type: 'string', minLength: 1 } } },
      },
    },
    async (request, reply) => {
      const query = request.query as { dataGroupingConfigurationName?: string; data_grouping_configuration_name?: string };
      const wanted = query.dataGroupingConfigurationName ?? query.data_grouping_configuration_name;
      if (!wanted) throw new DqError('INVALID_ARGUMENT', 'dataGroupingConfigurationName is required');
      const name = checkName('data grouping configuration name', wanted, { slashes: true });
      await write(request, tablePathOf(request), (groupings, spec, table) => {
        if (!(name in groupings)) throw missing(name, table);
        return { ...spec, default_grouping_name: name };
      });
      return reply.status(204).send();
    },
  );

  api.delete(
    `${URL}/:dataGroupingConfigurationName`,
    { schema: { tags, operationId: 'delete_table_grouping_configuration', summary: 'delete_table_grouping_configuration: removes a named data grouping (and the default name when it was the default); 204', params: nameParams('dataGroupingConfigurationName') } },
    async (request, reply) => {
      const name = nameOf(request, 'dataGroupingConfigurationName');
      await write(request, tablePathOf(request), (groupings, spec, table) => {
        if (!(name in groupings)) throw missing(name, table);
        delete groupings[name];
        const { default_grouping_name, ...rest } = spec;
        return default_grouping_name === name ? { ...rest, groupings } : { ...spec, groupings };
      });
      return reply.status(204).send();
    },
  );
}
