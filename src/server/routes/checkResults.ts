import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CheckType } from '../../model/index.js';
import { issueHistogram } from '../../app/issueHistogram.js';
import { tableQualityStatus } from '../../app/tableQualityStatus.js';
import { withoutNulls } from '../../app/results/checkResults.js';
import { resultLists } from '../../app/results/resultLists.js';
import type { ResultsQuery as Query } from '../../app/results/resultsQuery.js';
import type { ServerContext } from '../context.js';
import { requireTable, TABLE_PARAMS, tablePathOf } from './tables.js';
import { COLUMN_URL, ERRORS_QUERY, paramsSchema, selectionOf, TABLE_URL, targetOf } from './results.js';

/** DQOps's `check_results` and `sensor_readouts` groups (shaped in app/results/resultLists.ts), a table's status and its issues histogram. */
export async function checkResultsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const types: Array<{ type: CheckType; segment: string }> = [
    { type: 'profiling', segment: 'profiling' },
    { type: 'monitoring', segment: 'monitoring/:timeScale' },
    { type: 'partitioned', segment: 'partitioned/:timeScale' },
  ];
  // checkHash typed as an integer: the serializer writes a 64-bit hash beyond 2^53 (a bigint) as its digits
  const entries = { type: 'array', items: { type: 'object', additionalProperties: true, properties: { checkHash: { type: 'integer' } } } };
  const listSchema = { type: 'array', items: { type: 'object', additionalProperties: true, properties: { checkHash: { type: 'integer' }, checkResultEntries: entries } } };
  for (const { type, segment } of types) {
    for (const column of [false, true]) {
      const level = column ? 'column' : 'table';
      for (const kind of ['results', 'readouts'] as const) {
        const operationId = kind === 'results' ? `get_${level}_${type}_checks_results` : `get_${level}_${type}_sensor_readouts`;
        api.get(
          `${column ? COLUMN_URL : TABLE_URL}/${segment}/${kind}`,
          {
            schema: {
              tags: [kind === 'results' ? 'check_results' : 'sensor_readouts'],
              operationId,
              summary: `${operationId}: the stored ${kind === 'results' ? 'results' : 'sensor readouts'} of ${level}-level ${type} checks, by check, newest first`,
              params: paramsSchema(column, type !== 'profiling'),
              querystring: ERRORS_QUERY,
              response: { 200: listSchema },
            },
          },
          async (request: FastifyRequest) => {
            const target = await targetOf(context, request, column);
            return resultLists(context.store, target, selectionOf(request, type), request.query as Query, kind);
          },
        );
      }
    }
  }

  api.get(
    `${TABLE_URL}/status`,
    {
      schema: {
        tags: ['check_results'],
        operationId: 'get_table_data_quality_status',
        summary: "get_table_data_quality_status: the table's current status from the newest run of its checks (fields without a value left out)",
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { months: { type: 'integer', minimum: 0 }, since: { type: 'string' } } },
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const status = await tableQualityStatus(context.store, path);
      // DQOps's clients parse current_severity only as a severity: unknown fields are left out, not null
      return { ...withoutNulls({ ...status }), table_exist: true };
    },
  );

  api.get(
    `${TABLE_URL}/histogram`,
    {
      schema: {
        tags: ['check_results'],
        operationId: 'get_table_issues_histogram',
        summary: 'get_table_issues_histogram: warnings, errors and fatals of the table by day, column and check since a date (default 30 days ago)',
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { executedSince: { type: 'string', format: 'date' }, executed_since: { type: 'string', format: 'date' } } },
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const query = request.query as { executedSince?: string; executed_since?: string };
      return issueHistogram(context.store, path, { since: query.executedSince ?? query.executed_since });
    },
  );
}
