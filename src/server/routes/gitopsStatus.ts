import type { FastifyInstance } from 'fastify';
import { applyHistoryEntry, MAX_HISTORY_LIMIT } from '../../app/applyHistoryEntry.js';
import { DqError } from '../../model/index.js';
import { renderPlanDocument } from '../../app/planRendering.js';
import { isSignedPush, WEBHOOK_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../app/gitopsWebhook.js';
import type { Reconciler } from '../../app/services.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';

/**
 * The reconcile loop of `serve --repo | --git` over HTTP: its status, pending plan and the apply audit (viewer),
 * suspend and resume (operator), and the webhook a git host calls on push. The webhook needs no token: the
 * HMAC signature of its body authenticates it (auth.ts lets it through only when a secret is configured); its
 * body is read raw (the signature is over the bytes as sent), at most 1 MB, and it answers 202 at once: the
 * fetch and the pass run after the answer.
 */
export const WEBHOOK_PATH = '/api/gitops/webhook';
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

function loopOf(context: ServerContext): Reconciler {
  if (!context.reconciler) {
    throw new DqError('NOT_FOUND', 'this server runs no reconcile loop: start it with dqctl serve --repo DIR or --git URL');
  }
  return context.reconciler;
}

export async function gitopsStatusRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['gitops'];

  api.get(
    '/gitops/status',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: 'status of the reconcile loop: revision, sync and health, objects not in sync (all with ?all=true), last pass, lock',
        querystring: { type: 'object', properties: { all: { type: 'boolean', default: false } } },
        response: { 200: ref('GitopsStatusModel') },
      },
    },
    async (request) => loopOf(context).status({ all: (request.query as { all?: boolean }).all === true }),
  );

  api.get(
    '/gitops/plan',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary:
          'the plan of the last comparison (made again first when the store moved): by default what `dqctl apply --server` does with its defaults (drift restored); with ?mode=loop what the reconcile loop applies on its own (drift kept unless serve --self-heal). The JSON plan of `dqctl plan --format json` (its options say what it assumed); with ?format=text the text `dqctl plan` prints, as text/plain',
        querystring: {
          type: 'object',
          properties: { format: { type: 'string', enum: ['json', 'text'], default: 'json' }, mode: { type: 'string', enum: ['apply', 'loop'], default: 'apply' } },
        },
      },
    },
    async (request, reply) => {
      const query = request.query as { format?: string; mode?: 'apply' | 'loop' };
      const plan = await loopOf(context).pendingPlan(query.mode ?? 'apply');
      if (!plan) throw new DqError('NOT_FOUND', 'no pass has planned yet; see GET /api/gitops/status');
      if (query.format === 'text') return reply.type('text/plain; charset=utf-8').send(renderPlanDocument(plan, 'text'));
      return plan;
    },
  );

  api.get(
    '/gitops/history',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: 'the audit log of applies, newest first (by this loop, dqctl apply and remote applies alike)',
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_LIMIT, default: 50 } } },
      },
    },
    async (request) => (await context.store.history((request.query as { limit?: number }).limit ?? 50)).map(applyHistoryEntry),
  );

  api.post(
    '/gitops/suspend',
    { config: { role: 'operator' }, schema: { tags, summary: 'suspend the reconcile loop of this server: no pass runs until resume' } },
    async (request) => {
      const loop = loopOf(context);
      return { suspended: loop.suspend(request.caller.name), leader: loop.isLeader };
    },
  );

  api.post(
    '/gitops/resume',
    { config: { role: 'operator' }, schema: { tags, summary: 'resume the reconcile loop of this server and run a pass at once' } },
    async (request) => {
      const loop = loopOf(context);
      loop.resume(request.caller.name);
      return { suspended: null, leader: loop.isLeader };
    },
  );

  // The webhook reads its body raw: its own content-type parsers, in a scope of its own.
  await api.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.post(
      '/gitops/webhook',
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        config: { role: 'viewer' },
        schema: {
          tags,
          summary: `push webhook (GitHub's format): ${SIGNATURE_HEADER} = sha256=HMAC-SHA256(body, --webhook-secret); 202 and a fetch + pass at once, 401 on a missing or wrong signature`,
        },
      },
      async (request, reply) => {
        const loop = loopOf(context);
        if (!loop.webhookSecret) {
          throw new DqError('NOT_FOUND', 'the webhook is off: start serve with --webhook-secret (or DQCTL_WEBHOOK_SECRET)');
        }
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (!isSignedPush(loop.webhookSecret, body, request.headers[SIGNATURE_HEADER])) {
          throw new DqError('UNAUTHENTICATED', `missing or wrong ${SIGNATURE_HEADER} signature (sha256=<HMAC-SHA256 of the body with the webhook secret>)`);
        }
        const event = request.headers['x-github-event'];
        if (event === 'ping') return reply.status(200).send({ accepted: true, triggered: false, event: 'ping' });
        void loop.webhook();
        return reply.status(202).send({ accepted: true, triggered: true });
      },
    );
  });
}
