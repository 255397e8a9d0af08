import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allDictionaries, createDictionary, deleteDictionary, dictionaryOf, updateDictionary } from '../../app/dictionaryModels.js';
import type { JsonObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { canEditDefinitions, DEFINITIONS_ROLE, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * DQOps's `dictionaries` group: the data dictionaries (`dictionaries/<name>.csv`) of the live store, their text as
 * a model and as a CSV download. A dictionary feeds the values of accepted-values checks: writes need the admin
 * role, like the other definitions (reads a viewer's). A name in a folder is sent `%2F`-encoded.
 */
function dictionaryNameOf(request: FastifyRequest): string {
  return checkName('dictionary name', (request.params as { dictionaryName: string }).dictionaryName, { slashes: true });
}

/** A file name for Content-Disposition: the last part of the name, its quotes and backslashes and non-ASCII letters replaced. */
function attachmentName(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return `attachment; filename="${base.replace(/["\\]/g, '_').replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}

export async function dictionariesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['dictionaries'];
  const config = { role: DEFINITIONS_ROLE };
  const params = { type: 'object', required: ['dictionaryName'], properties: { dictionaryName: { type: 'string', description: 'the file name, e.g. countries.csv' } } };
  const writer = (request: FastifyRequest) => ({ caller: `api:${request.caller.name}` });

  api.get('/dictionaries', { schema: { tags, operationId: 'get_all_dictionaries', summary: 'get_all_dictionaries: the dictionaries, by name', response: { 200: arrayOf('DataDictionaryListModel') } } }, async (request) =>
    allDictionaries(context.objects, canEditDefinitions(request.caller, { managedReadOnly: false })),
  );

  api.get(
    '/dictionaries/:dictionaryName',
    { schema: { tags, operationId: 'get_dictionary', summary: 'get_dictionary: the dictionary with its CSV text', params, response: { 200: ref('DataDictionaryModel') } } },
    async (request) => dictionaryOf(context.objects, dictionaryNameOf(request)),
  );

  api.get(
    '/dictionaries/:dictionaryName/download',
    { schema: { tags, operationId: 'download_dictionary', summary: 'download_dictionary: the CSV file (text/csv)', params } },
    async (request, reply) => {
      const dictionary = await dictionaryOf(context.objects, dictionaryNameOf(request));
      return reply.type('text/csv; charset=utf-8').header('content-disposition', attachmentName(dictionary.dictionary_name)).send(dictionary.file_content);
    },
  );

  api.post(
    '/dictionaries',
    { config, schema: { tags, operationId: 'create_dictionary', summary: 'create_dictionary: a dictionary named in the body (admin); 201, 409 when the name exists', body: ref('DataDictionaryModel') } },
    async (request, reply) => {
      await createDictionary(context.objects, request.body as JsonObject, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/dictionaries/:dictionaryName',
    { config, schema: { tags, operationId: 'update_dictionary', summary: "update_dictionary: replaces the dictionary's CSV text (admin); 204", params, body: ref('DataDictionaryModel') } },
    async (request, reply) => {
      await updateDictionary(context.objects, dictionaryNameOf(request), request.body as JsonObject, writer(request));
      return reply.status(204).send();
    },
  );

  api.delete('/dictionaries/:dictionaryName', { config, schema: { tags, operationId: 'delete_dictionary', summary: 'delete_dictionary (admin); 204', params } }, async (request, reply) => {
    await deleteDictionary(context.objects, dictionaryNameOf(request), writer(request));
    return reply.status(204).send();
  });
}
