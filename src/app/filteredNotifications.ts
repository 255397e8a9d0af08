import { DEFAULT_NOTIFICATIONS_NAME } from '../manifest/objectPaths.js';
import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { DqError, isJsonObject, type JsonObject, type LiveObject } from '../model/index.js';
import { validateDocument } from '../schema/index.js';
import { validateConnectionSpec } from './connectionSpecValidation.js';
import { refuseInvalidAddresses } from './incidentSettings.js';

/**
 * DQOps's filtered notifications (FilteredNotificationsController) and default webhooks (DefaultWebhooksController):
 * - a connection's, in its spec at `incident_grouping.incident_notification.filtered_notifications`;
 * - the defaults', in the default_notifications object (settings/defaultnotifications.dqonotifications.yaml),
 *   created on the first write; GET|PUT /defaults/defaultwebhooks is that object's whole spec.
 * Every write is validated like the files (JSON Schema, and every address a URL or an e-mail), so the API
 * cannot store what `dqctl validate` refuses. Addresses are returned as written (`${ENV}` unresolved).
 */
type Notifications = Record<string, JsonObject>;

/** A write of one filtered notification: create (409 when taken), replace (404 when absent; a `name` in the model renames, 409 when taken), delete (404 when absent). */
export type FilteredNotificationChange =
  | { kind: 'create'; model: JsonObject }
  | { kind: 'replace'; name: string; model: JsonObject }
  | { kind: 'delete'; name: string };

function modelOf(name: string, spec: JsonObject): JsonObject {
  return { name, ...spec };
}

function sorted(map: Notifications): JsonObject[] {
  return Object.entries(map)
    .sort(([an, a], [bn, b]) => ((a.priority as number) ?? 1000) - ((b.priority as number) ?? 1000) || (an < bn ? -1 : an > bn ? 1 : 0))
    .map(([name, spec]) => modelOf(name, spec));
}

function specOf(model: JsonObject): JsonObject {
  const { name: _name, ...spec } = model;
  refuseInvalidAddresses(spec, '');
  return spec;
}

function connectionNotifications(spec: JsonObject): Notifications {
  const grouping = isJsonObject(spec.incident_grouping) ? spec.incident_grouping : {};
  const notification = isJsonObject(grouping.incident_notification) ? grouping.incident_notification : {};
  return (isJsonObject(notification.filtered_notifications) ? notification.filtered_notifications : {}) as Notifications;
}

function withConnectionNotifications(spec: JsonObject, map: Notifications): JsonObject {
  const grouping = isJsonObject(spec.incident_grouping) ? spec.incident_grouping : {};
  const notification = isJsonObject(grouping.incident_notification) ? grouping.incident_notification : {};
  return { ...spec, incident_grouping: { ...grouping, incident_notification: { ...notification, filtered_notifications: map } } };
}

function defaultsNotifications(spec: JsonObject | undefined): Notifications {
  return (isJsonObject(spec?.filtered_notifications) ? spec.filtered_notifications : {}) as Notifications;
}

function validateDefaults(spec: JsonObject): JsonObject {
  const violations = validateDocument('default_notifications', { apiVersion: 'dqo/v1', kind: 'default_notifications', spec });
  if (violations.length > 0) {
    const listed = violations.map((v) => ({ path: `/${v.path.slice(1).join('/')}`, message: v.summary, code: v.code }));
    throw new DqError('BODY_INVALID', `the default notifications are invalid: ${listed[0].path}: ${listed[0].message}`, { violations: listed });
  }
  refuseInvalidAddresses(spec, '');
  return spec;
}

const notFound = (where: string, name: string) => new DqError('NOT_FOUND', `filtered notification ${JSON.stringify(name)} not found in ${where}`);
const exists = (where: string, name: string) => new DqError('ALREADY_EXISTS', `filtered notification ${JSON.stringify(name)} already exists in ${where}`);

/**
 * The change of one map of filtered notifications for a write: create (409 when taken), replace (404 when absent;
 * a `name` in the body renames, 409 when taken), delete (404 when absent).
 */
function changed(map: Notifications, where: string, op: FilteredNotificationChange): Notifications {
  const next = { ...map };
  switch (op.kind) {
    case 'create': {
      const name = op.model.name;
      if (typeof name !== 'string' || name.trim() === '') throw new DqError('BODY_INVALID', 'a filtered notification needs a name', { violations: [{ path: '/name', message: 'required' }] });
      if (next[name]) throw exists(where, name);
      next[name] = specOf(op.model);
      return next;
    }
    case 'replace': {
      if (!next[op.name]) throw notFound(where, op.name);
      const target = typeof op.model.name === 'string' && op.model.name !== '' ? op.model.name : op.name;
      if (target !== op.name && next[target]) throw exists(where, target);
      delete next[op.name];
      next[target] = specOf(op.model);
      return next;
    }
    case 'delete':
      if (!next[op.name]) throw notFound(where, op.name);
      delete next[op.name];
      return next;
  }
}

async function requireSource(objects: LiveObjects, name: string): Promise<LiveObject> {
  const live = await objects.get('source', name);
  if (!live) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
  return live;
}

const defaultsSpec = async (objects: LiveObjects) => (await objects.get('default_notifications', DEFAULT_NOTIFICATIONS_NAME))?.spec;

/** A connection's filtered notifications (FilteredNotificationModel), by priority then name. */
export async function connectionFilteredNotifications(objects: LiveObjects, connection: string): Promise<JsonObject[]> {
  return sorted(connectionNotifications((await requireSource(objects, connection)).spec));
}

export async function connectionFilteredNotification(objects: LiveObjects, connection: string, name: string): Promise<JsonObject> {
  const spec = connectionNotifications((await requireSource(objects, connection)).spec)[name];
  if (!spec) throw notFound(`connection ${JSON.stringify(connection)}`, name);
  return modelOf(name, spec);
}

export async function changeConnectionFilteredNotification(objects: LiveObjects, connection: string, change: FilteredNotificationChange, writer: WriteContext): Promise<void> {
  const where = `connection ${JSON.stringify(connection)}`;
  await objects.update('source', connection, writer, (current) => ({
    spec: validateConnectionSpec(withConnectionNotifications(current.spec, changed(connectionNotifications(current.spec), where, change))),
  }));
}

/** The default filtered notifications, by priority then name. */
export async function defaultFilteredNotifications(objects: LiveObjects): Promise<JsonObject[]> {
  return sorted(defaultsNotifications(await defaultsSpec(objects)));
}

export async function defaultFilteredNotification(objects: LiveObjects, name: string): Promise<JsonObject> {
  const spec = defaultsNotifications(await defaultsSpec(objects))[name];
  if (!spec) throw notFound('the default notifications', name);
  return modelOf(name, spec);
}

/** Creates the default notifications object on its first write. */
export async function changeDefaultFilteredNotification(objects: LiveObjects, change: FilteredNotificationChange, writer: WriteContext): Promise<void> {
  await objects.upsert('default_notifications', DEFAULT_NOTIFICATIONS_NAME, writer, (current) => {
    const spec = current?.spec ?? {};
    return { spec: validateDefaults({ ...spec, filtered_notifications: changed(defaultsNotifications(spec), 'the default notifications', change) }) };
  });
}

/** The whole default notifications spec (IncidentNotificationSpec); {} before the first write. */
export async function defaultNotifications(objects: LiveObjects): Promise<JsonObject> {
  return (await defaultsSpec(objects)) ?? {};
}

export async function replaceDefaultNotifications(objects: LiveObjects, spec: JsonObject, writer: WriteContext): Promise<void> {
  const valid = validateDefaults(spec);
  await objects.upsert('default_notifications', DEFAULT_NOTIFICATIONS_NAME, writer, () => ({ spec: valid }));
}
