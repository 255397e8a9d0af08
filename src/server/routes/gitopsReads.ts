import type { FastifyInstance } from 'fastify';
import { latestStatistics } from '../../app/latestStatistics.js';
import { listLiveState } from '../../app/listLiveState.js';
import { latestCheckResults } from '../../app/results/latestCheckResults.js';
import { CHECK_TYPES, OBJECT_KINDS, type CheckType, type ObjectKind } from '../../model/index.js';
import type { ServerContext } from '../context.js';

/**
 * The reads of the CLI through a server (`dqctl state list | results | statistics --server`): while
 * `dqctl serve` holds an embedded store, the CLI cannot open it, so these answer from the server's store with
 * the same use case and the same JSON the local command prints (one truth, two views). Viewer role.
 */
export async function gitopsReadRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['gitops'];
  const text = { type: 'string', minLength: 1 } as const;

  api.get(
    '/gitops/state',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: 'what the live store holds (`dqctl state list --format json`): every object, who manages it, its origin, whether it drifted',
        querystring: { type: 'object', properties: { kind: { type: 'string', enum: [...OBJECT_KINDS] } }, additionalProperties: false },
      },
    },
    async (request) => listLiveState(context.store, { kind: (request.query as { kind?: ObjectKind }).kind }),
  );

  api.get(
    '/gitops/results',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: 'the latest result of every check of the selected tables (`dqctl results --format json`); an unknown name in a filter is UNKNOWN_NAME with suggestions',
        querystring: {
          type: 'object',
          properties: { connection: text, table: text, column: text, checkType: { type: 'string', enum: [...CHECK_TYPES] }, check: text, comparison: text },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const query = request.query as { connection?: string; table?: string; column?: string; checkType?: CheckType; check?: string; comparison?: string };
      return { results: await latestCheckResults(context.store, query) };
    },
  );

  api.get(
    '/gitops/statistics',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: 'the latest value of each statistic of the selected tables and columns (`dqctl statistics --format json`)',
        querystring: { type: 'object', properties: { connection: text, table: text, column: text }, additionalProperties: false },
      },
    },
    async (request) => ({ statistics: await latestStatistics(context.store, request.query as { connection?: string; table?: string; column?: string }) }),
  );
}
