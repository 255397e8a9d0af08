import Fastify, { type FastifyInstance } from 'fastify';
import type { ServerMetrics } from './metrics.js';

/**
 * GET /metrics: on the API's own listener it is a read like any other (a viewer token when tokens are on, auth.ts);
 * `serve --metrics-port` serves it instead on a listener of its own, without tokens, for a scraper on a private
 * network that should hold no API token. Either way it is outside /api: it is not part of DQOps's REST interface.
 */
export const METRICS_PATH = '/metrics';

export function registerMetricsRoute(app: FastifyInstance, metrics: ServerMetrics): void {
  app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.render();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}

/** Every answered request, by its route pattern (`/api/connections/:connectionName`, never the URL: names are unbounded). */
export function registerRequestMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
}

/** The listener of `serve --metrics-port`: GET /metrics and nothing else. */
export async function buildMetricsServer(metrics: ServerMetrics): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerMetricsRoute(app, metrics);
  await app.ready();
  return app;
}
