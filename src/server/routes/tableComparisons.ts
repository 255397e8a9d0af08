import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { applyComparisonModel, comparisonModel, configurationEntry, configurationModel, type ComparisonContainer } from '../../app/tableComparisonModels.js';
import { CHECK_TYPES, DqError, isJsonObject, tableKey, TIME_SCALES, type JsonObject } from '../../model/index.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { capabilitiesFor, requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf, type TablePath } from './tables.js';

/**
 * DQOps's `table_comparisons` group: the comparison configurations of a table (`spec.table_comparisons`,
 * …/tablecomparisonconfigurations) and, per check container, a comparison with its compare checks
 * (…/tablecomparisons/{container}); the mapping is src/app/tableComparisonModels.ts. Creating a name that exists
 * answers 409, reading, replacing or deleting a missing one 404. The list keeps only the configurations of a
 * check type and time scale when asked (`checkType`, `checkTimeScale`), as DQOps filters it. Deleting a configuration also removes the
 * comparison checks that name it (they could not run without it).
 */
const CONTAINERS: Array<{ segment: string; operation: string; container: ComparisonContainer }> = [
  { segment: 'profiling', operation: 'profiling', container: { checkType: 'profiling', timeScale: null } },
  { segment: 'monitoring/daily', operation: 'monitoring_daily', container: { checkType: 'monitoring', timeScale: 'daily' } },
  { segment: 'monitoring/monthly', operation: 'monitoring_monthly', container: { checkType: 'monitoring', timeScale: 'monthly' } },
  { segment: 'partitioned/daily', operation: 'partitioned_daily', container: { checkType: 'partitioned', timeScale: 'daily' } },
  { segment: 'partitioned/monthly', operation: 'partitioned_monthly', container: { checkType: 'partitioned', timeScale: 'monthly' } },
];

const anyObject = { type: 'object', additionalProperties: true };

/** A query parameter given in snake_case or camelCase (both spellings must agree when both are given). */
function oneSpelling(query: Record<string, string | undefined>, snake: string, camel: string): string | undefined {
  const [a, b] = [query[snake], query[camel]];
  if (a !== undefined && b !== undefined && a !== b) throw new DqError('INVALID_ARGUMENT', `${snake} and ${camel} disagree`);
  return a ?? b;
}

/**
 * The list's filters as DQOps applies them: a configuration without `check_type` is a profiling one (DQOps's
 * default), one without `time_scale` has none, so a time scale filter leaves it out.
 */
function comparisonMatches(entry: JsonObject, checkType: string | undefined, timeScale: string | undefined): boolean {
  if (checkType !== undefined && (entry.check_type ?? 'profiling') !== checkType) return false;
  if (timeScale !== undefined && (entry.time_scale ?? null) !== timeScale) return false;
  return true;
}

export async function tableComparisonsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['table_comparisons'];
  const CONFIGS = `${TABLE_URL}/tablecomparisonconfigurations`;
  const nameParams = {
    type: 'object',
    properties: { ...TABLE_PARAMS.properties, tableComparisonConfigurationName: { type: 'string' } },
    required: [...TABLE_PARAMS.required, 'tableComparisonConfigurationName'],
  };
  const nameOf = (value: unknown) => {
    if (typeof value !== 'string') throw new DqError('INVALID_ARGUMENT', 'table_comparison_configuration_name is required');
    return checkName('table comparison name', value, { slashes: true });
  };
  const pathName = (request: FastifyRequest) => nameOf((request.params as { tableComparisonConfigurationName: string }).tableComparisonConfigurationName);
  const entriesOf = (spec: JsonObject): JsonObject => (isJsonObject(spec.table_comparisons) ? spec.table_comparisons : {});
  const missing = (name: string, table: string) => new DqError('NOT_FOUND', `table comparison ${JSON.stringify(name)} not found in table ${JSON.stringify(table)}`);
  const write = async (request: FastifyRequest, path: TablePath, change: (spec: JsonObject, table: string) => JsonObject) => {
    await requireTable(context, path);
    await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
      const spec = change(current.spec, current.name);
      refuseInvalidTableSpec(spec, [], 'table comparison');
      return { spec };
    });
  };
  const withCapabilities = (model: JsonObject, request: FastifyRequest, live: Parameters<typeof capabilitiesFor>[2]) => {
    const capabilities = capabilitiesFor(context, request, live);
    return { ...model, can_edit: capabilities.can_edit, can_run_compare_checks: capabilities.can_run_checks, can_delete_data: capabilities.can_delete_data };
  };

  api.get(
    CONFIGS,
    {
      schema: {
        tags,
        operationId: 'get_table_comparison_configurations',
        summary: 'get_table_comparison_configurations: the comparison configurations of the table, sorted by name',
        params: TABLE_PARAMS,
        querystring: {
          type: 'object',
          properties: {
            checkType: { type: 'string', enum: [...CHECK_TYPES] },
            check_type: { type: 'string', enum: [...CHECK_TYPES] },
            checkTimeScale: { type: 'string', enum: [...TIME_SCALES] },
            check_time_scale: { type: 'string', enum: [...TIME_SCALES] },
          },
        },
        response: { 200: { type: 'array', items: anyObject } },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      const entries = entriesOf(live.spec);
      const query = request.query as Record<string, string | undefined>;
      const checkType = oneSpelling(query, 'check_type', 'checkType');
      const timeScale = oneSpelling(query, 'check_time_scale', 'checkTimeScale');
      return Object.keys(entries)
        .sort()
        .filter((name) => isJsonObject(entries[name]) && comparisonMatches(entries[name] as JsonObject, checkType, timeScale))
        .map((name) => withCapabilities(configurationModel(path.connection, path.schema, path.table, name, entries[name] as JsonObject), request, live));
    },
  );

  api.get(
    `${CONFIGS}/:tableComparisonConfigurationName`,
    { schema: { tags, operationId: 'get_table_comparison_configuration', summary: 'get_table_comparison_configuration: one comparison configuration', params: nameParams, response: { 200: anyObject } } },
    async (request) => {
      const path = tablePathOf(request);
      const name = pathName(request);
      const live = await requireTable(context, path);
      const entry = entriesOf(live.spec)[name];
      if (!isJsonObject(entry)) throw missing(name, live.name);
      return withCapabilities(configurationModel(path.connection, path.schema, path.table, name, entry), request, live);
    },
  );

  api.post(
    CONFIGS,
    { schema: { tags, operationId: 'create_table_comparison_configuration', summary: 'create_table_comparison_configuration: adds a comparison configuration; 201, 409 when the name exists', params: TABLE_PARAMS, body: anyObject } },
    async (request, reply) => {
      const body = request.body as JsonObject;
      const name = nameOf(body.table_comparison_configuration_name);
      await write(request, tablePathOf(request), (spec, table) => {
        if (name in entriesOf(spec)) throw new DqError('ALREADY_EXISTS', `table comparison ${JSON.stringify(name)} already exists in table ${JSON.stringify(table)}`);
        return { ...spec, table_comparisons: { ...entriesOf(spec), [name]: configurationEntry(body) } };
      });
      return reply.status(201).send();
    },
  );

  api.put(
    `${CONFIGS}/:tableComparisonConfigurationName`,
    { schema: { tags, operationId: 'update_table_comparison_configuration', summary: 'update_table_comparison_configuration: changes a comparison configuration; 204', params: nameParams, body: anyObject } },
    async (request, reply) => {
      const name = pathName(request);
      await write(request, tablePathOf(request), (spec, table) => {
        const entry = entriesOf(spec)[name];
        if (!isJsonObject(entry)) throw missing(name, table);
        return { ...spec, table_comparisons: { ...entriesOf(spec), [name]: configurationEntry(request.body as JsonObject, entry) } };
      });
      return reply.status(204).send();
    },
  );

  api.delete(
    `${CONFIGS}/:tableComparisonConfigurationName`,
    { schema: { tags, operationId: 'delete_table_comparison_configuration', summary: 'delete_table_comparison_configuration: removes the configuration and the comparison checks naming it; 204', params: nameParams } },
    async (request, reply) => {
      const name = pathName(request);
      await write(request, tablePathOf(request), (spec, table) => {
        if (!isJsonObject(entriesOf(spec)[name])) throw missing(name, table);
        let next = spec;
        // the checks of every container go with it: an empty model removes them
        for (const { container } of CONTAINERS) next = applyComparisonModel(next, container, name, { columns: Object.keys(isJsonObject(next.columns) ? next.columns : {}).map((c) => ({ compared_column_name: c })) });
        const entries = { ...entriesOf(next) };
        delete entries[name];
        return { ...next, table_comparisons: entries };
      });
      return reply.status(204).send();
    },
  );

  for (const { segment, operation, container } of CONTAINERS) {
    api.get(
      `${TABLE_URL}/tablecomparisons/:tableComparisonConfigurationName/${segment}`,
      { schema: { tags, operationId: `get_table_comparison_${operation}`, summary: `get_table_comparison_${operation}: the comparison and its ${segment} compare checks`, params: nameParams, response: { 200: anyObject } } },
      async (request) => {
        const path = tablePathOf(request);
        const name = pathName(request);
        const live = await requireTable(context, path);
        const model = comparisonModel({ ...path, spec: live.spec }, container, name);
        if (!model) throw missing(name, live.name);
        return withCapabilities(model, request, live);
      },
    );
    api.post(
      `${TABLE_URL}/tablecomparisons/${segment}`,
      { schema: { tags, operationId: `create_table_comparison_${operation}`, summary: `create_table_comparison_${operation}: a new comparison with its ${segment} compare checks; 201, 409 when the name exists`, params: TABLE_PARAMS, body: anyObject } },
      async (request, reply) => {
        const body = request.body as JsonObject;
        const name = nameOf(body.table_comparison_configuration_name);
        await write(request, tablePathOf(request), (spec, table) => {
          if (name in entriesOf(spec)) throw new DqError('ALREADY_EXISTS', `table comparison ${JSON.stringify(name)} already exists in table ${JSON.stringify(table)}`);
          return applyComparisonModel(spec, container, name, body);
        });
        return reply.status(201).send();
      },
    );
    api.put(
      `${TABLE_URL}/tablecomparisons/${segment}/:tableComparisonConfigurationName`,
      { schema: { tags, operationId: `update_table_comparison_${operation}`, summary: `update_table_comparison_${operation}: replaces the comparison's ${segment} compare checks (and its configuration fields given); 204`, params: nameParams, body: anyObject } },
      async (request, reply) => {
        const name = pathName(request);
        await write(request, tablePathOf(request), (spec, table) => {
          if (!isJsonObject(entriesOf(spec)[name])) throw missing(name, table);
          return applyComparisonModel(spec, container, name, request.body as JsonObject);
        });
        return reply.status(204).send();
      },
    );
  }
}
