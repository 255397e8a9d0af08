import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JsonObject } from '../../model/index.js';
import type { CheckResultRow, CheckType, Store } from '../../store/store.js';
import { issueHistogram } from '../../app/issueHistogram.js';
import { tableQualityStatus } from '../../app/tableQualityStatus.js';
import type { ServerContext } from '../context.js';
import { requireTable, TABLE_PARAMS, tablePathOf } from './tables.js';
import {
  checkDisplayName,
  epochMs,
  errorsFilter,
  groupByCheck,
  listHeader,
  localDateTime,
  withoutNulls,
  type Selection,
  type Target,
} from '../../app/results/checkResults.js';
import type { ResultsQuery as Query } from '../../app/results/resultsQuery.js';
import { COLUMN_URL, ERRORS_QUERY, paramsSchema, selectionOf, TABLE_URL, targetOf } from './results.js';

/**
 * DQOps's `check_results` and `sensor_readouts` groups: the stored results of a table's or column's checks,
 * grouped by check, newest first (at most `maxResultsPerCheck` per check, default 100; `monthStart` / `monthEnd`
 * bound the time periods). A readout is the sensor's value (actual and expected value), stored whether or not the
 * check's rules gave a verdict; a result adds the severity, exists only where they did, and shows a rule's own
 * actual value (max_failures: the failure count) where it reported one. Execution errors are served by the errors group and left out here. The rule bounds of a result
 * (warningLowerBound, …) are not stored by dqctl and are left out.
 */
type Kind = 'results' | 'readouts';

async function readRows(store: Store, target: Target, selection: Selection, query: Query, kind: Kind) {
  const { count, months, ...filter } = errorsFilter(target, selection, query);
  const rows = await store.checkResults({
    ...filter,
    read: kind,
    timePeriodFrom: months.from,
    timePeriodTo: months.to,
    executionErrors: 'exclude',
    newest: { of: 'rows', count },
  });
  return { rows, dataGroup: filter.dataGroup };
}

function entry(target: Target, row: CheckResultRow, kind: Kind): JsonObject {
  const common = {
    id: String(row.id),
    actualValue: row.actualValue,
    expectedValue: row.expectedValue,
    columnName: row.columnName,
    dataGroup: row.dataGroup,
    checkName: row.checkName,
    checkDisplayName: checkDisplayName(target, row),
    checkType: row.checkType,
    durationMs: row.durationMs,
    executedAt: epochMs(row.executedAt),
    timeGradient: row.timeGradient,
    timePeriod: localDateTime(row.timePeriod),
    provider: target.provider,
    qualityDimension: row.qualityDimension,
    tableComparison: row.tableComparison,
  };
  if (kind === 'readouts') return withoutNulls(common);
  return withoutNulls({ ...common, checkHash: row.checkHash, checkCategory: row.checkCategory, sensorName: row.sensorName, severity: row.severity });
}

async function listOf(store: Store, target: Target, selection: Selection, query: Query, kind: Kind): Promise<JsonObject[]> {
  const { rows, dataGroup } = await readRows(store, target, selection, query, kind);
  return groupByCheck(rows).map((checkRows) => {
    const { dataGroupsNames, ...header } = listHeader(target, checkRows, dataGroup);
    const entries = checkRows.map((row) => entry(target, row, kind));
    return kind === 'results'
      ? withoutNulls({ ...header, dataGroups: dataGroupsNames, checkResultEntries: entries })
      : withoutNulls({ ...header, dataGroupNames: dataGroupsNames, sensorName: checkRows[0].sensorName, sensorReadoutEntries: entries });
  });
}

export async function checkResultsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const types: Array<{ type: CheckType; segment: string }> = [
    { type: 'profiling', segment: 'profiling' },
    { type: 'monitoring', segment: 'monitoring/:timeScale' },
    { type: 'partitioned', segment: 'partitioned/:timeScale' },
  ];
  const listSchema = { type: 'array', items: { type: 'object', additionalProperties: true } };
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
            return listOf(context.store, target, selectionOf(request, type), request.query as Query, kind);
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
