import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allSensors, createSensor, deleteSensor, sensorFolderTree, sensorOf, updateSensor } from '../../app/sensorModels.js';
import type { JsonObject, LiveObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { canEditDefinitions, DEFINITIONS_ROLE, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * DQOps's `sensors` group: the built-in sensors of the catalog and the custom ones (a definition with, per
 * provider, its provider file and SQL template), listed together. A sensor's template is SQL that runs on the
 * data sources: writes need the admin role (reads a viewer's). Names hold slashes: one `%2F`-encoded segment, or
 * (as DQOps's Python client sends them) plain.
 */
function sensorNameOf(request: FastifyRequest): string {
  return checkName('sensor name', (request.params as { '*': string })['*'], { slashes: true });
}

export async function sensorsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['sensors'];
  const config = { role: DEFINITIONS_ROLE };
  const params = { type: 'object', properties: { '*': { type: 'string', description: 'full sensor name, e.g. column%2Fnulls%2Fnull_count' } } };
  const canEdit = (request: FastifyRequest, live?: LiveObject) =>
    canEditDefinitions(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
  const writer = (request: FastifyRequest) => ({ caller: `api:${request.caller.name}` });

  api.get('/sensors', { schema: { tags, operationId: 'get_all_sensors', summary: 'get_all_sensors: built-in and custom sensors, by full name', response: { 200: arrayOf('SensorListModel') } } }, async (request) =>
    allSensors(context.objects, canEdit(request)),
  );

  api.get(
    '/definitions/sensors',
    { schema: { tags, operationId: 'get_sensor_folder_tree', summary: 'get_sensor_folder_tree: the sensors in the folders of their names', response: { 200: ref('SensorFolderModel') } } },
    async (request) => sensorFolderTree(await allSensors(context.objects, canEdit(request))),
  );

  api.get(
    '/sensors/*',
    { schema: { tags, operationId: 'get_sensor', summary: 'get_sensor: the custom sensor with its provider files and templates, else the built-in one', params, response: { 200: ref('SensorModel') } } },
    async (request) => sensorOf(context.objects, sensorNameOf(request), (custom) => canEdit(request, custom)),
  );

  api.post(
    '/sensors/*',
    { config, schema: { tags, operationId: 'create_sensor', summary: 'create_sensor: a custom sensor (admin); 201, 409 over a custom sensor', params, body: ref('SensorModel') } },
    async (request, reply) => {
      await createSensor(context.objects, sensorNameOf(request), request.body as JsonObject, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/sensors/*',
    {
      config,
      schema: { tags, operationId: 'update_sensor', summary: 'update_sensor: replaces the definition and the named providers; makes a custom sensor over a built-in one (admin); 204', params, body: ref('SensorModel') },
    },
    async (request, reply) => {
      await updateSensor(context.objects, sensorNameOf(request), request.body as JsonObject, writer(request));
      return reply.status(204).send();
    },
  );

  api.delete('/sensors/*', { config, schema: { tags, operationId: 'delete_sensor', summary: 'delete_sensor: custom sensors only (admin); 204', params } }, async (request, reply) => {
    await deleteSensor(context.objects, sensorNameOf(request), writer(request));
    return reply.status(204).send();
  });
}
