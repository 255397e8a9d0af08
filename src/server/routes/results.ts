import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DqError, isJsonObject, tableKey, TIME_SCALES } from '../../model/index.js';
import type { CheckType } from '../../model/index.js';
import { errors, errorSamples, overview, sampleRows, type Selection, type Target } from '../../app/results/checkResults.js';
import { comparisonResults } from '../../app/results/comparisonResults.js';
import { csvFileName, toCsv } from '../../app/results/errorSamplesCsv.js';
import type { ResultsQuery as Query } from '../../app/results/resultsQuery.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { notFound } from '../errorHandler.js';
import { checkName } from '../names.js';

/**
 * The results routes of DQOps's API (overview, errors, error samples as JSON and CSV, table comparison results)
 * for tables and columns and the three check types. A route parses and checks the path, makes sure the
 * connection, the table and the column exist as live objects (404 otherwise: results of a table that left the
 * configuration are not served, though the rows are kept), and calls the reading in src/app/results.
 */
export type { Target };

export const TABLE_URL = '/connections/:connectionName/schemas/:schemaName/tables/:tableName';
export const COLUMN_URL = `${TABLE_URL}/columns/:columnName`;

const nameParam = (description: string) => ({ type: 'string', description });
const TABLE_PARAMS = {
  connectionName: nameParam('connection name'),
  schemaName: nameParam('schema name'),
  tableName: nameParam('table name; a "/" in it travels as %2F'),
};
const COLUMN_PARAMS = { ...TABLE_PARAMS, columnName: nameParam('column name') };
const TIME_SCALE_PARAM = { timeScale: { type: 'string', enum: [...TIME_SCALES], description: 'CheckTimeScale' } };

export function paramsSchema(column: boolean, timeScale: boolean, extra: Record<string, unknown> = {}) {
  const properties = { ...(column ? COLUMN_PARAMS : TABLE_PARAMS), ...(timeScale ? TIME_SCALE_PARAM : {}), ...extra };
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** Both spellings of each query parameter (DQOps's clients send camelCase; the spec names snake_case). */
export function bothSpellingsQuery(params: Array<[string, string | null, Record<string, unknown>]>) {
  const properties: Record<string, unknown> = {};
  for (const [snake, camel, schema] of params) {
    properties[snake] = schema;
    if (camel) properties[camel] = schema;
  }
  return { type: 'object', properties };
}

const text = { type: 'string' };
const OVERVIEW_QUERY = bothSpellingsQuery([
  ['category', null, text],
  ['check_name', 'checkName', text],
  ['results_count', 'resultsCount', { type: 'integer', minimum: 1, maximum: 10_000 }],
]);
export const ERRORS_QUERY = bothSpellingsQuery([
  ['data_group', 'dataGroup', text],
  ['month_start', 'monthStart', text],
  ['month_end', 'monthEnd', text],
  ['check_name', 'checkName', text],
  ['category', null, text],
  ['table_comparison', 'tableComparison', text],
  ['max_results_per_check', 'maxResultsPerCheck', { type: 'integer', minimum: 1, maximum: 100_000 }],
]);

export async function targetOf(context: ServerContext, request: FastifyRequest, column: boolean): Promise<Target> {
  const params = request.params as Record<string, string>;
  const connection = checkName('connection name', params.connectionName);
  const schema = checkName('schema name', params.schemaName, { slashes: true });
  if (schema.includes('.')) throw new DqError('INVALID_ARGUMENT', 'schema name must not contain "."');
  const table = checkName('table name', params.tableName, { slashes: true });
  const columnName = column ? checkName('column name', params.columnName, { slashes: true }) : undefined;
  const source = await context.objects.get('source', connection);
  if (!source) throw notFound('connection', connection);
  const tableObject = await context.objects.get('table', tableKey({ connection, schema, table }));
  if (!tableObject) throw notFound('table', `${schema}.${table}`);
  if (columnName !== undefined) {
    const columns = tableObject.spec.columns;
    if (!isJsonObject(columns) || !Object.prototype.hasOwnProperty.call(columns, columnName)) {
      throw new DqError('NOT_FOUND', `column ${JSON.stringify(columnName)} of table ${JSON.stringify(`${schema}.${table}`)} not found`);
    }
  }
  const provider = typeof source.spec.provider_type === 'string' ? source.spec.provider_type : null;
  return { connection, schema, table, column: columnName, tableSpec: tableObject.spec, provider };
}

export function selectionOf(request: FastifyRequest, checkType: CheckType): Selection {
  if (checkType === 'profiling') return { checkType };
  const timeScale = (request.params as { timeScale?: string }).timeScale;
  if (timeScale !== 'daily' && timeScale !== 'monthly') {
    throw new DqError('INVALID_ARGUMENT', `timeScale must be daily or monthly, not ${JSON.stringify(timeScale)}`);
  }
  return { checkType, timeScale };
}

export async function resultsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const CHECK_TYPES: Array<{ type: CheckType; segment: string }> = [
    { type: 'profiling', segment: 'profiling' },
    { type: 'monitoring', segment: 'monitoring/:timeScale' },
    { type: 'partitioned', segment: 'partitioned/:timeScale' },
  ];

  for (const { type, segment } of CHECK_TYPES) {
    const timeScale = type !== 'profiling';
    for (const column of [false, true]) {
      const base = `${column ? COLUMN_URL : TABLE_URL}/${segment}`;
      const level = column ? 'column' : 'table';
      const params = paramsSchema(column, timeScale);
      const read = async (request: FastifyRequest) => ({
        target: await targetOf(context, request, column),
        selection: selectionOf(request, type),
        query: request.query as Query,
      });

      api.get(
        `${base}/overview`,
        {
          schema: {
            tags: ['check_results_overview'],
            operationId: `get_${level}_${type}_checks_overview`,
            summary: `get_${level}_${type}_checks_overview: the newest results of each ${level}-level ${type} check`,
            params,
            querystring: OVERVIEW_QUERY,
            response: { 200: arrayOf('CheckResultsOverviewDataModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return overview(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errors`,
        {
          schema: {
            tags: ['errors'],
            operationId: `get_${level}_${type}_errors`,
            summary: `get_${level}_${type}_errors: execution errors of ${level}-level ${type} checks`,
            params,
            querystring: ERRORS_QUERY,
            response: { 200: arrayOf('ErrorsListModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return errors(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errorsamples`,
        {
          schema: {
            tags: ['error_samples'],
            operationId: `get_${level}_${type}_error_samples`,
            summary: `get_${level}_${type}_error_samples: error samples of ${level}-level ${type} checks`,
            params,
            querystring: ERRORS_QUERY,
            response: { 200: arrayOf('ErrorSamplesListModel') },
          },
        },
        async (request) => {
          const { target, selection, query } = await read(request);
          return errorSamples(context.store, target, selection, query);
        },
      );

      api.get(
        `${base}/errorsamples/download`,
        {
          schema: {
            tags: ['error_samples'],
            operationId: `get_${level}_${type}_error_samples_download`,
            summary: `get_${level}_${type}_error_samples_download: the error samples as CSV (text/csv)`,
            params,
            querystring: ERRORS_QUERY,
          },
        },
        async (request, reply: FastifyReply) => {
          const { target, selection, query } = await read(request);
          const { rows } = await sampleRows(context.store, target, selection, query);
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${csvFileName(target)}"`)
            .send(toCsv(rows));
        },
      );
    }

    api.get(
      `${TABLE_URL}/${segment}/comparisons/:tableComparisonConfigurationName/results`,
      {
        schema: {
          tags: ['table_comparison_results'],
          operationId: `get_table_comparison_${type}_results`,
          summary: `get_table_comparison_${type}_results: the newest run of each check of a table comparison`,
          params: paramsSchema(false, timeScale, { tableComparisonConfigurationName: nameParam('table comparison name') }),
          response: { 200: ref('TableComparisonResultsModel') },
        },
      },
      async (request) => {
        const target = await targetOf(context, request, false);
        const selection = selectionOf(request, type);
        const name = checkName('table comparison name', (request.params as Record<string, string>).tableComparisonConfigurationName, { slashes: true });
        return comparisonResults(context.store, target, selection, name);
      },
    );
  }
}
