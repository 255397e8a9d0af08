import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, ERROR_CODES, isDqError, type ErrorCode } from '../model/index.js';

/**
 * The one error handler: every error answers `{timestamp, status, error, code, message, path, details?}`.
 * Coded errors map to their status; fastify's own (bad JSON, schema, body too large) to ours; anything else is
 * a 500 whose body says nothing about the inside (the log has the stack).
 */
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  423: 'Locked',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export function errorBody(request: FastifyRequest, status: number, code: string, message: string, details?: unknown) {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_TEXT[status] ?? 'Error',
    code,
    message,
    path: request.url.split('?')[0],
    ...(details === undefined ? {} : { details }),
  };
}

function translate(error: FastifyError | Error): { status: number; code: ErrorCode | string; message: string; details?: unknown } {
  if (isDqError(error)) return { status: error.httpStatus, code: error.code, message: error.message, details: error.details };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return {
      status: 400,
      code: 'BODY_INVALID',
      message: `request ${fastifyError.validationContext ?? 'input'} is invalid: ${fastifyError.message}`,
      details: {
        violations: fastifyError.validation.map((v) => ({ path: v.instancePath || '/', message: v.message ?? 'invalid', keyword: v.keyword, params: v.params })),
      },
    };
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'the request body is larger than the server accepts' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'BODY_INVALID', message: `the request body is not valid JSON: ${fastifyError.message}` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'BODY_INVALID', message: 'send the body as application/json' };
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return { status: fastifyError.statusCode, code: 'INVALID_ARGUMENT', message: fastifyError.message };
  }
  return { status: 500, code: 'INTERNAL', message: ERROR_CODES.INTERNAL.description };
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, code, message, details } = translate(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).type('application/json').send(errorBody(request, status, code, message, details));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .send(errorBody(request, 404, 'NOT_FOUND', `route not found: ${request.method} ${request.url.split('?')[0]}`));
  });
}

export function notFound(what: string, name: string): DqError {
  return new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
}
