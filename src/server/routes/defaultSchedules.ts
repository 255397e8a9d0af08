import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defaultSchedule, replaceDefaultSchedule } from '../../app/defaultSchedules.js';
import { DqError, type JsonObject } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { SCHEDULING_GROUPS } from './connections.js';
import { writerOf } from './tables.js';

/**
 * DQOps's default schedules (`defaults` group: GET|PUT /api/defaults/defaultschedule/{schedulingGroup}): the
 * schedules a new connection starts with, kept as the object `default_schedules/default` (the file
 * settings/defaultschedules.dqoschedules.yaml). A PUT writes one group and creates the object when missing.
 */
export async function defaultSchedulesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['defaults'];
  const params = {
    type: 'object',
    properties: { schedulingGroup: { type: 'string', description: SCHEDULING_GROUPS.join(', ') } },
    required: ['schedulingGroup'],
  };
  const groupOf = (request: FastifyRequest) => {
    const group = (request.params as { schedulingGroup: string }).schedulingGroup;
    if (!(SCHEDULING_GROUPS as readonly string[]).includes(group)) {
      throw new DqError('INVALID_ARGUMENT', `unknown scheduling group ${JSON.stringify(group)}; one of ${SCHEDULING_GROUPS.join(', ')}`);
    }
    return group;
  };

  api.get(
    '/defaults/defaultschedule/:schedulingGroup',
    { schema: { tags, operationId: 'get_default_schedule', summary: 'get_default_schedule: one group of settings/defaultschedules ({} when unset)', params, response: { 200: ref('CronScheduleSpec') } } },
    async (request) => {
      const group = groupOf(request);
      return defaultSchedule(context.objects, group);
    },
  );

  api.put(
    '/defaults/defaultschedule/:schedulingGroup',
    { schema: { tags, operationId: 'update_default_schedules', summary: 'update_default_schedules: replaces one group of settings/defaultschedules; 204', params, body: ref('CronScheduleSpec') } },
    async (request, reply) => {
      const group = groupOf(request);
      await replaceDefaultSchedule(context.objects, group, request.body as JsonObject, writerOf(request));
      return reply.status(204).send();
    },
  );
}
