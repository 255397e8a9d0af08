import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DqError, isJsonObject, tableKey, type JsonObject, type LiveObject } from '../../model/index.js';
import {
  applyCheckContainerModel,
  checkContainerModel,
  checkTemplates,
  compilePolicies,
  containerComparisons,
  effectiveColumnChecks,
  effectiveContainer,
  effectiveTableChecks,
  tableComparisonNames,
  tableRefOf,
  type CheckContainerModel,
} from '../../policy/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { queryParam } from '../../app/results/resultsQuery.js';
import { bothSpellingsQuery } from './results.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { POLICY_CONTAINERS, type PolicyContainer } from './policyFamily.js';
import {
  capabilitiesFor,
  refuseInvalidTableSpec,
  requireConnection,
  requireTable,
  TABLE_PARAMS,
  TABLE_URL,
  tablePathOf,
  writerOf,
} from './tables.js';

/**
 * The check containers of a table and of its columns: `…/profiling`, `…/monitoring/{daily|monthly}`,
 * `…/partitioned/{daily|monthly}` (the container as the table file holds it) and `…/model` (a
 * CheckContainerModel of every catalog check with the EFFECTIVE configuration: the table's own checks plus
 * what matching policies add, the latter marked `default_check: true`). A PUT of a model writes only what the
 * caller changed: a policy's check sent back untouched is not copied into the table.
 */
type Target = 'table' | 'column';

function containerOf(spec: JsonObject, container: PolicyContainer): JsonObject {
  const top = spec[`${container.checkType}_checks`];
  if (!isJsonObject(top)) return {};
  if (container.timeScale === null) return top;
  const scaled = top[container.timeScale];
  return isJsonObject(scaled) ? scaled : {};
}

function withContainer(spec: JsonObject, container: PolicyContainer, value: JsonObject): JsonObject {
  const key = `${container.checkType}_checks`;
  if (container.timeScale === null) return { ...spec, [key]: value };
  const top = isJsonObject(spec[key]) ? spec[key] : {};
  return { ...spec, [key]: { ...top, [container.timeScale]: value } };
}

function columnNameOf(request: FastifyRequest): string {
  return checkName('column name', (request.params as { columnName: string }).columnName, { slashes: true });
}

export async function tableChecksRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const effective = async (table: LiveObject, target: Target, column: string | undefined, container: PolicyContainer) => {
    const ref = tableRefOf(table.name, table.spec);
    if (!ref) throw new DqError('INTERNAL', `table name ${table.name} cannot be split`);
    const [connection, tablePolicies, columnPolicies] = await Promise.all([
      context.objects.get('source', ref.connection),
      context.objects.list('default_table_checks'),
      context.objects.list('default_column_checks'),
    ]);
    const policies = compilePolicies([...tablePolicies, ...columnPolicies]);
    const checks =
      target === 'table' ? effectiveTableChecks(ref, connection?.spec, policies) : effectiveColumnChecks(ref, column!, connection?.spec, policies);
    return effectiveContainer(checks, container.checkType, container.timeScale);
  };

  for (const target of ['table', 'column'] as const) {
    const base = target === 'table' ? TABLE_URL : `${TABLE_URL}/columns/:columnName`;
    const params =
      target === 'table'
        ? TABLE_PARAMS
        : { ...TABLE_PARAMS, properties: { ...TABLE_PARAMS.properties, columnName: { type: 'string' } }, required: [...TABLE_PARAMS.required, 'columnName'] };
    const tags = [target === 'table' ? 'table checks' : 'column checks'];

    /** The table, and for a column target the column's spec (404 when missing). */
    const subject = async (request: FastifyRequest) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      const table = await requireTable(context, path);
      if (target === 'table') return { table, column: undefined, spec: table.spec };
      const column = columnNameOf(request);
      const columns = isJsonObject(table.spec.columns) ? table.spec.columns : {};
      const spec = columns[column];
      if (!isJsonObject(spec)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${table.name}`);
      return { table, column, spec };
    };

    /** Replaces one container of the table (or of one of its columns) in a read-modify-write. */
    const writeContainer = async (request: FastifyRequest, container: PolicyContainer, make: (current: JsonObject, table: LiveObject) => JsonObject) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      await requireTable(context, path);
      const column = target === 'column' ? columnNameOf(request) : undefined;
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
        let spec: JsonObject;
        if (column === undefined) {
          spec = withContainer(current.spec, container, make(containerOf(current.spec, container), current));
        } else {
          const columns = isJsonObject(current.spec.columns) ? current.spec.columns : {};
          const columnSpec = columns[column];
          if (!isJsonObject(columnSpec)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${current.name}`);
          const next = withContainer(columnSpec, container, make(containerOf(columnSpec, container), current));
          spec = { ...current.spec, columns: { ...columns, [column]: next } };
        }
        refuseInvalidTableSpec(spec);
        return { spec };
      });
    };

    for (const container of POLICY_CONTAINERS) {
      const what = container.timeScale ? `${container.checkType}_${container.timeScale}` : container.checkType;
      const url = `${base}/${container.segment}`;
      api.get(
        url,
        { schema: { tags, summary: `the ${what} checks of a ${target} as its file holds them`, operationId: `get_${target}_${what}_checks`, params, response: { 200: { type: 'object', additionalProperties: true } } } },
        async (request) => containerOf((await subject(request)).spec, container),
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
          const comparisons = containerComparisons(table.spec, column ?? null, container.checkType, container.timeScale);
          return checkContainerModel(target, container.checkType, container.timeScale, await effective(table, target, column, container), capabilitiesFor(context, request, table), { comparisons });
        },
      );
      // the same model, as DQOps's "basic" list of checks and filtered to one check
      const modelOf = async (request: FastifyRequest) => {
        const { table, column } = await subject(request);
        const capabilities = capabilitiesFor(context, request, table);
        const comparisons = containerComparisons(table.spec, column ?? null, container.checkType, container.timeScale);
        return { model: checkContainerModel(target, container.checkType, container.timeScale, await effective(table, target, column, container), capabilities, { comparisons }), capabilities };
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
            return checkTemplates(container.checkType, container.timeScale, capabilitiesFor(context, request, table), {
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
          const { table, column } = await subject(request);
          const inherited = await effective(table, target, column, container);
          await writeContainer(request, container, (previous, current) =>
            applyCheckContainerModel(request.body as CheckContainerModel, { previous, inherited, tableComparisons: tableComparisonNames(current.spec) }),
          );
          return reply.status(204).send();
        },
      );
    }
  }
}
