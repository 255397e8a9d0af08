import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidAddresses } from '../../app/incidentSettings.js';
import { DEFAULT_NOTIFICATIONS_NAME } from '../../manifest/objectPaths.js';
import { DqError, isJsonObject, type JsonObject, type LiveObject } from '../../model/index.js';
import { validateDocument } from '../../schema/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { validateConnectionSpec, writerOf } from './connections.js';

/**
 * DQOps's filtered notifications (FilteredNotificationsController) and default webhooks (DefaultWebhooksController):
 * - a connection's, in its spec at `incident_grouping.incident_notification.filtered_notifications`;
 * - the defaults', in the default_notifications object (settings/defaultnotifications.dqonotifications.yaml),
 *   created on the first write; GET|PUT /defaults/defaultwebhooks is that object's whole spec.
 * Every write is validated like the files (JSON Schema, and every address a URL or an e-mail), so the API
 * cannot store what `dqctl validate` refuses. Addresses are returned as written (`${ENV}` unresolved).
 */
type Notifications = Record<string, JsonObject>;

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
function changed(map: Notifications, where: string, op: { kind: 'create'; model: JsonObject } | { kind: 'replace'; name: string; model: JsonObject } | { kind: 'delete'; name: string }): Notifications {
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

export async function filteredNotificationsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['filtered_notifications_configurations'];
  const connectionParams = { type: 'object', properties: { connectionName: { type: 'string' } }, required: ['connectionName'] };
  const namedParams = { type: 'object', properties: { connectionName: { type: 'string' }, filteredNotificationName: { type: 'string' } }, required: ['connectionName', 'filteredNotificationName'] };
  const defaultNamedParams = { type: 'object', properties: { filteredNotificationName: { type: 'string' } }, required: ['filteredNotificationName'] };
  const connectionOf = (request: FastifyRequest) => checkName('connection name', (request.params as { connectionName: string }).connectionName);
  const nameOf = (request: FastifyRequest) => checkName('filtered notification name', (request.params as { filteredNotificationName: string }).filteredNotificationName);
  const source = async (name: string): Promise<LiveObject> => {
    const live = await context.objects.get('source', name);
    if (!live) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
    return live;
  };
  const writeConnection = async (request: FastifyRequest, change: (map: Notifications, where: string) => Notifications) => {
    const name = connectionOf(request);
    const where = `connection ${JSON.stringify(name)}`;
    await context.objects.update('source', name, writerOf(request), (current) => ({
      spec: validateConnectionSpec(withConnectionNotifications(current.spec, change(connectionNotifications(current.spec), where))),
    }));
  };
  const writeDefaults = async (request: FastifyRequest, change: (map: Notifications, where: string) => Notifications) => {
    await context.objects.upsert('default_notifications', DEFAULT_NOTIFICATIONS_NAME, writerOf(request), (current) => {
      const spec = current?.spec ?? {};
      return { spec: validateDefaults({ ...spec, filtered_notifications: change(defaultsNotifications(spec), 'the default notifications') }) };
    });
  };
  const defaults = async () => (await context.objects.get('default_notifications', DEFAULT_NOTIFICATIONS_NAME))?.spec;

  api.get(
    '/connections/:connectionName/filterednotifications',
    { schema: { tags, operationId: 'get_connection_filtered_notifications_configurations', summary: "get_connection_filtered_notifications_configurations: the connection's, by priority", params: connectionParams, response: { 200: arrayOf('FilteredNotificationModel') } } },
    async (request) => sorted(connectionNotifications((await source(connectionOf(request))).spec)),
  );
  api.post(
    '/connections/:connectionName/filterednotifications',
    { schema: { tags, operationId: 'create_connection_filtered_notification_configuration', summary: 'create_connection_filtered_notification_configuration', params: connectionParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      await writeConnection(request, (map, where) => changed(map, where, { kind: 'create', model: request.body as JsonObject }));
      return reply.status(201).send();
    },
  );
  api.get(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'get_connection_filtered_notification_configuration', summary: 'get_connection_filtered_notification_configuration', params: namedParams, response: { 200: ref('FilteredNotificationModel') } } },
    async (request) => {
      const connection = connectionOf(request);
      const name = nameOf(request);
      const spec = connectionNotifications((await source(connection)).spec)[name];
      if (!spec) throw notFound(`connection ${JSON.stringify(connection)}`, name);
      return modelOf(name, spec);
    },
  );
  api.put(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'update_connection_filtered_notification_configuration', summary: 'update_connection_filtered_notification_configuration: replaces it (a different name in the body renames it)', params: namedParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      const name = nameOf(request);
      await writeConnection(request, (map, where) => changed(map, where, { kind: 'replace', name, model: request.body as JsonObject }));
      return reply.status(204).send();
    },
  );
  api.delete(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'delete_connection_filtered_notification_configuration', summary: 'delete_connection_filtered_notification_configuration', params: namedParams } },
    async (request, reply) => {
      const name = nameOf(request);
      await writeConnection(request, (map, where) => changed(map, where, { kind: 'delete', name }));
      return reply.status(204).send();
    },
  );

  api.get(
    '/default/filterednotifications',
    { schema: { tags, operationId: 'get_default_filtered_notifications_configurations', summary: 'get_default_filtered_notifications_configurations: the defaults\', by priority', response: { 200: arrayOf('FilteredNotificationModel') } } },
    async () => sorted(defaultsNotifications(await defaults())),
  );
  api.post(
    '/default/filterednotifications',
    { schema: { tags, operationId: 'create_default_filtered_notification_configuration', summary: 'create_default_filtered_notification_configuration', body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      await writeDefaults(request, (map, where) => changed(map, where, { kind: 'create', model: request.body as JsonObject }));
      return reply.status(201).send();
    },
  );
  api.get(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'get_default_filtered_notification_configuration', summary: 'get_default_filtered_notification_configuration', params: defaultNamedParams, response: { 200: ref('FilteredNotificationModel') } } },
    async (request) => {
      const name = nameOf(request);
      const spec = defaultsNotifications(await defaults())[name];
      if (!spec) throw notFound('the default notifications', name);
      return modelOf(name, spec);
    },
  );
  api.put(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'update_default_filtered_notification_configuration', summary: 'update_default_filtered_notification_configuration', params: defaultNamedParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      const name = nameOf(request);
      await writeDefaults(request, (map, where) => changed(map, where, { kind: 'replace', name, model: request.body as JsonObject }));
      return reply.status(204).send();
    },
  );
  api.delete(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'delete_default_filtered_notification_configuration', summary: 'delete_default_filtered_notification_configuration', params: defaultNamedParams } },
    async (request, reply) => {
      const name = nameOf(request);
      await writeDefaults(request, (map, where) => changed(map, where, { kind: 'delete', name }));
      return reply.status(204).send();
    },
  );

  api.get(
    '/defaults/defaultwebhooks',
    { schema: { tags: ['defaults'], operationId: 'get_default_webhooks', summary: 'get_default_webhooks: the default notification addresses (settings/defaultnotifications.dqonotifications.yaml)', response: { 200: ref('IncidentNotificationSpec') } } },
    async () => (await defaults()) ?? {},
  );
  api.put(
    '/defaults/defaultwebhooks',
    { schema: { tags: ['defaults'], operationId: 'update_default_webhooks', summary: 'update_default_webhooks: replaces the default notification addresses and filtered notifications', body: ref('IncidentNotificationSpec') } },
    async (request, reply) => {
      const spec = validateDefaults(request.body as JsonObject);
      await context.objects.upsert('default_notifications', DEFAULT_NOTIFICATIONS_NAME, writerOf(request), () => ({ spec }));
      return reply.status(204).send();
    },
  );
}
