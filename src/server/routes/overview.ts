import type { FastifyInstance } from 'fastify';
import { readOverview } from '../../app/objectsOverview.js';
import { listObjectStatuses, type ObjectListRequest } from '../../app/objectList.js';
import { pagingOf, type PagingRequest } from '../../app/listPaging.js';
import { PAGING_QUERY } from '../pagingQuery.js';
import { tableEffectiveChecks } from '../../app/tableEffectiveChecks.js';
import { tableCheckResultHistories } from '../../app/results/checkResultHistories.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { roleAtLeast } from '../tokens.js';
import { requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf } from './tables.js';

/**
 * What the web console reads besides DQOps's own routes, served to every program alike: the overview (sync,
 * objects, connections, data quality, active jobs), every object with its sync and quality status, the caller's
 * profile (role and what it may do), a table's effective checks with their origin, and a table's newest results
 * with actual and expected values (the readout history the console charts).
 */

export async function overviewRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['console'];
  let features: { incidents: boolean } | undefined;

  api.get(
    '/overview',
    {
      schema: {
        tags,
        operationId: 'get_overview',
        summary: 'get_overview: sync status (revision, last apply, last pass), objects by kind and owner, connections with their sync and worst severity, data quality by severity, active jobs',
        response: { 200: ref('OverviewModel') },
      },
    },
    async () => readOverview(context.objects, context.reconciler),
  );

  api.get(
    '/objects',
    {
      schema: {
        tags,
        operationId: 'get_object_statuses',
        summary:
          'get_object_statuses: the live objects (connections, tables, rules, policies) with their owner (git or api), sync status and data quality status, sorted by kind then name; filtered by search, kind, connection, owner, sync_status, quality_status; one page with page or limit, with the total that match',
        querystring: {
          type: 'object',
          properties: {
            ...PAGING_QUERY,
            search: { type: 'string', description: 'words that must all appear (case ignored) in the name or the file' },
            kind: { type: 'string', description: 'one kind: source, table, rule, default_table_checks, …' },
            connection: { type: 'string', description: 'the connection and its tables' },
            owner: { type: 'string', enum: ['', 'git', 'api'] },
            sync_status: { type: 'string', description: 'Synced, OutOfSync, Missing, Extraneous or Drifted' },
            quality_status: { type: 'string', description: 'not_run, valid, execution_error, warning, error or fatal' },
          },
        },
        response: { 200: ref('ObjectStatusListModel') },
      },
    },
    async (request) => {
      const query = request.query as PagingRequest & Omit<ObjectListRequest, 'paging'>;
      return listObjectStatuses(context.objects, context.reconciler, { ...query, paging: pagingOf(query) });
    },
  );

  api.get(
    '/environment/profile',
    {
      schema: { tags, operationId: 'get_user_profile', summary: 'get_user_profile: the caller’s name, role and what the role may do', response: { 200: ref('DqoUserProfileModel') } },
    },
    async (request) => {
      // which optional route groups this server has (the console hides what it lacks instead of calling a 404)
      features ??= { incidents: Object.keys((api.swagger() as { paths?: Record<string, unknown> }).paths ?? {}).some((p) => p.startsWith('/api/incidents')) };
      const role = request.caller.role;
      const operator = roleAtLeast(role, 'operator');
      const editor = roleAtLeast(role, 'editor');
      return {
        user: request.caller.name,
        account_role: role,
        can_view_any_object: true,
        can_manage_scheduler: operator,
        can_cancel_jobs: operator,
        can_run_checks: operator,
        can_delete_data: operator,
        can_collect_statistics: operator,
        can_manage_data_sources: editor,
        can_edit_comments: editor,
        can_edit_labels: editor,
        can_manage_definitions: editor,
        can_manage_incidents: operator,
        features,
      };
    },
  );

  api.get(
    `${TABLE_URL}/effectivechecks`,
    {
      schema: {
        tags: ['table checks'],
        operationId: 'get_table_effective_checks',
        summary: 'get_table_effective_checks: every check of the table and its columns, with where it comes from (the table’s file, or a policy and its priority)',
        params: TABLE_PARAMS,
        response: { 200: arrayOf('EffectiveCheckModel') },
      },
    },
    async (request) => tableEffectiveChecks(context.objects, await requireTable(context, tablePathOf(request))),
  );

  api.get(
    `${TABLE_URL}/checkresults`,
    {
      schema: {
        tags: ['results'],
        operationId: 'get_table_check_results',
        summary: 'get_table_check_results: per check of the table and its columns (every check type), its newest results (results_count time periods, default 30) with actual and expected values and severity',
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { results_count: { type: 'integer', minimum: 1, maximum: 1000, default: 30 } } },
        response: { 200: arrayOf('CheckResultHistoryModel') },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      return tableCheckResultHistories(context.store, path, (request.query as { results_count?: number }).results_count ?? 30);
    },
  );
}
