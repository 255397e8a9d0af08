import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DqError } from '../model/index.js';
import { ANONYMOUS } from './context.js';
import { WEBHOOK_PATH } from './routes/gitopsStatus.js';
import { HEALTHCHECK_PATH } from './routes/health.js';
import { roleAtLeast, type TokenSet } from './tokens.js';
import { METRICS_PATH } from './metricsRoute.js';

/**
 * Bearer tokens: with a token set, every /api request needs `Authorization: Bearer <token>` (401 without or
 * with an unknown one) and a role at least the route's (403 otherwise). Without tokens every caller is an
 * anonymous admin; `serve` then binds to loopback only. The API docs, the health check and the web console's
 * files (everything outside /api) need no token. The push webhook of the reconcile loop is the one route
 * without a token, and only when a webhook secret is configured: the HMAC signature of its body authenticates it
 * (routes/gitopsStatus.ts checks it before anything happens).
 */
export function registerAuth(app: FastifyInstance, tokens: TokenSet | null, options: { webhook?: boolean } = {}): void {
  if (!tokens) {
    // authentication off: every caller is the anonymous admin, with no hook on the request path
    app.decorateRequest('caller', { getter: () => ANONYMOUS });
    return;
  }
  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0];
    // the console's files (outside /api) hold no data; the console signs in for the API itself. /metrics is a
    // read like the API's and needs a token (or its own listener, serve --metrics-port)
    if (!path.startsWith('/api/') && path !== '/api' && path !== METRICS_PATH) {
      request.caller = { name: 'anonymous', role: 'viewer' };
      return;
    }
    if (path === '/api/openapi.json' || path.startsWith('/api/docs') || path === HEALTHCHECK_PATH || path === '/api/ishealthy') {
      request.caller = { name: 'anonymous', role: 'viewer' };
      return authorize(request);
    }
    if (options.webhook && path === WEBHOOK_PATH) {
      request.caller = { name: 'webhook', role: 'viewer' };
      return authorize(request);
    }
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new DqError('UNAUTHENTICATED', 'this server needs a token: send the header "Authorization: Bearer <token>"');
    const caller = tokens.resolve(match[1]);
    if (!caller) throw new DqError('UNAUTHENTICATED', 'the token is not valid');
    request.caller = caller;
    // authorization in the same hook, before the body is parsed and validated: a viewer's write is a 403
    // whatever its body holds, never a 400 that tells a caller without the right role about the body
    authorize(request);
  });
}

/** The route's role (`config.role`), by default viewer for reads and editor for writes. */
function authorize(request: FastifyRequest): void {
  const required = request.routeOptions.config?.role ?? (request.method === 'GET' || request.method === 'HEAD' ? 'viewer' : 'editor');
  if (!roleAtLeast(request.caller.role, required)) {
    throw new DqError('FORBIDDEN', `${request.caller.name} has the role ${request.caller.role}; this operation needs ${required} or higher`);
  }
}
