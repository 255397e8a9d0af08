/**
 * The states of an incident, as DQOps names them (IncidentStatus): opened by failures, then acknowledged,
 * resolved or muted by people; a resolved one is reopened by a new failure.
 */
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved', 'muted'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
