import { parentPort, workerData } from 'node:worker_threads';
import { VariableScope } from './environmentVariables.js';
import { parseJobResult, type ParseReply, type ParseRequest, type ParseWorkerData } from './parseWorkers.js';

// The entry of a parse worker thread (parseWorkers.ts starts it): parses the files it is sent, one batch a
// message, and answers with what the loading thread needs of each (parseJobResult). It holds nothing between
// batches. dist/manifest/parseWorker.js, and dist/bundle/parseWorker.js in the CLI's bundle.

const { environment, environments } = workerData as ParseWorkerData;
const scope = new VariableScope(environment, environments);

parentPort!.on('message', (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { id: request.id, results: request.jobs.map((job) => parseJobResult(job, scope)) };
  } catch (error) {
    // the loading thread parses this batch itself, and meets the same error where the single thread would
    reply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply);
});
