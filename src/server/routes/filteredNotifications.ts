import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  changeConnectionFilteredNotification,
  changeDefaultFilteredNotification,
  connectionFilteredNotification,
  connectionFilteredNotifications,
  defaultFilteredNotification,
  defaultFilteredNotifications,
  defaultNotifications,
  replaceDefaultNotifications,
} from '../../app/filteredNotifications.js';
import type { JsonObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { writerOf } from './connections.js';

/**
 * DQOps's filtered notifications (FilteredNotificationsController) and default webhooks
 * (DefaultWebhooksController), a connection's and the defaults' (app/filteredNotifications.ts).
 */
export async function filteredNotificationsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['filtered_notifications_configurations'];
  const connectionParams = { type: 'object', properties: { connectionName: { type: 'string' } }, required: ['connectionName'] };
  const namedParams = { type: 'object', properties: { connectionName: { type: 'string' }, filteredNotificationName: { type: 'string' } }, required: ['connectionName', 'filteredNotificationName'] };
  const defaultNamedParams = { type: 'object', properties: { filteredNotificationName: { type: 'string' } }, required: ['filteredNotificationName'] };
  const connectionOf = (request: FastifyRequest) => checkName('connection name', (request.params as { connectionName: string }).connectionName);
  const nameOf = (request: FastifyRequest) => checkName('filtered notification name', (request.params as { filteredNotificationName: string }).filteredNotificationName);
  api.get(
    '/connections/:connectionName/filterednotifications',
    { schema: { tags, operationId: 'get_connection_filtered_notifications_configurations', summary: "get_connection_filtered_notifications_configurations: the connection's, by priority", params: connectionParams, response: { 200: arrayOf('FilteredNotificationModel') } } },
    async (request) => connectionFilteredNotifications(context.objects, connectionOf(request)),
  );
  api.post(
    '/connections/:connectionName/filterednotifications',
    { schema: { tags, operationId: 'create_connection_filtered_notification_configuration', summary: 'create_connection_filtered_notification_configuration', params: connectionParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      await changeConnectionFilteredNotification(context.objects, connectionOf(request), { kind: 'create', model: request.body as JsonObject }, writerOf(request));
      return reply.status(201).send();
    },
  );
  api.get(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'get_connection_filtered_notification_configuration', summary: 'get_connection_filtered_notification_configuration', params: namedParams, response: { 200: ref('FilteredNotificationModel') } } },
    async (request) => {
      const connection = connectionOf(request);
      return connectionFilteredNotification(context.objects, connection, nameOf(request));
    },
  );
  api.put(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'update_connection_filtered_notification_configuration', summary: 'update_connection_filtered_notification_configuration: replaces it (a different name in the body renames it)', params: namedParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      const name = nameOf(request);
      await changeConnectionFilteredNotification(context.objects, connectionOf(request), { kind: 'replace', name, model: request.body as JsonObject }, writerOf(request));
      return reply.status(204).send();
    },
  );
  api.delete(
    '/connections/:connectionName/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'delete_connection_filtered_notification_configuration', summary: 'delete_connection_filtered_notification_configuration', params: namedParams } },
    async (request, reply) => {
      const name = nameOf(request);
      await changeConnectionFilteredNotification(context.objects, connectionOf(request), { kind: 'delete', name }, writerOf(request));
      return reply.status(204).send();
    },
  );

  api.get(
    '/default/filterednotifications',
    { schema: { tags, operationId: 'get_default_filtered_notifications_configurations', summary: 'get_default_filtered_notifications_configurations: the defaults\', by priority', response: { 200: arrayOf('FilteredNotificationModel') } } },
    async () => defaultFilteredNotifications(context.objects),
  );
  api.post(
    '/default/filterednotifications',
    { schema: { tags, operationId: 'create_default_filtered_notification_configuration', summary: 'create_default_filtered_notification_configuration', body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      await changeDefaultFilteredNotification(context.objects, { kind: 'create', model: request.body as JsonObject }, writerOf(request));
      return reply.status(201).send();
    },
  );
  api.get(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'get_default_filtered_notification_configuration', summary: 'get_default_filtered_notification_configuration', params: defaultNamedParams, response: { 200: ref('FilteredNotificationModel') } } },
    async (request) => {
      return defaultFilteredNotification(context.objects, nameOf(request));
    },
  );
  api.put(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'update_default_filtered_notification_configuration', summary: 'update_default_filtered_notification_configuration', params: defaultNamedParams, body: ref('FilteredNotificationModel') } },
    async (request, reply) => {
      const name = nameOf(request);
      await changeDefaultFilteredNotification(context.objects, { kind: 'replace', name, model: request.body as JsonObject }, writerOf(request));
      return reply.status(204).send();
    },
  );
  api.delete(
    '/default/filterednotifications/:filteredNotificationName',
    { schema: { tags, operationId: 'delete_default_filtered_notification_configuration', summary: 'delete_default_filtered_notification_configuration', params: defaultNamedParams } },
    async (request, reply) => {
      const name = nameOf(request);
      await changeDefaultFilteredNotification(context.objects, { kind: 'delete', name }, writerOf(request));
      return reply.status(204).send();
    },
  );

  api.get(
    '/defaults/defaultwebhooks',
    { schema: { tags: ['defaults'], operationId: 'get_default_webhooks', summary: 'get_default_webhooks: the default notification addresses (settings/defaultnotifications.dqonotifications.yaml)', response: { 200: ref('IncidentNotificationSpec') } } },
    async () => defaultNotifications(context.objects),
  );
  api.put(
    '/defaults/defaultwebhooks',
    { schema: { tags: ['defaults'], operationId: 'update_default_webhooks', summary: 'update_default_webhooks: replaces the default notification addresses and filtered notifications', body: ref('IncidentNotificationSpec') } },
    async (request, reply) => {
      await replaceDefaultNotifications(context.objects, request.body as JsonObject, writerOf(request));
      return reply.status(204).send();
    },
  );
}
