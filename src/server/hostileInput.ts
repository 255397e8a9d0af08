import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DqError, findUnstorableText, findUnstorableValue, jsonPointer } from '../model/index.js';

/**
 * One guard for every route: a path parameter, query parameter or JSON body holding text PostgreSQL cannot
 * store (a NUL, a lone surrogate) is refused with 400 here, before any handler runs and so before any SQL.
 * A preValidation hook: it runs after authentication and authorization (onRequest, see auth.ts) and after the
 * body is parsed, before the schema validation and the handler.
 */
export function registerHostileInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    refuseInParameters(request.params, 'path parameter');
    refuseInParameters(request.query, 'query parameter');
    const body = request.body;
    // raw bodies (the webhook's Buffer) are bytes, not text; they never reach SQL as text
    if (body === undefined || body === null || ArrayBuffer.isView(body)) return;
    const found = findUnstorableValue(body);
    if (found) {
      const where = jsonPointer(found.path);
      throw new DqError('BODY_INVALID', `the request body holds ${found.reason} ${found.inKey ? 'in the key' : 'at'} ${where}; it cannot be stored`, {
        violations: [{ path: where, message: `must not contain ${found.reason}`, keyword: 'storableText' }],
      });
    }
  });
}

function refuseInParameters(parameters: FastifyRequest['params'] | FastifyRequest['query'], what: string): void {
  if (parameters === null || typeof parameters !== 'object') return;
  for (const [name, value] of Object.entries(parameters as Record<string, unknown>)) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value])]) {
      if (typeof text !== 'string') continue;
      const found = findUnstorableText(text);
      if (found) throw new DqError('INVALID_ARGUMENT', `the ${what} ${JSON.stringify(name.replace(/[\u0000\ud800-\udfff]/g, '?'))} holds ${found.reason}; it cannot be stored`);
    }
  }
}
