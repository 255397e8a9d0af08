import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_BUILD_DIR } from '../app/packageFiles.js';
import type { NotFoundFallback } from './errorHandler.js';
import { METRICS_PATH } from './metricsRoute.js';

/**
 * The web console (src/console, built by vite into dist/console during `npm ci`): its files at `/`, and
 * index.html for every other GET outside /api so that a view's URL (`/tables/…`, `/lineage?…`) survives a
 * reload. Everything outside /api carries a Content-Security-Policy that allows scripts from this origin only
 * (no inline script, no eval) and refuses framing. The console's files hold no data: they need no token; the
 * data comes from /api, which does.
 */
export const CONSOLE_DIR = CONSOLE_BUILD_DIR;

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Preact sets style properties through the CSSOM, which CSP does not restrict; no style attribute is written.
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export async function registerConsole(app: FastifyInstance, dir: string = CONSOLE_DIR): Promise<NotFoundFallback> {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isApi(request.url.split('?')[0])) {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    }
    return payload;
  });
  const built = existsSync(join(dir, 'index.html'));
  if (built) {
    // wildcard: false registers one route per built file, so unknown paths reach the fallback below
    await app.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: false, cacheControl: false });
  }
  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (!built) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send(`The web console is not built in ${dir}.\nRun \`npm run build\` in the dqctl folder (npm ci builds it too). The API is at /api (docs: /api/docs).\n`);
    }
    // the page names its hashed assets: it must be revalidated, they may be cached for long
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
  };
  app.get('/', { schema: { hide: true } }, page);
  // A view's URL is served by the not-found handler rather than a `/*` route: a wildcard route would also
  // catch /api paths that the router refuses (a parameter over maxParamLength), which must keep their error.
  return async (request, reply) => {
    const path = request.url.split('?')[0];
    // /metrics is not a page either: on the API port it is absent under --metrics-port, and answers 404
    if ((request.method !== 'GET' && request.method !== 'HEAD') || isApi(path) || path === METRICS_PATH) return false;
    await page(request, reply);
    return true;
  };
}
