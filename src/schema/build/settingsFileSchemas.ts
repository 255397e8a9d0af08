/**
 * The files of a DQOps user home's settings/ folder that dqctl reads:
 * - settings/defaultschedules.dqoschedules.yaml (kind: default_schedules): the schedules DQOps gives a new
 *   connection, one per scheduling group.
 * (settings/defaultnotifications.dqonotifications.yaml is built by notificationSchemas.ts, beside the
 * connection's notification settings.)
 */
import { documentSchema } from './documentSchema.js';
import { closedObject, ref, type Schema } from './schemaShapes.js';
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


