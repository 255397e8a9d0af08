/**
 * Incident notification settings, shared by a connection's `incident_grouping.incident_notification` and by
 * settings/defaultnotifications.dqonotifications.yaml (kind: default_notifications), as DQOps spells them. Each
 * address field is a comma-separated list of http(s) webhook URLs and e-mail addresses (checked beyond the schema,
 * with file:line:column, by the semantic checks); filtered notifications are a map of named, closed objects.
 */
import { documentSchema } from './documentSchema.js';
import { bool, closedObject, enumOf, int, mapOf, str, type Schema } from './schemaShapes.js';

const ADDRESS_HELP = 'comma-separated webhook URLs (http/https; Slack and Microsoft Teams incoming webhooks read `text`) or e-mail addresses; ${ENV_VAR} references are resolved only when sending';

export function addressFields(): Record<string, Schema> {
  return {
    incident_opened_addresses: str(`Where to notify when an incident is opened: ${ADDRESS_HELP}.`),
    incident_acknowledged_addresses: str(`Where to notify when an incident is acknowledged: ${ADDRESS_HELP}.`),
    incident_resolved_addresses: str(`Where to notify when an incident is resolved: ${ADDRESS_HELP}.`),
    incident_muted_addresses: str(`Where to notify when an incident is muted: ${ADDRESS_HELP}.`),
  };
}

export function filteredNotificationSchema(): Schema {
  return closedObject(
    {
      filter: closedObject(
        {
          connection: str('Connection name (* wildcards).'),
          schema: str('Schema name (* wildcards).'),
          table: str('Table name (* wildcards).'),
          table_priority: int('Table priority.'),
          data_group_name: str('Data group name (* wildcards).'),
          quality_dimension: str('Quality dimension.'),
          check_category: str('Check category.'),
          check_type: enumOf(['profiling', 'monitoring', 'partitioned'], 'Check type.'),
          check_name: str('Check name (* wildcards).'),
          highest_severity: int('Highest severity: 1 warning, 2 error, 3 fatal.', { minimum: 1, maximum: 3 }),
        },
        { description: 'Which incidents this notification matches; absent fields match all.' },
      ),
      target: closedObject(addressFields(), { description: 'Where to send the matching incidents, per event.' }),
      priority: int('Order of evaluation, lowest first; the first match is taken.'),
      process_additional_filters: bool('Also take the next matching filtered notification (and the connection addresses when every match says so).'),
      disabled: bool('Sends nothing.'),
      message: str('Text added to the message.'),
      do_not_create_incidents: bool('Accepted for DQOps compatibility; dqctl still opens the incident.'),
    },
    { description: 'A notification sent only for incidents matching its filter.' },
  );
}

export function incidentNotificationSchema(description: string): Schema {
  return closedObject(
    {
      ...addressFields(),
      filtered_notifications: mapOf(filteredNotificationSchema(), { description: 'Notifications sent only for incidents matching filters, by name.' }),
    },
    { description },
  );
}

/** settings/defaultnotifications.dqonotifications.yaml */
export function defaultNotificationsSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps default incident notifications',
    description: 'settings/defaultnotifications.dqonotifications.yaml (kind: default_notifications): addresses for connections without their own, and default filtered notifications.',
    apiVersion: 'dqo/v1',
    kind: 'default_notifications',
    spec: incidentNotificationSchema('The default notification addresses and filtered notifications.'),
    defs: {},
  });
}
