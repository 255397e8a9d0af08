import type { FastifyReply, FastifyRequest } from 'fastify';
import { submitStoredDataCleanup, type DeletedTarget } from '../app/storedDataCleanup.js';
import type { ServerContext } from './context.js';
import { jobIdModel } from './routes/jobs.js';

/**
 * What a DELETE of a connection, table or column answers once the configuration is gone: as in DQOps, 200 with
 * the id of the job that removes its stored data (DqoQueueJobId), for the client to follow; 204 when this
 * version has no such job.
 */
export async function answerWithStoredDataCleanup(context: ServerContext, request: FastifyRequest, reply: FastifyReply, target: DeletedTarget): Promise<FastifyReply> {
  const job = await submitStoredDataCleanup(context.jobs, target, request.caller.name);
  if (!job) return reply.status(204).send();
  return reply.status(200).send(jobIdModel(job));
}
