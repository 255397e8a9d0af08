import type { FastifyInstance } from 'fastify';
import { livePolicyTargets } from '../../app/diffRevisions.js';
import { listDqopsDataFiles, openDqopsDataFile } from '../../app/dqopsData.js';
import { exportStore } from '../../app/exportToFolder.js';
import { latestStatistics } from '../../app/latestStatistics.js';
import { storeLocksDocument } from '../../app/storeLocks.js';
import { listLiveState } from '../../app/listLiveState.js';
import { latestCheckResults } from '../../app/results/latestCheckResults.js';
import { CHECK_TYPES, DqError, OBJECT_KINDS, type CheckType, type ObjectKind } from '../../model/index.js';
import type { ServerContext } from '../context.js';

/**
 * The reads of the CLI through a server (`dqctl state list | results | statistics | export | export dqops-data | lock list | diff --server`):
 * while `dqctl serve` holds an embedded store, the CLI cannot open it, so these answer from the server's store
 * with the same use case and the same JSON the local command prints (one truth, two views). Viewer role.
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

  api.get(
    '/gitops/export',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary:
          'the live state as DQOps-format files (`dqctl export --server` writes them where it runs): the files, the literal secrets replaced by ${DQCTL_SECRET_…} references (never sent), warnings, namespaces',
        querystring: {
          type: 'object',
          properties: {
            kind: { type: 'string', enum: [...OBJECT_KINDS] },
            namespace: text,
            only_drift: { type: 'boolean' },
            schema_base: text,
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const query = request.query as { kind?: ObjectKind; namespace?: string; only_drift?: boolean; schema_base?: string };
      return exportStore(context.store, { kind: query.kind, namespace: query.namespace, onlyDrift: query.only_drift, schemaBase: query.schema_base });
    },
  );

  api.get(
    '/gitops/dqops-data',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary:
          "the files `dqctl export dqops-data` writes from the store (DQOps's .data/ layout): each file's kind, path under .data/ and row count; `dqctl export dqops-data --server` fetches each from /gitops/dqops-data/file",
        querystring: { type: 'object', properties: {}, additionalProperties: false },
      },
    },
    async () => ({ files: await listDqopsDataFiles(context.store) }),
  );

  api.get(
    '/gitops/dqops-data/file',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary:
          'one Parquet file of the export, written from the store as the local export writes it (one partition in memory) and streamed; `path` must be one /gitops/dqops-data lists (a malformed path is 400, an unlisted one 404). Header x-dqctl-rows: the rows it holds',
        querystring: { type: 'object', properties: { path: { type: 'string', minLength: 1, maxLength: 4096 } }, required: ['path'], additionalProperties: false },
      },
    },
    async (request, reply) => {
      const file = await openDqopsDataFile(context.store, (request.query as { path: string }).path);
      return reply
        .type('application/vnd.apache.parquet')
        .header('content-length', String(file.bytes))
        .header('x-dqctl-rows', String(file.rows))
        .header('cache-control', 'no-store')
        .send(file.stream);
    },
  );

  api.get(
    '/gitops/policy-targets',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary:
          "what a diff's policies are matched against in the live store (`dqctl diff --server`): its revision, its connections (secrets redacted) and tables",
        querystring: { type: 'object', properties: {}, additionalProperties: false },
      },
    },
    async () => livePolicyTargets(context.store),
  );

  api.get(
    '/gitops/locks',
    {
      config: { role: 'viewer' },
      schema: {
        tags,
        summary: "the locks of the server's store (`dqctl lock list --server`): holder, operation, age, whether it could be released; judged with the server's --lock-ttl",
        querystring: { type: 'object', properties: {}, additionalProperties: false },
      },
    },
    async () => {
      if (!context.storeOpenOptions) throw new DqError('NOT_IMPLEMENTED', 'this server was built without the location of its store, so it cannot list its locks');
      return storeLocksDocument(context.storeOpenOptions);
    },
  );
}
