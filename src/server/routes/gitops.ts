import { PassThrough, Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GitopsRequest } from '../../app/gitopsRequest.js';
import { previewChecks } from '../../app/preview/previewChecks.js';
import type { PreviewRequest } from '../../app/preview/previewRequest.js';
import { applyRequest, planRequest } from '../../app/remoteGitops.js';
import { DqError } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import { canEditDefinitions, type ServerContext } from '../context.js';
import { roleAtLeast } from '../tokens.js';

/**
 * Remote plan and apply (`dqctl plan|apply --server URL`): a CI job sends the desired state it loaded and
 * validated, and this server plans it against its own store and applies it under its own lock, so the job
 * needs the server's URL and a token, never database credentials.
 *
 * Bodies are large (19 MB of JSON for the 10,000-table benchmark, 1.3 MB gzipped): these two routes accept
 * `Content-Encoding: gzip` and have their own body limit (default 100 MB once decompressed; a gzip bomb is cut
 * off at the limit, not inflated whole).
 * Applies are serialized on this server: two remote applies never plan against the same revision.
 *
 * A preview (`dqctl preview --server`) posts the checks a pull request adds or modifies; the server backtests
 * them on its stored readouts (viewers) and runs them live on its own connections and secrets (operators: a
 * check's parameters may hold SQL), storing nothing. The custom rules it posts judge them; a rule whose Python is
 * not the one this server stores is code of the caller's, which only an admin may run here (as only an admin
 * may write it).
 */
export const DEFAULT_GITOPS_BODY_LIMIT = 100 * 1024 * 1024;
const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export async function gitopsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['gitops'];
  const bodyLimit = context.gitopsBodyLimit ?? DEFAULT_GITOPS_BODY_LIMIT;
  const preParsing = async (request: FastifyRequest, _reply: unknown, payload: Readable) => decodeBody(request, payload, bodyLimit);

  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  api.post(
    '/gitops/plan',
    {
      bodyLimit,
      preParsing,
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'gitops_plan',
        summary: 'gitops_plan: plan a desired state against this server’s store (dqctl plan --server); answers the JSON plan of `dqctl plan --format json`',
        body: ref('GitopsRequest'),
      },
    },
    async (request) => planRequest(context.store, request.body as GitopsRequest),
  );

  api.post(
    '/gitops/apply',
    {
      bodyLimit,
      preParsing,
      config: { role: 'operator' },
      schema: {
        tags,
        operationId: 'gitops_apply',
        summary:
          'gitops_apply: plan and apply a desired state under this server’s store lock (dqctl apply --server); answers {plan, applied} as `dqctl apply --format json` prints it; 409 STALE_PLAN when expected_fingerprint no longer matches',
        body: ref('GitopsRequest'),
      },
    },
    async (request) => {
      const body = request.body as GitopsRequest;
      const caller = `api:${request.caller.name}`;
      return oneAtATime(async () => {
        const started = performance.now();
        try {
          const answer = await applyRequest(context.store, body, {
            holder: `${caller} (gitops apply)`,
            appliedBy: body.actor ? `${caller} for ${body.actor}` : caller,
            lockTimeoutMs: body.lock_timeout_ms ?? DEFAULT_LOCK_TIMEOUT_MS,
          });
          // the loop (if any) compares again now: status and the pending plan show this apply at once
          if (answer.applied) void context.reconciler?.storeChanged('apply through the API');
          const seconds = (performance.now() - started) / 1000;
          context.metrics?.observeApply('api', 'applied', seconds);
          request.log.info({ event: 'apply', source: 'api', caller: request.caller.name, applied: answer.applied, duration_ms: Math.round(seconds * 1000) }, 'apply through the API');
          return answer;
        } catch (error) {
          const seconds = (performance.now() - started) / 1000;
          context.metrics?.observeApply('api', 'failed', seconds);
          request.log.warn({ event: 'apply', source: 'api', caller: request.caller.name, error: (error as Error).message, duration_ms: Math.round(seconds * 1000) }, 'apply through the API failed');
          throw error;
        }
      });
    },
  );

  api.post(
    '/gitops/preview',
    {
      bodyLimit,
      preParsing,
      config: { role: 'viewer' },
      schema: {
        tags,
        operationId: 'gitops_preview',
        summary:
          'gitops_preview: backtest the changed checks of a pull request on the stored readouts and run them live now, storing nothing (dqctl preview --server); answers {checks, warnings} as in `dqctl preview --format json`; the live runs need an operator',
        body: ref('PreviewRequest'),
      },
    },
    async (request) => {
      const body = request.body as PreviewRequest;
      const connections = new Map((await context.objects.list('source')).map((source) => [source.name, source.spec]));
      const storedCodeOnly = canEditDefinitions(request.caller)
        ? undefined
        : `its Python is not the one this server stores; running a change's own rule code on the server needs an admin token (this caller is a ${request.caller.role})`;
      const liveRefused = !roleAtLeast(request.caller.role, 'operator')
        ? `live checks need an operator token on the server (this caller is a ${request.caller.role})`
        : !context.dataSources
          ? 'this server has no data sources'
          : undefined;
      // a client that hangs up cancels the live queries
      const controller = new AbortController();
      const abort = () => controller.abort();
      const socket = request.raw.socket;
      socket?.once('close', abort);
      try {
        return await previewChecks(body, {
          store: context.store,
          connectionSpec: (name) => connections.get(name),
          dataSources: context.dataSources,
          now: context.clock?.now() ?? new Date(),
          signal: controller.signal,
          ...(liveRefused ? { liveRefused } : {}),
          objects: context.objects,
          ...(storedCodeOnly ? { storedCodeOnly } : {}),
        });
      } finally {
        socket?.off('close', abort);
      }
    },
  );
}

/** The body as sent, or gunzipped; anything but gzip or no encoding is refused. */
function decodeBody(request: FastifyRequest, payload: Readable, limit: number): Readable {
  const header = request.headers['content-encoding'];
  const encoding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return payload;
  if (encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new DqError('BODY_INVALID', `Content-Encoding ${JSON.stringify(encoding)} is not supported here; send gzip or no encoding`);
  }
  return gunzipWithin(payload, limit);
}

function gunzipWithin(payload: Readable, limit: number): Readable {
  let decoded = 0;
  // fastify compares `receivedEncodedLength` with Content-Length, and both lengths with the limit
  const output = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  output.receivedEncodedLength = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      decoded += chunk.length;
      if (decoded > limit) {
        done(new DqError('PAYLOAD_TOO_LARGE', `the request body is larger than ${limit} bytes once decompressed`));
        return;
      }
      done(null, chunk);
    },
  });
  const gunzip = createGunzip();
  const fail = (error: DqError) => {
    payload.unpipe(gunzip);
    gunzip.destroy();
    counter.destroy();
    output.destroy(error);
  };
  payload.on('data', (chunk: Buffer) => {
    output.receivedEncodedLength += chunk.length;
  });
  gunzip.on('error', (error) => fail(new DqError('BODY_INVALID', `the request body is not valid gzip: ${error.message}`)));
  counter.on('error', (error) => fail(error instanceof DqError ? error : new DqError('BODY_INVALID', error.message)));
  payload.pipe(gunzip).pipe(counter).pipe(output);
  return output;
}
