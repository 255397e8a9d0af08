import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, ERROR_CODES, isDqError, type ErrorCode } from '../model/index.js';

/**
 * The one error handler: every error answers `{timestamp, status, error, code, message, path, details?}`.
 * Coded errors map to their status; fastify's own (bad JSON, schema, body too large) to ours; anything else is
 * a 500 whose body says nothing about the inside (the log has the stack).
 */
/** The path of a request URL as the body names it: no query, and never more than a line's worth. */
function pathOf(url: string): string {
  const path = url.split('?')[0];
  return path.length > MAX_PATH_SHOWN ? `${path.slice(0, MAX_PATH_SHOWN)}…` : path;
}
const MAX_PATH_SHOWN = 512;

export function errorBody(request: FastifyRequest, status: number, code: string, message: string, details?: unknown) {
  return errorBodyAt(request.url, status, code, message, details);
}

function errorBodyAt(url: string, status: number, code: string, message: string, details?: unknown) {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    code,
    message,
    path: pathOf(url),
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
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'send the body as application/json' };
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'MALFORMED_REQUEST', message: 'the request path is not valid percent-encoded UTF-8' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, code: 'URI_TOO_LONG', message: 'a path parameter is longer than the server accepts' };
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return { status: fastifyError.statusCode, code: 'INVALID_ARGUMENT', message: fastifyError.message };
  }
  return { status: 500, code: 'INTERNAL', message: ERROR_CODES.INTERNAL.description };
}

/**
 * Errors fastify meets before routing (a path that does not decode, a parameter over maxParamLength): the
 * `frameworkErrors` option, so that they too answer the documented body.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, code, message } = translate(error);
  void reply.status(status).type('application/json').send(errorBody(request, status, code, message));
}

/**
 * Errors node's HTTP parser meets before fastify sees a request (request line or headers over 16 KB, a broken
 * request line or header, a timeout): the `clientErrorHandler` option. It writes the documented body on the
 * raw socket, as fastify's default does with its own, and closes the connection.
 */
export function clientErrorHandler(connectionError: Error, socket: Socket): void {
  // node's parse errors carry `code` and the bytes read (`rawPacket`)
  const error = connectionError as Error & { code?: string; rawPacket?: unknown };
  const rawPacket = Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestLine = rawPacket ? rawPacket.subarray(0, 1024).toString('latin1').split('\r\n')[0] : '';
  const target = /^[A-Z]+ (\S+)/.exec(requestLine)?.[1] ?? '';
  let status: number;
  let code: ErrorCode;
  let message: string;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    [status, code, message] = [408, 'REQUEST_TIMEOUT', 'the request was not received in time'];
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    // node counts the request line with the headers; a request line that alone fills the limit is a long URL
    const lineEnds = rawPacket ? rawPacket.includes('\r\n') : true;
    [status, code, message] = lineEnds
      ? [431, 'HEADERS_TOO_LARGE', 'the request headers are larger than the server accepts']
      : [414, 'URI_TOO_LONG', 'the request URL is longer than the server accepts'];
  } else {
    [status, code, message] = [400, 'MALFORMED_REQUEST', `the HTTP request is malformed${error.code ? ` (${error.code})` : ''}`];
  }
  if (socket.writable) {
    const body = JSON.stringify(errorBodyAt(target.startsWith('/') ? target : '', status, code, message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Answers a request no route matched, instead of the 404 (the console's pages); true when it answered. */
export type NotFoundFallback = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

export function registerErrorHandler(app: FastifyInstance, options: { notFoundFallback?: () => NotFoundFallback | undefined } = {}): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, code, message, details } = translate(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).type('application/json').send(errorBody(request, status, code, message, details));
  });
  app.setNotFoundHandler(async (request, reply) => {
    const fallback = options.notFoundFallback?.();
    if (fallback && (await fallback(request, reply))) return reply;
    return reply
      .status(404)
      .send(errorBody(request, 404, 'NOT_FOUND', `route not found: ${request.method} ${request.url.split('?')[0]}`));
  });
}

export function notFound(what: string, name: string): DqError {
  return new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
}
