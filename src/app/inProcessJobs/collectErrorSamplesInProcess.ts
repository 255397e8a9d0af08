import {
  allFailed,
  collectErrorSamples,
  type CollectErrorSamplesParameters,
  type CollectErrorSamplesRun,
  type TableSamplesOutcome,
} from '../../jobs/executors/collectErrorSamples.js';
import type { Store } from '../../store/store.js';
import { checkSearchNames, refuseUnknownFilterNames } from '../filterNames.js';
import { withDataSources, type DataSourceSettings } from '../dataSourceSettings.js';

/**
 * `dqctl collect error-samples`: the collect-error-samples executor (the one POST
 * /api/jobs/collecterrorsamples queues) in this process, storing the samples in the live store. `failure`
 * says why samplers failed, when some did (nothing is stored for them).
 */
export interface CollectErrorSamplesOutcome {
  run: CollectErrorSamplesRun;
  failure: string | null;
}

export interface CollectErrorSamplesInProcessOptions {
  signal: AbortSignal;
  /** Samples per check (the executor's default when absent). */
  limit?: number;
  onTable?: (outcome: TableSamplesOutcome, done: number, total: number) => void;
}

export async function collectErrorSamplesInProcess(
  store: Store,
  settings: DataSourceSettings,
  parameters: CollectErrorSamplesParameters,
  options: CollectErrorSamplesInProcessOptions,
): Promise<CollectErrorSamplesOutcome> {
  await refuseUnknownFilterNames(store, checkSearchNames({ ...parameters.check_search_filters }), { requireApplied: true });
  const run = await withDataSources(store, settings, (deps) => collectErrorSamples(deps, parameters, options));
  const r = run.result;
  if (r.total_error_samplers_failed === 0) return { run, failure: null };
  return { run, failure: allFailed(run)?.message ?? `${r.total_error_samplers_failed} of ${r.executed_error_samplers} error samplers failed` };
}

