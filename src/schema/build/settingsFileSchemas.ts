/**
 * The files of a DQOps user home's settings/ folder that dqctl reads:
 * - settings/defaultschedules.dqoschedules.yaml (kind: default_schedules): the schedules DQOps gives a new
 *   connection, one per scheduling group.
 * - settings/defaultnotifications.dqonotifications.yaml (kind: default_notifications): where incidents of every
 *   connection are notified, besides the connection's own addresses (filtered notifications included).
 */
import { documentSchema } from './documentSchema.js';
import { bool, closedObject, enumOf, int, mapOf, ref, str, type Schema } from './schemaShapes.js';
import { cronScheduleDefs, cronSchedulesOf } from './sharedSpecs.js';

export function defaultSchedulesSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps default schedules',
    description: 'settings/defaultschedules.dqoschedules.yaml (kind: default_schedules): the schedules of new connections.',
    apiVersion: 'dqo/v1',
    kind: 'default_schedules',
    spec: closedObject(cronSchedulesOf(ref('cron_schedule')), { description: 'A schedule per scheduling group.' }),
    defs: cronScheduleDefs(),
  });
}

const ADDRESS_FIELDS = {
  incident_opened_addresses: str('Where to notify when an incident is opened (e-mail addresses or webhook URLs, comma separated).'),
  incident_acknowledged_addresses: str('Where to notify when an incident is acknowledged.'),
  incident_resolved_addresses: str('Where to notify when an incident is resolved.'),
  incident_muted_addresses: str('Where to notify when an incident is muted.'),
};

export function defaultNotificationsSchema(file: string): Schema {
  return documentSchema({
    file,
    title: 'dqctl / DQOps default notifications',
    description: 'settings/defaultnotifications.dqonotifications.yaml (kind: default_notifications): incident notifications of every connection.',
    apiVersion: 'dqo/v1',
    kind: 'default_notifications',
    spec: closedObject(
      {
        ...ADDRESS_FIELDS,
        filtered_notifications: mapOf(ref('filtered_notification'), { description: 'Notifications sent only for incidents that match a filter, by name.' }),
      },
      { description: 'Notification addresses for incidents of all connections.' },
    ),
    defs: {
      filtered_notification: closedObject(
        {
          filter: closedObject(
            {
              connection: str('Connection name pattern (* wildcards).'),
              schema: str('Schema name pattern.'),
              table: str('Table name pattern.'),
              table_priority: int('Matches tables whose priority is at most this value.'),
              data_group_name: str('Data group name pattern.'),
              quality_dimension: str('Data quality dimension.'),
              check_category: str('Check category.'),
              check_type: enumOf(['profiling', 'monitoring', 'partitioned'], 'Check type.'),
              check_name: str('Check name pattern.'),
              highest_severity: int('Highest severity of the incident (1 warning, 2 error, 3 fatal).'),
            },
            { description: 'Which incidents this notification is for.' },
          ),
          target: closedObject(ADDRESS_FIELDS, { description: 'Where the matching incidents are notified.' }),
          priority: int('Order in which filtered notifications are matched (lower first).'),
          process_additional_filters: bool('Also try the next filtered notifications after this one matched.'),
          disabled: bool('Keeps the notification without sending it.'),
          message: str('Text added to the notification.'),
          do_not_create_incidents: bool('Incidents matching the filter are not created at all.'),
        },
        { description: 'A notification sent only for incidents that match its filter.' },
      ),
    },
  });
}
