import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GitopsRequest } from '../app/gitopsRequest.js';
import { DqError, ERROR_CODES, type ErrorCode } from '../model/index.js';
import type { CliIo } from './io.js';
import type { StoreFlags } from './storeOptions.js';

const gzipAsync = promisify(gzip);

/**
 * The client of a running `dqctl serve` for `plan|apply --server` (POSTs the desired state, gzipped) and
 * `run checks --server` (starts the job and follows it), with the bearer token. It turns the server's coded
 * errors back into the same DqErrors (and so the same exit codes) a local command would raise. A server that cannot be reached, or answers with something that is not a dqctl
 * error body, is SERVER_UNREACHABLE.
 */
export interface RemoteFlags {
  server?: string;
  token?: string;
}

export interface RemoteTarget {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8888`. */
  url: string;
  token?: string;
}

/**
 * `--server` (or DQCTL_SERVER_URL when no store flag is given): the command runs through that server. A
 * server together with --database/--state-dir is a contradiction and refused.
 */
export function remoteTargetOf(options: RemoteFlags & StoreFlags, io: CliIo): RemoteTarget | undefined {
  const storeFlag = options.database ? '--database' : options.stateDir ? '--state-dir' : undefined;
  if (options.server && storeFlag) {
    throw new DqError('INVALID_ARGUMENT', `--server runs the command through a dqctl server, which has its own store; drop ${storeFlag}`);
  }
  const raw = options.server || (storeFlag ? undefined : io.env.DQCTL_SERVER_URL) || undefined;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DqError('INVALID_ARGUMENT', `--server must be a URL such as http://127.0.0.1:8888, not ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DqError('INVALID_ARGUMENT', `--server must be an http:// or https:// URL, not ${JSON.stringify(raw)}`);
  }
  const base = url.toString().replace(/\/+$/, '').replace(/\/api$/, '');
  const token = options.token || io.env.DQCTL_TOKEN || undefined;
  return { url: base, token };
}

export async function postGitops<T>(target: RemoteTarget, route: 'plan' | 'apply', body: GitopsRequest): Promise<T> {
  return (await callServer<T>(target, 'POST', `/api/gitops/${route}`, body, { gzip: true }))!;
}

/**
 * One call to the server's API: a JSON body (gzipped when asked: desired states are large), the bearer token,
 * the JSON answer (undefined for 204), or the server's coded error as the same DqError a local command raises.
 */
export async function callServer<T>(
  target: RemoteTarget,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: { gzip?: boolean } = {},
): Promise<T | undefined> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let payload: Buffer | undefined;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = Buffer.from(JSON.stringify(body));
    if (options.gzip) {
      payload = await gzipAsync(payload);
      headers['content-encoding'] = 'gzip';
    }
  }
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, { method, headers, body: payload });
  } catch (error) {
    throw new DqError('SERVER_UNREACHABLE', `cannot reach the dqctl server at ${target.url}: ${reason(error)}`, { server: target.url });
  }
  const text = await response.text();
  if (response.status === 204) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new DqError(
      'SERVER_UNREACHABLE',
      `${target.url} answered HTTP ${response.status} with something that is not JSON; is it a dqctl server? (${text.slice(0, 120).replace(/\s+/g, ' ')})`,
      { server: target.url, status: response.status },
    );
  }
  if (response.ok) return answer as T;
  throw remoteError(target, response.status, answer);
}

function remoteError(target: RemoteTarget, status: number, answer: unknown): DqError {
  const body = (typeof answer === 'object' && answer !== null ? answer : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const message = typeof body.message === 'string' ? body.message : `HTTP ${status}`;
  const details = typeof body.details === 'object' && body.details !== null ? (body.details as Record<string, unknown>) : undefined;
  if (typeof body.code === 'string' && body.code in ERROR_CODES) {
    const code = body.code as ErrorCode;
    const hint = code === 'UNAUTHENTICATED' && !target.token ? ' (pass --token, or set DQCTL_TOKEN)' : '';
    return new DqError(code, `${message}${hint}`, details);
  }
  return new DqError('SERVER_UNREACHABLE', `${target.url} answered HTTP ${status}: ${message}; is it a dqctl server?`, { server: target.url, status });
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const inner = cause instanceof AggregateError && cause.errors.length > 0 ? cause.errors[0] : cause;
    const innerCode = (inner as { code?: unknown }).code;
    return (typeof code === 'string' ? code : typeof innerCode === 'string' ? innerCode : '') || cause.message || error.message;
  }
  return error.message;
}
