import type { FastifyInstance } from 'fastify';

/**
 * One structured line per request: method, path (no query string: it may carry values), status, duration
 * and the caller's name. Headers are never logged, so tokens cannot leak into logs.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        caller: request.caller?.name ?? 'anonymous',
      },
      'request',
    );
  });
}
