import { parentPort, workerData } from 'node:worker_threads';
import { validatorFor } from '../schema/index.js';
import { VariableScope } from './environmentVariables.js';
import { parseJobResult, type ParseConfigure, type ParseReply, type ParseRequest, type ParseWorkerData } from './parseWorkers.js';

// The entry of a parse worker thread (parseWorkers.ts starts it): parses the files it is sent, one batch a
// message, and answers with what the loading thread needs of each (parseJobResult). It holds nothing between
// batches. dist/manifest/parseWorker.js, and dist/bundle/parseWorker.js in the CLI's bundle. A worker started
// before its load knew the settings (ParseWorkers.early) has no workerData and is sent them before any file.

const scopeOf = ({ environment, environments }: ParseWorkerData) => new VariableScope(environment, environments);
let scope: VariableScope | null = workerData ? scopeOf(workerData as ParseWorkerData) : null;
// the validators of the files a big repository is made of, loaded before the first batch arrives (an early worker
// waits for its settings meanwhile); the other kinds' load when a file of theirs comes
for (const kind of ['table', 'source'] as const) validatorFor(kind);

parentPort!.on('message', (request: ParseRequest | ParseConfigure) => {
  if ('configure' in request) {
    scope = scopeOf(request.configure);
    return;
  }
  let reply: ParseReply;
  try {
    if (!scope) throw new Error('parse worker was sent files before its settings');
    const settings = scope;
    reply = { id: request.id, results: request.jobs.map((job) => parseJobResult(job, settings)) };
  } catch (error) {
    // the loading thread parses this batch itself, and meets the same error where the single thread would
    reply = { id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply);
});
