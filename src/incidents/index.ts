/** Incidents: failed checks grouped by DQOps's rules, their states, and the messages their changes send. */
export { DEFAULT_GROUPING, effectiveGrouping, INCIDENT_GROUPING_LEVELS, type EffectiveGrouping, type IncidentGroupingLevel } from './effectiveGrouping.js';
export { incidentKeyOf, type IncidentKey } from './incidentKey.js';
export { addDays, applyObservation, changeStatus, incidentIdOf, observeFailures, type Observation } from './incidentTransitions.js';
export { checkAddress, kindOf, resolveAddress, splitAddresses, type AddressKind } from './notificationAddresses.js';
export { emailSubject, incidentLink, messagePayload, messageText, outboxPayload, slackText } from './notificationMessage.js';
export { ADDRESS_FIELDS, filterMatches, notificationSettings, recipientsOf, wildcardMatch, type NotificationSettings, type Recipient } from './notificationTargets.js';
export { incidentGrouping, messagesOf, recordResultsOfTables, recordResultsWithIncidents, type IncidentConfiguration, type IncidentsOutcome, type TableResults } from './recordIncidents.js';
export { findIncident, incidentNotFound, setIncidentIssueUrl, setIncidentStatus, type IncidentAddress } from './changeIncident.js';
