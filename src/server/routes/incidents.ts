import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listNotifications } from '../../app/incidentCommands.js';
import { incidentSettingsOf } from '../../app/incidentSettings.js';
import { recalibrateIncidentChecks } from '../../app/recalibrateIncidentChecks.js';
import { findIncident, setIncidentIssueUrl, setIncidentStatus, type IncidentAddress } from '../../incidents/index.js';
import { DqError, isJsonObject, type JsonObject } from '../../model/index.js';
import { INCIDENT_STATUSES, type IncidentIssueRow, type IncidentRecord, type IncidentSortOrder, type IncidentStatus } from '../../store/store.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * DQOps's incidents API (IncidentsController): list a connection's incidents, read one (by connection, the year
 * and month of its first failure, and its id), its check results and their histogram; change its status or issue
 * URL (operator role; a status change sends that status's notifications through the outbox, in the same
 * transaction); disable the checks that failed in it, or recalibrate (loosen) the checks that can raise it; counts per connection and the top incidents. Incidents are
 * IncidentModel in camelCase with times in epoch milliseconds, as DQOps answers.
 */
const SORT_ORDERS: IncidentSortOrder[] = ['table', 'tablePriority', 'firstSeen', 'lastSeen', 'dataGroup', 'qualityDimension', 'checkName', 'highestSeverity', 'failedChecksCount'];

export function incidentModel(r: IncidentRecord): JsonObject {
  return {
    incidentId: r.id,
    connection: r.connection,
    year: r.year,
    month: r.month,
    schema: r.schema,
    table: r.table,
    tablePriority: r.tablePriority,
    incidentHash: r.incidentHash,
    firstSeen: Date.parse(r.firstSeen),
    lastSeen: Date.parse(r.lastSeen),
    incidentUntil: Date.parse(r.incidentUntil),
    dataGroup: r.dataGroup,
    qualityDimension: r.qualityDimension,
    checkCategory: r.checkCategory,
    checkType: r.checkType,
    checkName: r.checkName,
    highestSeverity: r.highestSeverity,
    minimumSeverity: r.minimumSeverity,
    failedChecksCount: r.failedChecksCount,
    issueUrl: r.issueUrl,
    status: r.status,
  };
}

function checkResultEntry(r: IncidentIssueRow): JsonObject {
  return {
    id: String(r.id),
    checkHash: r.checkHash,
    checkCategory: r.checkCategory,
    checkName: r.checkName,
    checkDisplayName: null,
    checkType: r.checkType,
    actualValue: r.actualValue,
    expectedValue: r.expectedValue,
    severity: r.severity,
    columnName: r.columnName,
    dataGroup: r.dataGroup,
    durationMs: r.durationMs,
    executedAt: Date.parse(r.executedAt),
    timeGradient: r.timeGradient,
    timePeriod: r.timePeriod.replace(/\.\d{3}Z$/, ''),
    qualityDimension: r.qualityDimension,
    sensorName: r.sensorName,
    tableComparison: r.tableComparison,
  };
}

const CONNECTION_PARAMS = {
  type: 'object',
  properties: { connectionName: { type: 'string', description: 'connection name' } },
  required: ['connectionName'],
};

const INCIDENT_PARAMS = {
  type: 'object',
  properties: {
    connectionName: { type: 'string', description: 'connection name' },
    year: { type: 'integer', description: 'year of the first failure' },
    month: { type: 'integer', minimum: 1, maximum: 12, description: 'month (1-12) of the first failure' },
    incidentId: { type: 'string', description: 'incident id' },
  },
  required: ['connectionName', 'year', 'month', 'incidentId'],
};

function incidentAddressOf(request: FastifyRequest): IncidentAddress {
  const p = request.params as { connectionName: string; year: number; month: number; incidentId: string };
  return { connection: checkName('connection name', p.connectionName), year: p.year, month: p.month, id: p.incidentId };
}

/** The first day (UTC) of the month `months - 1` months before now: `months=1` is this month. */
function monthsBack(now: Date, months: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - Math.max(0, months - 1), 1)).toISOString();
}

/** The issues filter of the issues and histogram routes: `days` back from now, or one `date`. */
function issuesWindow(query: { days?: number; date?: string }): { executedFrom?: string; executedTo?: string } {
  if (query.date) {
    const day = Date.parse(`${query.date}T00:00:00Z`);
    if (Number.isNaN(day)) throw new DqError('INVALID_ARGUMENT', `date must be YYYY-MM-DD, not ${JSON.stringify(query.date)}`);
    return { executedFrom: new Date(day).toISOString(), executedTo: new Date(day + 86_400_000).toISOString() };
  }
  if (query.days !== undefined && query.days > 0) return { executedFrom: new Date(Date.now() - query.days * 86_400_000).toISOString() };
  return {};
}

export async function incidentsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['incidents'];

  api.get(
    '/incidents/:connectionName',
    {
      schema: {
        tags,
        operationId: 'find_recent_incidents_on_connection',
        summary: 'find_recent_incidents_on_connection: the incidents of a connection first seen in the last `months` months',
        params: CONNECTION_PARAMS,
        querystring: {
          type: 'object',
          properties: {
            months: { type: 'integer', minimum: 1, default: 3, description: 'months back, this month included' },
            open: { type: 'boolean', default: true },
            acknowledged: { type: 'boolean', default: true },
            resolved: { type: 'boolean', default: false },
            muted: { type: 'boolean', default: false },
            severity: { type: 'integer', minimum: 1, maximum: 3, description: 'only this highest severity' },
            page: { type: 'integer', minimum: 1, default: 1 },
            limit: { type: 'integer', minimum: 1, maximum: 10000, default: 50 },
            filter: { type: 'string', description: 'text in the table, data group, dimension, category or check name' },
            dimension: { type: 'string' },
            category: { type: 'string' },
            order: { type: 'string', enum: SORT_ORDERS, default: 'firstSeen' },
            direction: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
          },
        },
        response: { 200: arrayOf('IncidentModel') },
      },
    },
    async (request) => {
      const connection = checkName('connection name', (request.params as { connectionName: string }).connectionName);
      const q = request.query as {
        months: number; open: boolean; acknowledged: boolean; resolved: boolean; muted: boolean; severity?: number; page: number; limit: number;
        filter?: string; dimension?: string; category?: string; order: IncidentSortOrder; direction: 'asc' | 'desc';
      };
      const statuses = INCIDENT_STATUSES.filter((s) => q[s]);
      const rows = await context.store.incidents.list({
        connection,
        firstSeenFrom: monthsBack(new Date(), q.months),
        statuses,
        ...(q.severity !== undefined ? { severity: q.severity } : {}),
        ...(q.filter ? { text: q.filter } : {}),
        ...(q.dimension ? { qualityDimension: q.dimension } : {}),
        ...(q.category ? { checkCategory: q.category } : {}),
        order: q.order,
        direction: q.direction,
        page: q.page,
        limit: q.limit,
      });
      return rows.map(incidentModel);
    },
  );

  api.get(
    '/incidents/:connectionName/:year/:month/:incidentId',
    { schema: { tags, operationId: 'get_incident', summary: 'get_incident: one incident', params: INCIDENT_PARAMS, response: { 200: ref('IncidentModel') } } },
    async (request) => incidentModel(await findIncident(context.store, incidentAddressOf(request))),
  );

  const issuesQuery = {
    page: { type: 'integer', minimum: 1, default: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 100000, default: 50 },
    filter: { type: 'string', description: 'text in the check or column name' },
    days: { type: 'integer', minimum: 1, description: 'only results of the last days' },
    date: { type: 'string', description: 'only results of this day (YYYY-MM-DD)' },
    column: { type: 'string' },
    check: { type: 'string' },
  };

  api.get(
    '/incidents/:connectionName/:year/:month/:incidentId/issues',
    {
      schema: {
        tags,
        operationId: 'get_incident_issues',
        summary: 'get_incident_issues: the failed check results grouped into the incident, newest first',
        params: INCIDENT_PARAMS,
        querystring: {
          type: 'object',
          properties: { ...issuesQuery, order: { type: 'string', description: 'accepted; results are ordered by executedAt' }, direction: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } },
        },
        response: { 200: arrayOf('CheckResultEntryModel') },
      },
    },
    async (request) => {
      const incident = await findIncident(context.store, incidentAddressOf(request));
      const q = request.query as { page: number; limit: number; filter?: string; days?: number; date?: string; column?: string; check?: string; direction: 'asc' | 'desc' };
      const rows = await context.store.incidents.issues(incident, {
        ...issuesWindow(q),
        ...(q.column ? { column: q.column } : {}),
        ...(q.check ? { checkName: q.check } : {}),
        ...(q.filter ? { text: q.filter } : {}),
        page: q.page,
        limit: q.limit,
        direction: q.direction,
      });
      return rows.map(checkResultEntry);
    },
  );

  api.get(
    '/incidents/:connectionName/:year/:month/:incidentId/histogram',
    {
      schema: {
        tags,
        operationId: 'get_incident_histogram',
        summary: 'get_incident_histogram: the failed results of the incident by day, column and check',
        params: INCIDENT_PARAMS,
        querystring: { type: 'object', properties: { filter: issuesQuery.filter, days: issuesQuery.days, date: issuesQuery.date, column: issuesQuery.column, check: issuesQuery.check } },
        response: { 200: ref('IssueHistogramModel') },
      },
    },
    async (request) => {
      const incident = await findIncident(context.store, incidentAddressOf(request));
      const q = request.query as { filter?: string; days?: number; date?: string; column?: string; check?: string };
      const rows = await context.store.incidents.issues(incident, {
        ...issuesWindow(q),
        ...(q.column ? { column: q.column } : {}),
        ...(q.check ? { checkName: q.check } : {}),
        ...(q.filter ? { text: q.filter } : {}),
      });
      const histogram = {
        hasProfilingIssues: false,
        hasDailyMonitoringIssues: false,
        hasMonthlyMonitoringIssues: false,
        hasDailyPartitionedIssues: false,
        hasMonthlyPartitionedIssues: false,
        days: {} as Record<string, { warnings: number; errors: number; fatals: number; totalCount: number }>,
        columns: {} as Record<string, number>,
        checks: {} as Record<string, number>,
      };
      for (const r of rows) {
        const monthly = r.timeGradient.startsWith('month');
        if (r.checkType === 'profiling') histogram.hasProfilingIssues = true;
        else if (r.checkType === 'monitoring') histogram[monthly ? 'hasMonthlyMonitoringIssues' : 'hasDailyMonitoringIssues'] = true;
        else histogram[monthly ? 'hasMonthlyPartitionedIssues' : 'hasDailyPartitionedIssues'] = true;
        const day = (histogram.days[r.executedAt.slice(0, 10)] ??= { warnings: 0, errors: 0, fatals: 0, totalCount: 0 });
        if (r.severity === 1) day.warnings++;
        else if (r.severity === 2) day.errors++;
        else day.fatals++;
        day.totalCount++;
        if (r.columnName !== null) histogram.columns[r.columnName] = (histogram.columns[r.columnName] ?? 0) + 1;
        histogram.checks[r.checkName] = (histogram.checks[r.checkName] ?? 0) + 1;
      }
      return histogram;
    },
  );

  api.post(
    '/incidents/:connectionName/:year/:month/:incidentId/status',
    {
      config: { role: 'operator' },
      schema: {
        tags,
        operationId: 'set_incident_status',
        summary: 'set_incident_status: acknowledge, resolve, mute or reopen an incident; notifies the addresses of the new status',
        params: INCIDENT_PARAMS,
        querystring: { type: 'object', properties: { status: { type: 'string', enum: [...INCIDENT_STATUSES] } }, required: ['status'] },
      },
    },
    async (request, reply) => {
      const address = incidentAddressOf(request);
      const settings = await incidentSettingsOf(context.objects, address.connection);
      await setIncidentStatus(context.store, address, {
        status: (request.query as { status: IncidentStatus }).status,
        by: `api:${request.caller.name}`,
        at: new Date().toISOString(),
        ...settings,
      });
      context.deliverer?.nudge();
      return reply.status(204).send();
    },
  );

  api.post(
    '/incidents/:connectionName/:year/:month/:incidentId/issueurl',
    {
      config: { role: 'operator' },
      schema: {
        tags,
        operationId: 'set_incident_issue_url',
        summary: 'set_incident_issue_url: link the incident to an issue in a tracker',
        params: INCIDENT_PARAMS,
        querystring: { type: 'object', properties: { issueUrl: { type: 'string', description: 'the issue URL (http or https)' } }, required: ['issueUrl'] },
      },
    },
    async (request, reply) => {
      const issueUrl = (request.query as { issueUrl: string }).issueUrl;
      if (issueUrl !== '' && !/^https?:\/\/[^\s]+$/i.test(issueUrl)) {
        throw new DqError('INVALID_ARGUMENT', `issueUrl must be an http(s) URL, not ${JSON.stringify(issueUrl)}`);
      }
      await setIncidentIssueUrl(context.store, incidentAddressOf(request), issueUrl === '' ? null : issueUrl);
      return reply.status(204).send();
    },
  );

  api.post(
    '/incidents/:connectionName/:year/:month/:incidentId/checks/disable',
    {
      config: { role: 'operator' },
      schema: {
        tags,
        operationId: 'disable_checks_for_incident',
        summary: "disable_checks_for_incident: sets disabled: true on every check that failed in the incident, in its table's spec",
        params: INCIDENT_PARAMS,
      },
    },
    async (request, reply) => {
      const incident = await findIncident(context.store, incidentAddressOf(request));
      const issues = await context.store.incidents.issues(incident);
      const tableName = `${incident.connection}/${incident.schema}.${incident.table}`;
      await context.objects.update('table', tableName, { caller: `api:${request.caller.name}` }, (current) => {
        const spec = structuredClone(current.spec);
        for (const issue of issues) disableCheck(spec, issue);
        return { spec };
      });
      return reply.status(204).send();
    },
  );

  api.post(
    '/incidents/:connectionName/:year/:month/:incidentId/checks/recalibrate',
    {
      config: { role: 'operator' },
      schema: {
        tags,
        operationId: 'recalibrate_checks_for_incident',
        summary:
          "recalibrate_checks_for_incident: loosens the thresholds of the checks that can raise the incident (its table's checks matching its dimension, category, type and name; not profiling), for each severity their recent results reached, in its table's spec",
        params: INCIDENT_PARAMS,
      },
    },
    async (request, reply) => {
      const incident = await findIncident(context.store, incidentAddressOf(request));
      await recalibrateIncidentChecks(context, incident, `api:${request.caller.name}`);
      return reply.status(204).send();
    },
  );

  api.get(
    '/incidentstat',
    {
      schema: {
        tags,
        operationId: 'find_connection_incident_stats',
        summary: 'find_connection_incident_stats: open incidents per connection',
        response: { 200: arrayOf('IncidentsPerConnectionModel') },
      },
    },
    async () =>
      (await context.store.incidents.statistics()).map((s) => ({ connection: s.connection, openIncidents: s.openIncidents, mostRecentFirstSeen: Date.parse(s.mostRecentFirstSeen) })),
  );

  api.get(
    '/topincidents',
    {
      schema: {
        tags,
        operationId: 'find_top_incidents_grouped',
        summary: 'find_top_incidents_grouped: the newest incidents grouped by dimension, category or connection, and counts by severity',
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: [...INCIDENT_STATUSES], default: 'open' },
            groupBy: { type: 'string', enum: ['dimension', 'category', 'connection'], default: 'dimension' },
            limit: { type: 'integer', minimum: 1, default: 10, description: 'incidents per group' },
            days: { type: 'integer', minimum: 1, default: 15, description: 'first seen in the last days' },
          },
        },
        response: { 200: ref('TopIncidentsModel') },
      },
    },
    async (request) => {
      const q = request.query as { status: IncidentStatus; groupBy: 'dimension' | 'category' | 'connection'; limit: number; days: number };
      const now = Date.now();
      const recent = await context.store.incidents.list({ firstSeenFrom: new Date(now - q.days * 86_400_000).toISOString(), statuses: [q.status], order: 'firstSeen', direction: 'desc', limit: 100_000 });
      const top: Record<string, JsonObject[]> = {};
      for (const incident of recent) {
        const group = (q.groupBy === 'dimension' ? incident.qualityDimension : q.groupBy === 'category' ? incident.checkCategory : incident.connection) ?? '(none)';
        const list = (top[group] ??= []);
        if (list.length < q.limit) list.push(incidentModel(incident));
      }
      const current = await context.store.incidents.list({ statuses: ['open', 'acknowledged'], limit: 100_000 });
      return {
        grouping: q.groupBy,
        status: q.status,
        topIncidents: top,
        openIncidentSeverityLevelCounts: severityCounts(current.filter((i) => i.status === 'open'), now),
        acknowledgedIncidentSeverityLevelCounts: severityCounts(current.filter((i) => i.status === 'acknowledged'), now),
      };
    },
  );

  api.get(
    '/notifications/outbox',
    {
      schema: {
        tags: ['notifications'],
        operationId: 'list_notification_messages',
        summary: "list_notification_messages (dqctl): the notification outbox, newest first; `status=failed` lists what was given up and why",
        querystring: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
            connection: { type: 'string' },
            incidentId: { type: 'string' },
            limit: { type: 'integer', minimum: 1, maximum: 10000, default: 100 },
          },
        },
        response: { 200: arrayOf('NotificationMessageModel') },
      },
    },
    async (request) => {
      const q = request.query as { status?: 'pending' | 'delivered' | 'failed'; connection?: string; incidentId?: string; limit: number };
      return listNotifications(context.store, q);
    },
  );
}

function severityCounts(incidents: readonly IncidentRecord[], now: number): JsonObject {
  const today = new Date(now);
  const thisMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1);
  const lastMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1);
  const counts = (severity: number): JsonObject => {
    const of = incidents.filter((i) => i.highestSeverity === severity).map((i) => Date.parse(i.firstSeen));
    return {
      totalCount: of.length,
      countFromLast24h: of.filter((t) => t >= now - 86_400_000).length,
      countFromLast7days: of.filter((t) => t >= now - 7 * 86_400_000).length,
      currentMonthCount: of.filter((t) => t >= thisMonth).length,
      currentMonthDate: new Date(thisMonth).toISOString().slice(0, 10),
      previousMonthCount: of.filter((t) => t >= lastMonth && t < thisMonth).length,
      previousMonthDate: new Date(lastMonth).toISOString().slice(0, 10),
    };
  };
  return { warningCounts: counts(1), errorCounts: counts(2), fatalCounts: counts(3) };
}

/** Sets `disabled: true` on the check of a failed result, at its place in the table spec (created when a policy supplied it). */
function disableCheck(spec: JsonObject, issue: IncidentIssueRow): void {
  const child = (holder: JsonObject, key: string): JsonObject => {
    if (!isJsonObject(holder[key])) holder[key] = {};
    return holder[key] as JsonObject;
  };
  let holder: JsonObject = issue.columnName !== null ? child(child(spec, 'columns'), issue.columnName) : spec;
  const scale = issue.timeGradient.startsWith('month') ? 'monthly' : 'daily';
  if (issue.checkType === 'profiling') holder = child(holder, 'profiling_checks');
  else holder = child(child(holder, issue.checkType === 'monitoring' ? 'monitoring_checks' : 'partitioned_checks'), scale);
  if (issue.tableComparison !== null) holder = child(child(holder, 'comparisons'), issue.tableComparison);
  else holder = child(holder, issue.checkCategory);
  child(holder, issue.checkName).disabled = true;
}
