import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bulkActivateCheck, bulkDeactivateCheck, type CheckModel } from '../../app/checksBulk.js';
import { isJsonObject, type JsonObject } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { connectionNameOf, writerOf } from './connections.js';

/**
 * Bulk activation and deactivation of ONE named check of the catalog on a connection, in one transaction
 * (app/checksBulk.ts); 204.
 */
const checkNameOf = (request: FastifyRequest) => checkName('check name', (request.params as { checkName: string }).checkName);

const searchFiltersOf = (body: JsonObject) => (isJsonObject(body.check_search_filters) ? body.check_search_filters : undefined);

export async function checksBulkRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['connections'];
  const params = {
    type: 'object',
    properties: {
      connectionName: { type: 'string', description: 'connection name' },
      checkName: { type: 'string', description: 'a check of the catalog, e.g. daily_row_count' },
    },
    required: ['connectionName', 'checkName'],
  };

  api.put(
    '/connections/:connectionName/checks/:checkName/bulkactivate',
    {
      schema: {
        tags,
        operationId: 'bulk_activate_connection_checks', summary: 'bulk_activate_connection_checks: writes the check into every selected table or column, in one transaction',
        params,
        body: ref('AllChecksPatchParameters'),
      },
    },
    async (request, reply) => {
      const connection = connectionNameOf(request);
      const name = checkNameOf(request);
      const body = (request.body ?? {}) as JsonObject;
      await bulkActivateCheck(context.objects, {
        connection,
        checkName: name,
        filters: searchFiltersOf(body),
        patch: (isJsonObject(body.check_model_patch) ? body.check_model_patch : {}) as unknown as CheckModel,
        overrideConflicts: body.override_conflicts === true,
        writer: writerOf(request),
      });
      return reply.status(204).send();
    },
  );

  api.put(
    '/connections/:connectionName/checks/:checkName/bulkdeactivate',
    {
      schema: {
        tags,
        operationId: 'bulk_deactivate_connection_checks', summary: 'bulk_deactivate_connection_checks: removes the check from every selected table or column, in one transaction',
        params,
        body: ref('BulkCheckDeactivateParameters'),
      },
    },
    async (request, reply) => {
      const connection = connectionNameOf(request);
      const name = checkNameOf(request);
      await bulkDeactivateCheck(context.objects, { connection, checkName: name, filters: searchFiltersOf((request.body ?? {}) as JsonObject), writer: writerOf(request) });
      return reply.status(204).send();
    },
  );
}
