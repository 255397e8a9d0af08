import type { FastifyInstance } from 'fastify';
import { labelCounts, type LabelHolder } from '../../app/labelCounts.js';
import { DqError } from '../../model/index.js';
import type { ServerContext } from '../context.js';

/**
 * What DQOps's clients ask of the instance itself: `is_healthy` (GET /api/ishealthy, beside dqctl's own
 * /api/healthcheck), the time zones it knows, whether its scheduler runs, and the labels in use. The scheduler
 * of dqctl is started by `dqctl serve` and turned off with --no-schedules; it cannot be started or stopped
 * through the API (501), because replicas sharing a store must agree on it.
 */
export async function instanceRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  api.get(
    '/ishealthy',
    { schema: { tags: ['healthcheck'], operationId: 'is_healthy_dqops', summary: 'is_healthy (DQOps path): "OK" when the live store answers, 503 otherwise' } },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      await context.store.revision();
      // a JSON string, which is what DQOps's client parses
      return reply.type('application/json').send(JSON.stringify('OK'));
    },
  );

  api.get(
    '/timezones',
    { schema: { tags: ['timezones'], operationId: 'get_available_zone_ids', summary: 'get_available_zone_ids: the IANA time zones this server knows, sorted', response: { 200: { type: 'array', items: { type: 'string' } } } } },
    async () => [...Intl.supportedValuesOf('timeZone'), 'UTC'].filter((z, i, all) => all.indexOf(z) === i).sort(),
  );

  api.get(
    '/jobs/scheduler/isrunning',
    { schema: { tags: ['jobs'], operationId: 'is_cron_scheduler_running', summary: "is_cron_scheduler_running: whether this server runs the connections' schedules", response: { 200: { type: 'boolean' } } } },
    async () => context.schedulesRunning === true,
  );
  for (const action of ['start', 'stop'] as const) {
    api.post(
      `/jobs/scheduler/status/${action}`,
      { schema: { tags: ['jobs'], operationId: `${action}_cron_scheduler`, summary: `${action}_cron_scheduler: 501, the scheduler follows dqctl serve (--no-schedules turns it off)` }, config: { role: 'operator' } },
      async () => {
        throw new DqError('NOT_IMPLEMENTED', `the scheduler cannot be ${action === 'start' ? 'started' : 'stopped'} through the API: dqctl serve runs it, and serve --no-schedules turns it off`);
      },
    );
  }

  const labelQuery = {
    type: 'object',
    properties: { page: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1 }, prefix: { type: 'string' }, filter: { type: 'string' } },
  };
  const labelModel = {
    type: 'object',
    properties: { label: { type: 'string' }, labels_count: { type: 'integer' }, nested_labels_count: { type: 'integer' } },
  };
  for (const holder of ['connections', 'tables', 'columns'] as const satisfies readonly LabelHolder[]) {
    api.get(
      `/labels/${holder}`,
      {
        schema: {
          tags: ['labels'],
          operationId: `get_all_labels_for_${holder}`,
          summary: `get_all_labels_for_${holder}: every label of ${holder} with how many carry it, sorted by label`,
          querystring: labelQuery,
          response: { 200: { type: 'array', items: labelModel } },
        },
      },
      async (request) => {
        const query = request.query as { page?: number; limit?: number; prefix?: string; filter?: string };
        const all = await labelCounts(context.objects, holder, { prefix: query.prefix, contains: query.filter });
        const limit = query.limit ?? all.length;
        const start = ((query.page ?? 1) - 1) * limit;
        return all.slice(start, start + limit);
      },
    );
  }
}
