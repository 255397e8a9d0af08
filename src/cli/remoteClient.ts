import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Dispatcher, Response } from 'undici';
import type { GitopsRequest } from '../app/gitopsRequest.js';
import { DqError, ERROR_CODES, type ErrorCode } from '../model/index.js';
import { parseDuration } from './duration.js';
import type { CliIo } from './io.js';
import type { StoreFlags } from './storeOptions.js';

const gzipAsync = promisify(gzip);

/**
 * The client of a running `dqctl serve` for `plan|apply --server` (POSTs the desired state, gzipped) and
 * `run checks --server` (starts the job and follows it), with the bearer token. It turns the server's coded
 * errors back into the same DqErrors (and so the same exit codes) a local command would raise. A server that
 * cannot be reached, does not answer within --timeout, or answers with something that is not a dqctl error body, is
 * SERVER_UNREACHABLE, said in one line.
 *
 * Requests go through undici's EnvHttpProxyAgent, so HTTP_PROXY / HTTPS_PROXY / NO_PROXY (or their lower-case
 * forms) apply as in other CLI tools. Idempotent requests (GETs, and the read-only remote plan) are retried on a
 * refused or reset connection and on 502/503/504 (a server restarting behind a proxy); an apply is never retried:
 * its outcome is not known when the answer is lost, and `dqctl status` tells.
 */
export interface RemoteFlags {
  server?: string;
  token?: string;
  /** Longest wait for one answer, e.g. `30s`, `2m` (default 2m). */
  timeout?: string;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
/** Connecting takes milliseconds on a working network; past this the address is wrong or filtered. */
const CONNECT_TIMEOUT_MS = 10_000;
const RETRIES = 2;
const RETRY_DELAY_MS = 300;

export interface RemoteTarget {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8888`. */
  url: string;
  token?: string;
  /** Longest wait for one answer, connecting included. */
  timeoutMs?: number;
  /** Retries of idempotent requests (default 2). */
  retries?: number;
  /** Proxy settings (default: the process environment's). */
  env?: NodeJS.ProcessEnv;
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
  const timeout = options.timeout ?? io.env.DQCTL_TIMEOUT;
  const timeoutMs = timeout ? parseDuration(timeout, '--timeout') : DEFAULT_TIMEOUT_MS;
  if (timeoutMs < 1) throw new DqError('INVALID_ARGUMENT', '--timeout must be longer than 0');
  return { url: base, token, timeoutMs, env: io.env };
}

export async function postGitops<T>(target: RemoteTarget, route: 'plan' | 'apply', body: GitopsRequest): Promise<T> {
  // a plan changes nothing on the server: safe to send again
  return (await callServer<T>(target, 'POST', `/api/gitops/${route}`, body, { gzip: true, idempotent: route === 'plan' }))!;
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
  options: { gzip?: boolean; idempotent?: boolean } = {},
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
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = (options.idempotent ?? method === 'GET') ? (target.retries ?? RETRIES) : 0;
  const { fetch } = await undiciApi();
  const dispatcher = await dispatcherOf(target);
  for (let attempt = 0; ; attempt++) {
    const tried = attempt > 0 ? ` (${attempt + 1} attempts)` : '';
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${target.url}${path}`, { method, headers, body: payload, dispatcher, signal });
      text = await response.text();
    } catch (error) {
      if (signal.aborted) {
        throw new DqError(
          'SERVER_UNREACHABLE',
          `the dqctl server at ${target.url} did not answer ${method} ${path.split('?')[0]} within ${formatMs(timeoutMs)}${tried} (--timeout sets the limit)`,
          { server: target.url, timeout_ms: timeoutMs },
        );
      }
      const why = reason(error);
      if (attempt < retries && RETRYABLE_CODES.has(why)) {
        await sleep(RETRY_DELAY_MS * 2 ** attempt);
        continue;
      }
      throw new DqError('SERVER_UNREACHABLE', `cannot reach the dqctl server at ${target.url}: ${why}${tried}`, { server: target.url });
    }
    if (attempt < retries && RETRYABLE_STATUSES.has(response.status)) {
      await sleep(RETRY_DELAY_MS * 2 ** attempt);
      continue;
    }
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
}

/**
 * One file from the server (a GET that answers bytes, not JSON), streamed into `file` through `file.part` so
 * that a broken download leaves no half file under the name. The wait for the answer's headers is bounded by
 * --timeout, the body by the agent's idle timeout (a large file may take longer than --timeout in all). Retried
 * as callServer retries a GET; an error answer is the server's coded error, as callServer raises it. Answers the
 * response's headers.
 */
export async function downloadFromServer(target: RemoteTarget, path: string, file: string): Promise<Response['headers']> {
  const headers: Record<string, string> = { accept: 'application/octet-stream, application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = target.retries ?? RETRIES;
  const { fetch } = await undiciApi();
  const dispatcher = await dispatcherOf(target);
  for (let attempt = 0; ; attempt++) {
    const tried = attempt > 0 ? ` (${attempt + 1} attempts)` : '';
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${target.url}${path}`, { method: 'GET', headers, dispatcher, signal: abort.signal });
    } catch (error) {
      if (abort.signal.aborted) {
        throw new DqError('SERVER_UNREACHABLE', `the dqctl server at ${target.url} did not answer GET ${path.split('?')[0]} within ${formatMs(timeoutMs)}${tried} (--timeout sets the limit)`, {
          server: target.url,
          timeout_ms: timeoutMs,
        });
      }
      const why = reason(error);
      if (attempt < retries && RETRYABLE_CODES.has(why)) {
        await sleep(RETRY_DELAY_MS * 2 ** attempt);
        continue;
      }
      throw new DqError('SERVER_UNREACHABLE', `cannot reach the dqctl server at ${target.url}: ${why}${tried}`, { server: target.url });
    } finally {
      clearTimeout(timer);
    }
    if (attempt < retries && RETRYABLE_STATUSES.has(response.status)) {
      await response.body?.cancel();
      await sleep(RETRY_DELAY_MS * 2 ** attempt);
      continue;
    }
    if (!response.ok) {
      const text = await response.text();
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        throw new DqError('SERVER_UNREACHABLE', `${target.url} answered HTTP ${response.status} with something that is not JSON; is it a dqctl server? (${text.slice(0, 120).replace(/\s+/g, ' ')})`, {
          server: target.url,
          status: response.status,
        });
      }
      throw remoteError(target, response.status, answer);
    }
    const part = `${file}.part`;
    try {
      if (!response.body) throw new Error('the answer has no body');
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(part));
      await rename(part, file);
    } catch (error) {
      await rm(part, { force: true });
      throw new DqError('SERVER_UNREACHABLE', `the download of GET ${path.split('?')[0]} from ${target.url} broke off: ${reason(error)}`, { server: target.url });
    }
    return response.headers;
  }
}

/** Failures where the request never reached the server's handler, or the server went away: safe to retry a read. */
const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);
/** A proxy or load balancer in front of a server that is restarting. */
const RETRYABLE_STATUSES = new Set([502, 503, 504]);

/** One agent per target: keep-alive between the calls of one command, the proxy settings of its environment. */
const dispatchers = new WeakMap<RemoteTarget, Dispatcher>();

let loadingUndici: Promise<typeof import('undici')> | undefined;

/** undici, loaded by the first request to a server: the commands that talk to none do not pay its loading. */
function undiciApi(): Promise<typeof import('undici')> {
  loadingUndici ??= import('undici');
  return loadingUndici;
}

async function dispatcherOf(target: RemoteTarget): Promise<Dispatcher> {
  let dispatcher = dispatchers.get(target);
  if (!dispatcher) {
    const { EnvHttpProxyAgent } = await undiciApi();
    const env = target.env ?? process.env;
    const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    dispatcher = new EnvHttpProxyAgent({
      httpProxy: env.HTTP_PROXY ?? env.http_proxy ?? '',
      httpsProxy: env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy ?? '',
      noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
      connect: { timeout: Math.min(CONNECT_TIMEOUT_MS, timeoutMs) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // idle sockets must not keep the CLI alive once its command is done
      keepAliveTimeout: 1_000,
    });
    dispatchers.set(target, dispatcher);
  }
  return dispatcher;
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
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
