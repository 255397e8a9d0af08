import type { FastifyReply, FastifyRequest } from 'fastify';
import { JOB_TYPES } from '../jobs/executors/index.js';
import type { JsonObject } from '../model/index.js';
import type { ServerContext } from './context.js';
import { jobIdModel } from './routes/jobs.js';

/**
 * What a DELETE of a connection, table or column answers once the configuration is gone. As in DQOps, the
 * stored data of what was deleted (check results, execution errors, error samples, statistics) is removed by
 * a delete-stored-data job, and the answer is 200 with that job's id (DqoQueueJobId), for the client to
 * follow. The configuration delete is committed first: a job that fails leaves only data behind, never config.
 */
export interface DeletedTarget {
  connection: string;
  /** The table's exact names (absent: the whole connection). */
  table?: { schema: string; table: string };
  column?: string;
}

/** The flags of a delete-stored-data job that removes everything stored (and no configuration). */
export const ALL_STORED_DATA = {
  deleteErrors: true,
  deleteStatistics: true,
  deleteCheckResults: true,
  deleteSensorReadouts: true,
  deleteErrorSamples: true,
  deleteIncidents: true,
} as const;

export async function answerWithStoredDataCleanup(context: ServerContext, request: FastifyRequest, reply: FastifyReply, target: DeletedTarget): Promise<FastifyReply> {
  if (!context.jobs.supports(JOB_TYPES.deleteStoredData)) return reply.status(204).send();
  const parameters: JsonObject = {
    connection: target.connection,
    ...(target.table ? { schemaName: target.table.schema, tableName: target.table.table } : {}),
    ...(target.column !== undefined ? { columnNames: [target.column] } : {}),
    ...ALL_STORED_DATA,
  };
  const job = await context.jobs.submit(JOB_TYPES.deleteStoredData, parameters, { businessKey: null, createdBy: request.caller.name });
  return reply.status(200).send(jobIdModel(job));
}
