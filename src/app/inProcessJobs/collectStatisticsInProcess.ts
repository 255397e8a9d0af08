import {
  collectStatistics,
  failureSummary,
  type CollectStatisticsParameters,
  type CollectStatisticsRun,
  type TableOutcome,
} from '../../jobs/executors/collectStatistics.js';
import type { Store } from '../../store/store.js';
import { refuseUnknownFilterNames, statisticsFilterNames } from '../filterNames.js';
import { withDataSources, type DataSourceSettings } from '../dataSourceSettings.js';

/**
 * `dqctl collect statistics`: the collect-statistics executor in this process, on its data sources, storing the
 * statistics in the live store. A failed table is part of the outcome (its error is stored); `failure` says
 * why the run as a whole did not succeed, when it did not.
 */
export interface CollectStatisticsOutcome {
  run: CollectStatisticsRun;
  failure: string | null;
}

export interface CollectStatisticsInProcessOptions {
  signal: AbortSignal;
  /** Who collects, e.g. `cli:alice` (it may configure tables). */
  caller: string;
  onTable?: (outcome: TableOutcome, done: number, total: number) => void;
}

export async function collectStatisticsInProcess(
  store: Store,
  settings: DataSourceSettings,
  parameters: CollectStatisticsParameters,
  options: CollectStatisticsInProcessOptions,
): Promise<CollectStatisticsOutcome> {
  await refuseUnknownFilterNames(store, statisticsFilterNames({ ...parameters }), { requireApplied: true });
  const run = await withDataSources(store, settings, (deps) => collectStatistics(deps, parameters, options));
  const failed = run.tables.filter((t) => t.status === 'failed');
  return { run, failure: failed.length > 0 ? failureSummary(run, failed).message : null };
}
