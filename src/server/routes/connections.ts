import type { FastifyInstance, FastifyRequest } from 'fastify';
import { connectionModel, fromBasicModel, hashNumber } from '../../app/connectionModels.js';
import { redactSpec, withSecrets } from '../../app/connectionSecrets.js';
import { validateConnectionSpec } from '../../app/connectionSpecValidation.js';
import { listConnections } from '../../app/connectionList.js';
import { pagingOf, type PagingRequest } from '../../app/listPaging.js';
import { PAGING_QUERY } from '../pagingQuery.js';
import { DqError, isJsonObject, tableKeyPrefix, type JsonObject, type JsonValue, type LiveObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { capabilitiesOf, type Capabilities, type ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { answerWithStoredDataCleanup } from '../storedDataCleanup.js';

/**
 * Connections (objects of kind source, named after their folder under sources/). Responses never carry a
 * secret: literal secret values read `(sensitive)`, `${…}` references are shown as written; a `(sensitive)`
 * sent back in an update keeps the stored value, so a client may PUT what it GOT. Every write is validated with
 * the JSON Schema of connection files, so the API cannot store what `dqctl validate` would refuse. Deleting a
 * connection deletes its tables in the same transaction.
 */
export const SCHEDULING_GROUPS = ['profiling', 'monitoring_daily', 'monitoring_monthly', 'partitioned_daily', 'partitioned_monthly'] as const;
export type SchedulingGroup = (typeof SCHEDULING_GROUPS)[number];

/** The connection name of a route's `:connectionName`, refused (400) when hostile. */
export function connectionNameOf(request: FastifyRequest): string {
  return checkName('connection name', (request.params as { connectionName: string }).connectionName);
}

export function writerOf(request: FastifyRequest): { caller: string } {
  return { caller: `api:${request.caller.name}` };
}

/** The connection, or 404 naming it. */
export async function requireConnection(context: ServerContext, name: string): Promise<LiveObject> {
  const live = await context.objects.get('source', name);
  if (!live) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
  return live;
}

/** The caller's capabilities on a live object (no edit on git-managed objects of a --read-only-managed server). */
export function capabilitiesOn(context: ServerContext, request: FastifyRequest, live?: LiveObject): Capabilities {
  return capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
}

/** The connection spec keys served as their own resources: path segment → spec key, model, empty value. */
const PARTS = [
  { segment: 'incidentgrouping', key: 'incident_grouping', model: ref('ConnectionIncidentGroupingSpec'), empty: {}, op: 'connection_incident_grouping' },
  { segment: 'comments', key: 'comments', model: arrayOf('CommentSpec'), empty: [], op: 'connection_comments' },
  { segment: 'labels', key: 'labels', model: { type: 'array', items: { type: 'string' } }, empty: [], op: 'connection_labels' },
  {
    segment: 'defaultgroupingconfiguration',
    key: 'default_grouping_configuration',
    model: ref('DataGroupingConfigurationSpec'),
    empty: {},
    op: 'connection_default_grouping_configuration',
  },
] as const;

export async function connectionsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['connections'];
  const params = {
    type: 'object',
    properties: { connectionName: { type: 'string', description: 'connection name (the folder under sources/)' } },
    required: ['connectionName'],
  };

  /** Replaces one key of a connection spec (PUT of a part): 404 for an unknown connection, 204. */
  const replacePart = async (request: FastifyRequest, key: string, value: JsonValue): Promise<void> => {
    const name = connectionNameOf(request);
    await context.objects.update('source', name, writerOf(request), (current) => {
      const spec: JsonObject = { ...current.spec, [key]: value };
      const restored = withSecrets(spec, current.spec);
      return { spec: validateConnectionSpec(restored, [key]) };
    });
  };

  api.get(
    '/connections',
    {
      schema: {
        tags,
        operationId: 'get_all_connections',
        summary: 'get_all_connections: every connection, sorted by name; dqctl also takes filter (a connection name pattern) and page or limit',
        querystring: { type: 'object', properties: { ...PAGING_QUERY, filter: { type: 'string', description: 'connection name pattern: name, prefix*, *suffix, *contains*, pre*post; case is ignored' } } },
        response: { 200: arrayOf('ConnectionModel') },
      },
    },
    async (request) => {
      const query = request.query as PagingRequest & { filter?: string };
      return listConnections(context.objects, { filter: query.filter, paging: pagingOf(query) }, (live) => capabilitiesOn(context, request, live));
    },
  );

  api.get(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'get_connection', summary: 'get_connection: the full specification', params, response: { 200: ref('ConnectionSpecificationModel') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return {
        connection_name: live.name,
        connection_hash: hashNumber(live.contentHash),
        spec: redactSpec(live.spec),
        can_edit: capabilitiesOn(context, request, live).can_edit,
      };
    },
  );

  api.post(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'create_connection', summary: 'create_connection: from a full specification', params, body: ref('ConnectionSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const spec = validateConnectionSpec(withSecrets(request.body as JsonObject, undefined));
      await context.objects.create('source', name, spec, writerOf(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'update_connection', summary: 'update_connection: replaces the specification', params, body: ref('ConnectionSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      await context.objects.update('source', name, writerOf(request), (current) => ({
        spec: validateConnectionSpec(withSecrets(request.body as JsonObject, current.spec)),
      }));
      return reply.status(204).send();
    },
  );

  api.delete(
    '/connections/:connectionName',
    {
      schema: {
        tags,
        operationId: 'delete_connection', summary: 'delete_connection: the connection and all its tables, in one transaction',
        description:
          "Answers 200 with the id of the job that then deletes the connection's stored results, errors, error samples and statistics (as DQOps does).",
        params,
        response: { 200: ref('DqoQueueJobId') },
      },
    },
    async (request, reply) => {
      const name = connectionNameOf(request);
      await requireConnection(context, name);
      const deleted = await context.objects.deleteMany([{ kind: 'source', name }], writerOf(request), {
        children: [{ kind: 'table', namePrefix: tableKeyPrefix(name) }],
      });
      if (deleted === 0) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
      return answerWithStoredDataCleanup(context, request, reply, { connection: name });
    },
  );

  api.get(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'get_connection_basic', summary: 'get_connection_basic', params, response: { 200: ref('ConnectionModel') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return connectionModel(live, capabilitiesOn(context, request, live));
    },
  );

  api.post(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'create_connection_basic', summary: 'create_connection_basic: from a ConnectionModel', params, body: ref('ConnectionModel') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const spec = validateConnectionSpec(withSecrets(fromBasicModel(request.body as JsonObject, name), undefined));
      await context.objects.create('source', name, spec, writerOf(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'update_connection_basic', summary: 'update_connection_basic: the basic settings; the rest of the spec is kept', params, body: ref('ConnectionModel') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const basic = fromBasicModel(request.body as JsonObject, name);
      await context.objects.update('source', name, writerOf(request), (current) => ({
        spec: validateConnectionSpec(withSecrets({ ...current.spec, ...basic }, current.spec)),
      }));
      return reply.status(204).send();
    },
  );

  for (const part of PARTS) {
    api.get(
      `/connections/:connectionName/${part.segment}`,
      { schema: { tags, operationId: `get_${part.op}`, summary: `get_${part.op}`, params, response: { 200: part.model } } },
      async (request) => {
        const live = await requireConnection(context, connectionNameOf(request));
        return live.spec[part.key] ?? part.empty;
      },
    );
    api.put(
      `/connections/:connectionName/${part.segment}`,
      { schema: { tags, operationId: `update_${part.op}`, summary: `update_${part.op}`, params, body: part.model } },
      async (request, reply) => {
        await replacePart(request, part.key, request.body as JsonValue);
        return reply.status(204).send();
      },
    );
  }

  const scheduleParams = {
    type: 'object',
    properties: {
      connectionName: params.properties.connectionName,
      schedulingGroup: { type: 'string', description: SCHEDULING_GROUPS.join(', ') },
    },
    required: ['connectionName', 'schedulingGroup'],
  };
  const groupOf = (request: FastifyRequest): SchedulingGroup => {
    const group = (request.params as { schedulingGroup: string }).schedulingGroup;
    if (!(SCHEDULING_GROUPS as readonly string[]).includes(group)) {
      throw new DqError('INVALID_ARGUMENT', `unknown scheduling group ${JSON.stringify(group)}; one of ${SCHEDULING_GROUPS.join(', ')}`);
    }
    return group as SchedulingGroup;
  };

  api.get(
    '/connections/:connectionName/schedules/:schedulingGroup',
    { schema: { tags, operationId: 'get_connection_scheduling_group', summary: 'get_connection_scheduling_group', params: scheduleParams, response: { 200: ref('CronScheduleSpec') } } },
    async (request) => {
      const name = connectionNameOf(request);
      const group = groupOf(request);
      const live = await requireConnection(context, name);
      const schedules = isJsonObject(live.spec.schedules) ? live.spec.schedules : {};
      return schedules[group] ?? {};
    },
  );

  api.put(
    '/connections/:connectionName/schedules/:schedulingGroup',
    { schema: { tags, operationId: 'update_connection_scheduling_group', summary: 'update_connection_scheduling_group', params: scheduleParams, body: ref('CronScheduleSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const group = groupOf(request);
      await context.objects.update('source', name, writerOf(request), (current) => {
        const schedules = isJsonObject(current.spec.schedules) ? current.spec.schedules : {};
        const spec: JsonObject = { ...current.spec, schedules: { ...schedules, [group]: request.body as JsonObject } };
        return { spec: validateConnectionSpec(spec, ['schedules', group]) };
      });
      return reply.status(204).send();
    },
  );

  api.get(
    '/connections/:connectionName/autoimport',
    { schema: { tags, operationId: 'get_connection_auto_import', summary: 'get_connection_auto_import: auto_import_tables of the connection ({} when unset)', params, response: { 200: ref('AutoImportTablesSpec') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return live.spec.auto_import_tables ?? {};
    },
  );

  api.put(
    '/connections/:connectionName/autoimport',
    { schema: { tags, operationId: 'update_connection_auto_import', summary: 'update_connection_auto_import', params, body: ref('AutoImportTablesSpec') } },
    async (request, reply) => {
      await replacePart(request, 'auto_import_tables', request.body as JsonValue);
      return reply.status(204).send();
    },
  );

  api.get(
    '/connections/:connectionName/commoncolumns',
    {
      schema: {
        tags,
        operationId: 'get_connection_common_columns', summary: 'get_connection_common_columns: column names of the connection\'s tables, counted, by name descending',
        params,
        response: { 200: arrayOf('CommonColumnModel') },
      },
    },
    async (request) => {
      const name = connectionNameOf(request);
      await requireConnection(context, name);
      const counts = new Map<string, number>();
      for (const table of await context.objects.list('table', tableKeyPrefix(name))) {
        const columns = table.spec.columns;
        if (!isJsonObject(columns)) continue;
        for (const column of Object.keys(columns)) counts.set(column, (counts.get(column) ?? 0) + 1);
      }
      return [...counts]
        .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
        .map(([column_name, tables_count]) => ({ column_name, tables_count }));
    },
  );
}
