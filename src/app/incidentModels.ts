import { int64InJson, type JsonObject, type SeverityNumber } from '../model/index.js';
import type { IncidentIssueRow, IncidentRecord, IncidentStatus, Store } from '../store/store.js';

/**
 * The incidents as DQOps's API answers them: IncidentModel (camelCase, times in epoch milliseconds), the
 * CheckResultEntryModel of an incident's issues, and the top incidents with their counts by severity.
 */
export function incidentModel(r: IncidentRecord): JsonObject {
  return {
    incidentId: r.id,
    connection: r.connection,
    year: r.year,
    month: r.month,
    schema: r.schema,
    table: r.table,
    tablePriority: r.tablePriority,
    incidentHash: int64InJson(r.incidentHash),
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

/** One failed check result of an incident (CheckResultEntryModel). */
export function incidentIssueModel(r: IncidentIssueRow): JsonObject {
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

export type TopIncidentsGrouping = 'dimension' | 'category' | 'connection';

/**
 * DQOps's `find_top_incidents_grouped` (TopIncidentsModel): the newest incidents of a status first seen in the
 * last `days`, at most `limit` per group, and the open and acknowledged incidents counted by highest severity.
 */
export async function topIncidents(
  store: Store,
  request: { status: IncidentStatus; groupBy: TopIncidentsGrouping; limit: number; days: number; now: number },
): Promise<JsonObject> {
  const { now } = request;
  const recent = await store.incidents.list({
    firstSeenFrom: new Date(now - request.days * 86_400_000).toISOString(),
    statuses: [request.status],
    order: 'firstSeen',
    direction: 'desc',
    limit: 100_000,
  });
  const top: Record<string, JsonObject[]> = {};
  for (const incident of recent) {
    const group = (request.groupBy === 'dimension' ? incident.qualityDimension : request.groupBy === 'category' ? incident.checkCategory : incident.connection) ?? '(none)';
    const list = (top[group] ??= []);
    if (list.length < request.limit) list.push(incidentModel(incident));
  }
  const current = await store.incidents.list({ statuses: ['open', 'acknowledged'], limit: 100_000 });
  return {
    grouping: request.groupBy,
    status: request.status,
    topIncidents: top,
    openIncidentSeverityLevelCounts: severityCounts(current.filter((i) => i.status === 'open'), now),
    acknowledgedIncidentSeverityLevelCounts: severityCounts(current.filter((i) => i.status === 'acknowledged'), now),
  };
}

/** IncidentSeverityLevelCountsModel: per highest severity, how many were first seen in which stretch of time. */
function severityCounts(incidents: readonly IncidentRecord[], now: number): JsonObject {
  const today = new Date(now);
  const thisMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1);
  const lastMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1);
  const counts = (severity: SeverityNumber): JsonObject => {
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
