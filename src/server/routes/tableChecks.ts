import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bulkEnableTemplates } from '../../app/checkConfigurations.js';
import { queryParam } from '../../app/results/resultsQuery.js';
import {
  checkContainerModelOf,
  ownCheckContainer,
  replaceCheckContainer,
  subjectSpecOf,
  writeCheckContainerModel,
  type CheckContainerModel,
} from '../../app/tableCheckContainers.js';
import type { JsonObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { POLICY_CONTAINERS, type PolicyContainer } from './policyFamily.js';
import { bothSpellingsQuery } from './results.js';
import { capabilitiesFor, requireConnection, requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf } from './tables.js';

/**
 * The check containers of a table and of its columns: `…/profiling`, `…/monitoring/{daily|monthly}`,
 * `…/partitioned/{daily|monthly}` (the container as the table file holds it) and `…/model` (a
 * CheckContainerModel of every catalog check with the EFFECTIVE configuration: the table's own checks plus
 * what matching policies add, the latter marked `default_check: true`). A PUT of a model writes only what the
 * caller changed: a policy's check sent back untouched is not copied into the table.
 */
function columnNameOf(request: FastifyRequest): string {
  return checkName('column name', (request.params as { columnName: string }).columnName, { slashes: true });
}

export async function tableChecksRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  for (const target of ['table', 'column'] as const) {
    const base = target === 'table' ? TABLE_URL : `${TABLE_URL}/columns/:columnName`;
    const params =
      target === 'table'
        ? TABLE_PARAMS
        : { ...TABLE_PARAMS, properties: { ...TABLE_PARAMS.properties, columnName: { type: 'string' } }, required: [...TABLE_PARAMS.required, 'columnName'] };
    const tags = [target === 'table' ? 'table checks' : 'column checks'];

    /** The table, and for a column target the column (404 when missing). */
    const subject = async (request: FastifyRequest) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      const table = await requireTable(context, path);
      if (target === 'table') return { table, column: undefined, tablePath: path };
      const column = columnNameOf(request);
      subjectSpecOf(table, column);
      return { table, column, tablePath: path };
    };

    /** Replaces one container of the table (or of one of its columns). */
    const writeContainer = async (request: FastifyRequest, container: PolicyContainer, make: (current: JsonObject) => JsonObject) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      await requireTable(context, path);
      const column = target === 'column' ? columnNameOf(request) : undefined;
      await replaceCheckContainer(context.objects, { table: path, column, container }, make, writerOf(request));
    };

    for (const container of POLICY_CONTAINERS) {
      const what = container.timeScale ? `${container.checkType}_${container.timeScale}` : container.checkType;
      const url = `${base}/${container.segment}`;
      api.get(
        url,
        { schema: { tags, summary: `the ${what} checks of a ${target} as its file holds them`, operationId: `get_${target}_${what}_checks`, params, response: { 200: { type: 'object', additionalProperties: true } } } },
        async (request) => ownCheckContainer({ ...(await subject(request)), container }),
      );
      api.put(
        url,
        { schema: { tags, summary: `replaces the ${what} checks of a ${target}`, operationId: `update_${target}_${what}_checks`, params, body: { type: 'object', additionalProperties: true } } },
        async (request, reply) => {
          await writeContainer(request, container, () => request.body as JsonObject);
          return reply.status(204).send();
        },
      );
      api.get(
        `${url}/model`,
        { schema: { tags, summary: `every ${what} check of a ${target} with its effective configuration (own checks and policies)`, operationId: `get_${target}_${what}_checks_model`, params, response: { 200: ref('CheckContainerModel') } } },
        async (request) => {
          const { table, column } = await subject(request);
          return checkContainerModelOf(context.objects, { table, column, container }, capabilitiesFor(context, request, table));
        },
      );
      // the same model, as DQOps's "basic" list of checks and filtered to one check
      const modelOf = async (request: FastifyRequest) => {
        const { table, column } = await subject(request);
        const capabilities = capabilitiesFor(context, request, table);
        return { model: await checkContainerModelOf(context.objects, { table, column, container }, capabilities), capabilities };
      };
      api.get(
        `${url}/model/basic`,
        { schema: { tags, summary: `the ${what} checks of a ${target}: category, name and whether configured`, operationId: `get_${target}_${what}_checks_basic_model`, params, response: { 200: { type: 'object', additionalProperties: true } } } },
        async (request) => {
          const { model, capabilities } = await modelOf(request);
          // as DQOps's basic model, without the comparisons
          const checks = model.categories.filter((category) => category.comparison_name === undefined).flatMap((category) =>
            category.checks.map((check) => ({ check_category: category.category, check_name: check.check_name, help_text: check.help_text, configured: check.configured })),
          );
          return { checks, can_edit: capabilities.can_edit, can_run_checks: capabilities.can_run_checks, can_delete_data: capabilities.can_delete_data };
        },
      );
      api.get(
        `${url}/model/filter/:checkCategory/:checkName`,
        {
          schema: {
            tags,
            summary: `the model of one ${what} check of a ${target}`,
            operationId: `get_${target}_${what}_checks_model_filter`,
            params: { ...params, properties: { ...params.properties, checkCategory: { type: 'string' }, checkName: { type: 'string' } }, required: [...params.required, 'checkCategory', 'checkName'] },
            response: { 200: ref('CheckContainerModel') },
          },
        },
        async (request) => {
          const { checkCategory, checkName: wanted } = request.params as { checkCategory: string; checkName: string };
          const { model } = await modelOf(request);
          const categories = model.categories
            .filter((category) => category.category === checkCategory)
            .map((category) => ({ ...category, checks: category.checks.filter((check) => check.check_name === wanted) }))
            .filter((category) => category.checks.length > 0);
          return { ...model, categories };
        },
      );
      if (target === 'table') {
        api.get(
          `${TABLE_URL}/bulkenable/${container.segment}`,
          {
            schema: {
              tags,
              summary: `the ${what} check templates for a table and its columns (filters: checkTarget, checkCategory, checkName)`,
              operationId: `get_table_${what}_checks_templates`,
              params,
              querystring: bothSpellingsQuery([['check_target', 'checkTarget', { type: 'string', enum: ['table', 'column'] }], ['check_category', 'checkCategory', { type: 'string' }], ['check_name', 'checkName', { type: 'string' }]]),
              response: { 200: arrayOf('CheckTemplate') },
            },
          },
          async (request) => {
            const { table } = await subject(request);
            const query = request.query as Record<string, unknown>;
            return bulkEnableTemplates(container.checkType, container.timeScale, capabilitiesFor(context, request, table), {
              check_target: queryParam(query, 'check_target', 'checkTarget'),
              check_category: queryParam(query, 'check_category', 'checkCategory'),
              check_name: queryParam(query, 'check_name', 'checkName'),
            });
          },
        );
      }
      api.put(
        `${url}/model`,
        { schema: { tags, summary: `sets the ${what} checks of a ${target} from a CheckContainerModel`, operationId: `update_${target}_${what}_checks_model`, params, body: ref('CheckContainerModel') } },
        async (request, reply) => {
          const { table, column, tablePath } = await subject(request);
          await writeCheckContainerModel(context.objects, { table, column, tablePath, container }, request.body as CheckContainerModel, writerOf(request));
          return reply.status(204).send();
        },
      );
    }
  }
}
