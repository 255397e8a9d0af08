import { int64InJson, SEVERITY_NAMES, type JsonObject } from '../model/index.js';
import type { IncidentSnapshot, IncidentStatus, OutboxMessage } from '../store/store.js';

/**
 * The message of an incident event: DQOps's IncidentNotificationMessage fields in snake_case (what a webhook
 * receives as JSON), plus `text`, a short human summary naming the table with a link to the incident (Slack and
 * Microsoft Teams incoming webhooks show `text`), and for a filtered notification its `message`. The payload is
 * made when a message is sent or shown, from the incident as the outbox row kept it (as it was at the event),
 * and `text` only when sending: the link needs the URL of the server that sends it.
 * Names go into the text as they are (it is text, not HTML or markup); Slack's three control characters are
 * escaped for Slack as Slack asks (`slackText`).
 */

export function messagePayload(incident: IncidentSnapshot, status: IncidentStatus, filter: { name: string | null; message: string | null }): JsonObject {
  const payload: JsonObject = {
    incident_id: incident.id,
    connection: incident.connection,
    schema: incident.schema,
    table: incident.table,
    table_priority: incident.tablePriority,
    incident_hash: int64InJson(incident.incidentHash),
    first_seen: incident.firstSeen,
    last_seen: incident.lastSeen,
    incident_until: incident.incidentUntil,
    data_group_name: incident.dataGroup,
    quality_dimension: incident.qualityDimension,
    check_category: incident.checkCategory,
    check_type: incident.checkType,
    check_name: incident.checkName,
    highest_severity: incident.highestSeverity,
    failed_checks_count: incident.failedChecksCount,
    issue_url: incident.issueUrl,
    status,
    year: incident.year,
    month: incident.month,
  };
  if (filter.message !== null) payload.message = filter.message;
  if (filter.name !== null) payload.notification_name = filter.name;
  return payload;
}

/** The payload of an outbox message: its incident as at the event, the event as the status, its filter's message. */
export function outboxPayload(message: OutboxMessage): JsonObject {
  return messagePayload(message.incident, message.event, { name: message.filterName, message: message.filterMessage });
}

/** Where a person sees the incident: the REST resource of the server that sends the message. */
export function incidentLink(baseUrl: string, payload: JsonObject): string {
  const segment = (v: unknown) => encodeURIComponent(String(v));
  return `${baseUrl.replace(/\/+$/, '')}/api/incidents/${segment(payload.connection)}/${segment(payload.year)}/${segment(payload.month)}/${segment(payload.incident_id)}`;
}

const VERBS: Record<string, string> = { open: 'opened', acknowledged: 'acknowledged', resolved: 'resolved', muted: 'muted' };

/** One line of plain text, e.g. `Incident opened on table public.orders (connection shop): 3 failed checks, …`. */
export function messageText(payload: JsonObject, link: string): string {
  const parts = [
    payload.quality_dimension ? `quality dimension ${payload.quality_dimension}` : undefined,
    payload.check_category ? `category ${payload.check_category}` : undefined,
    payload.check_name ? `check ${payload.check_name}` : undefined,
    payload.data_group_name ? `data group ${payload.data_group_name}` : undefined,
  ].filter((p) => p !== undefined);
  const count = Number(payload.failed_checks_count);
  return (
    `Incident ${VERBS[String(payload.status)] ?? String(payload.status)} on table ${payload.schema}.${payload.table} (connection ${payload.connection})` +
    `${parts.length > 0 ? `, ${parts.join(', ')}` : ''}: ${count} failed check${count === 1 ? '' : 's'}, highest severity ` +
    `${(SEVERITY_NAMES as readonly string[])[Number(payload.highest_severity)] ?? payload.highest_severity}, first seen ${payload.first_seen}.` +
    `${typeof payload.message === 'string' ? ` ${payload.message}` : ''} ${link}`
  );
}

/** Slack reads `&`, `<` and `>` as markup; its documented escapes keep names literal. */
export function slackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function emailSubject(payload: JsonObject): string {
  return `[dqctl] Incident ${VERBS[String(payload.status)] ?? payload.status}: ${payload.schema}.${payload.table} (${payload.connection})`.replace(/[\r\n]+/g, ' ');
}
