import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { DqError, isJsonObject, tableKey, type JsonObject } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { SCHEDULING_GROUPS } from './connections.js';
import { capabilitiesFor, requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf } from './tables.js';

/**
 * Two settings of a table DQOps serves on their own: its partitioning (`timestamp_columns` and
 * `incremental_time_window`, GET|PUT …/partitioning) and the schedules that override its connection's for one
 * scheduling group (`schedules_override`, GET|PUT …/schedulesoverride/{group}). dqctl keeps `schedules_override`
 * in the table file but schedules by connection and by check (docs/repository.md: "Files DQOps writes").
 */
export async function tableSettingsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['tables'];
  const partitioningModel = {
    type: 'object',
    properties: {
      connection_name: { type: 'string' },
      target: { type: 'object', properties: { schema_name: { type: 'string' }, table_name: { type: 'string' } } },
      timestamp_columns: ref('TimestampColumnsSpec'),
      incremental_time_window: { type: 'object', additionalProperties: true },
      can_edit: { type: 'boolean' },
    },
  };

  api.get(
    `${TABLE_URL}/partitioning`,
    { schema: { tags, operationId: 'get_table_partitioning', summary: 'get_table_partitioning: timestamp columns and the incremental time window of the table', params: TABLE_PARAMS, response: { 200: partitioningModel } } },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      return {
        connection_name: path.connection,
        target: { schema_name: path.schema, table_name: path.table },
        timestamp_columns: isJsonObject(live.spec.timestamp_columns) ? live.spec.timestamp_columns : {},
        incremental_time_window: isJsonObject(live.spec.incremental_time_window) ? live.spec.incremental_time_window : {},
        can_edit: capabilitiesFor(context, request, live).can_edit,
      };
    },
  );

  api.put(
    `${TABLE_URL}/partitioning`,
    {
      schema: {
        tags,
        operationId: 'update_table_partitioning',
        summary: 'update_table_partitioning: replaces timestamp_columns and incremental_time_window (the other fields of the body are ignored); 204',
        params: TABLE_PARAMS,
        body: { type: 'object', additionalProperties: true, properties: { timestamp_columns: { type: 'object' }, incremental_time_window: { type: 'object' } } },
      },
    },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const body = request.body as JsonObject;
      const part: JsonObject = {};
      if (isJsonObject(body.timestamp_columns)) part.timestamp_columns = body.timestamp_columns;
      if (isJsonObject(body.incremental_time_window)) part.incremental_time_window = body.incremental_time_window;
      refuseInvalidTableSpec(part, [], 'table partitioning');
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => ({ spec: { ...current.spec, ...part } }));
      return reply.status(204).send();
    },
  );

  const groupParams = {
    type: 'object',
    properties: { ...TABLE_PARAMS.properties, schedulingGroup: { type: 'string', description: SCHEDULING_GROUPS.join(', ') } },
    required: [...TABLE_PARAMS.required, 'schedulingGroup'],
  };
  const groupOf = (request: FastifyRequest) => {
    const group = (request.params as { schedulingGroup: string }).schedulingGroup;
    if (!(SCHEDULING_GROUPS as readonly string[]).includes(group)) {
      throw new DqError('INVALID_ARGUMENT', `unknown scheduling group ${JSON.stringify(group)}; one of ${SCHEDULING_GROUPS.join(', ')}`);
    }
    return group;
  };

  api.get(
    `${TABLE_URL}/schedulesoverride/:schedulingGroup`,
    { schema: { tags, operationId: 'get_table_scheduling_group_override', summary: 'get_table_scheduling_group_override: one group of schedules_override ({} when unset)', params: groupParams, response: { 200: ref('CronScheduleSpec') } } },
    async (request) => {
      const group = groupOf(request);
      const live = await requireTable(context, tablePathOf(request));
      const overrides = isJsonObject(live.spec.schedules_override) ? live.spec.schedules_override : {};
      return overrides[group] ?? {};
    },
  );

  api.put(
    `${TABLE_URL}/schedulesoverride/:schedulingGroup`,
    { schema: { tags, operationId: 'update_table_scheduling_group_override', summary: 'update_table_scheduling_group_override: replaces one group of schedules_override; 204', params: groupParams, body: ref('CronScheduleSpec') } },
    async (request, reply) => {
      const group = groupOf(request);
      const path = tablePathOf(request);
      await requireTable(context, path);
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
        const overrides = isJsonObject(current.spec.schedules_override) ? current.spec.schedules_override : {};
        const spec: JsonObject = { ...current.spec, schedules_override: { ...overrides, [group]: request.body as JsonObject } };
        refuseInvalidTableSpec({ schedules_override: spec.schedules_override }, [], 'schedule override');
        return { spec };
      });
      return reply.status(204).send();
    },
  );
}
