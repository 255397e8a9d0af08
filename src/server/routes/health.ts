import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';

/**
 * GET /api/healthcheck (DQOps's `is_healthy`): for load balancers and container probes, so it needs no token
 * (auth.ts) and tells nothing about the data. 200 when the live store answers within 2 s, 503 otherwise (a
 * PostgreSQL store that went away, a full pool), with the reason; the answer is never cached.
 */
export const HEALTHCHECK_PATH = '/api/healthcheck';
const STORE_TIMEOUT_MS = 2_000;

export async function healthRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  api.get(
    '/healthcheck',
    {
      schema: {
        tags: ['health'],
        operationId: 'is_healthy',
        summary: 'is_healthy: 200 when the server and its live store answer, 503 otherwise; no token needed',
        response: {
          200: { type: 'object', properties: { status: { type: 'string' }, store: { type: 'string' } } },
          503: { type: 'object', properties: { status: { type: 'string' }, store: { type: 'string' }, reason: { type: 'string' } } },
        },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-store');
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          context.store.revision(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`the store did not answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
          }),
        ]);
        return reply.status(200).send({ status: 'ok', store: context.store.engine });
      } catch (error) {
        return reply.status(503).send({ status: 'unavailable', store: context.store.engine, reason: (error as Error).message });
      } finally {
        clearTimeout(timer);
      }
    },
  );
}
