import type { FastifyInstance, FastifyRequest } from 'fastify';
import { disableIncidentChecks } from '../../app/disableIncidentChecks.js';
import { listNotifications } from '../../app/incidentCommands.js';
import { incidentIssueModel, incidentModel, topIncidents, type TopIncidentsGrouping } from '../../app/incidentModels.js';
import { INCIDENT_STATUSES, incidentAt, setIncidentIssueUrlAt, setIncidentStatusAt, type IncidentAddress } from '../../app/incidentsByAddress.js';
import { histogramOf } from '../../app/issueHistogram.js';
import { recalibrateIncidentChecks } from '../../app/recalibrateIncidentChecks.js';
import { DqError, type SeverityNumber } from '../../model/index.js';
import type { IncidentSortOrder, IncidentStatus } from '../../app/services.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * DQOps's incidents API (IncidentsController): list a connection's incidents, read one (by connection, the year
 * and month of its first failure, and its id), its check results and their histogram; change its status or issue
 * URL (operator role; a status change sends that status's notifications through the outbox, in the same
 * transaction); disable the checks that failed in it, or recalibrate (loosen) the checks that can raise it;
 * counts per connection and the top incidents. The models and the work are src/app's (incidentModels.ts, …).
 */
const SORT_ORDERS: IncidentSortOrder[] = ['table', 'tablePriority', 'firstSeen', 'lastSeen', 'dataGroup', 'qualityDimension', 'checkName', 'highestSeverity', 'failedChecksCount'];

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
        months: number; open: boolean; acknowledged: boolean; resolved: boolean; muted: boolean; severity?: SeverityNumber; page: number; limit: number;
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
    async (request) => incidentModel(await incidentAt(context.store, incidentAddressOf(request))),
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
      const incident = await incidentAt(context.store, incidentAddressOf(request));
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
      return rows.map(incidentIssueModel);
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
      const incident = await incidentAt(context.store, incidentAddressOf(request));
      const q = request.query as { filter?: string; days?: number; date?: string; column?: string; check?: string };
      const rows = await context.store.incidents.issues(incident, {
        ...issuesWindow(q),
        ...(q.column ? { column: q.column } : {}),
        ...(q.check ? { checkName: q.check } : {}),
        ...(q.filter ? { text: q.filter } : {}),
      });
      return histogramOf(rows);
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
      await setIncidentStatusAt(context.store, context.objects, address, (request.query as { status: IncidentStatus }).status, `api:${request.caller.name}`);
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
      await setIncidentIssueUrlAt(context.store, incidentAddressOf(request), issueUrl === '' ? null : issueUrl);
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
      const incident = await incidentAt(context.store, incidentAddressOf(request));
      await disableIncidentChecks(context, incident, `api:${request.caller.name}`);
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
      const incident = await incidentAt(context.store, incidentAddressOf(request));
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
      const q = request.query as { status: IncidentStatus; groupBy: TopIncidentsGrouping; limit: number; days: number };
      return topIncidents(context.store, { ...q, now: Date.now() });
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
