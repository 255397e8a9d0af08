import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  allCheckDefinitions,
  checkDefinitionFolderTree,
  checkDefinitionOf,
  createCheckDefinition,
  deleteCheckDefinition,
  updateCheckDefinition,
} from '../../app/checkDefinitionModels.js';
import type { JsonObject, LiveObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { canEditDefinitions, DEFINITIONS_ROLE, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * DQOps's `checks` group (check definitions, not a table's checks): the built-in checks of the catalog and the
 * custom definitions, listed together. A definition decides which sensor and rule run: writes need the admin
 * role (reads a viewer's). Names hold slashes: one `%2F`-encoded segment, or plain.
 */
function checkNameOf(request: FastifyRequest): string {
  return checkName('check name', (request.params as { '*': string })['*'], { slashes: true });
}

export async function checkDefinitionsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['checks'];
  const config = { role: DEFINITIONS_ROLE };
  const params = { type: 'object', properties: { '*': { type: 'string', description: 'full check name, e.g. table%2Fprofiling%2Fcustom%2Fmy_check' } } };
  const canEdit = (request: FastifyRequest, live?: LiveObject) =>
    canEditDefinitions(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
  const writer = (request: FastifyRequest) => ({ caller: `api:${request.caller.name}` });

  api.get('/checks', { schema: { tags, operationId: 'get_all_checks', summary: 'get_all_checks: built-in and custom check definitions, by full name', response: { 200: arrayOf('CheckDefinitionListModel') } } }, async (request) =>
    allCheckDefinitions(context.objects, canEdit(request)),
  );

  api.get(
    '/definitions/checks',
    { schema: { tags, operationId: 'get_check_folder_tree', summary: 'get_check_folder_tree: the check definitions in the folders of their names', response: { 200: ref('CheckDefinitionFolderModel') } } },
    async (request) => checkDefinitionFolderTree(context.objects, canEdit(request)),
  );

  api.get(
    '/checks/*',
    { schema: { tags, operationId: 'get_check', summary: 'get_check: the custom check definition, else the built-in one', params, response: { 200: ref('CheckDefinitionModel') } } },
    async (request) => checkDefinitionOf(context.objects, checkNameOf(request), (custom) => canEdit(request, custom)),
  );

  api.post(
    '/checks/*',
    { config, schema: { tags, operationId: 'create_check', summary: 'create_check: a custom check definition (admin); 201, 409 over an existing or built-in one', params, body: ref('CheckDefinitionModel') } },
    async (request, reply) => {
      await createCheckDefinition(context.objects, checkNameOf(request), request.body as JsonObject, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/checks/*',
    { config, schema: { tags, operationId: 'update_check', summary: 'update_check: replaces a custom check definition (admin); 204, 409 for a built-in one', params, body: ref('CheckDefinitionModel') } },
    async (request, reply) => {
      await updateCheckDefinition(context.objects, checkNameOf(request), request.body as JsonObject, writer(request));
      return reply.status(204).send();
    },
  );

  api.delete('/checks/*', { config, schema: { tags, operationId: 'delete_check', summary: 'delete_check: custom check definitions only (admin); 204', params } }, async (request, reply) => {
    await deleteCheckDefinition(context.objects, checkNameOf(request), writer(request));
    return reply.status(204).send();
  });
}
