import type { LiveObjects } from '../../app/liveObjects.js';
import type { DataSources } from '../../datasource/index.js';
import type { Store } from '../../store/store.js';
import type { JobExecutor } from '../jobService.js';
import { COLLECT_ERROR_SAMPLES, collectErrorSamplesExecutor } from './collectErrorSamples.js';
import { COLLECT_STATISTICS, collectStatisticsExecutor } from './collectStatistics.js';
import { DELETE_STORED_DATA, deleteStoredDataExecutor } from './deleteStoredData.js';
import { IMPORT_TABLES, importTablesExecutor } from './importTables.js';
import { RUN_CHECKS, runChecksExecutor } from './runChecks.js';

/** The job types this version runs. A job type without an executor here would answer 501 in the jobs API. */
export const JOB_TYPES = {
  runChecks: RUN_CHECKS,
  collectStatistics: COLLECT_STATISTICS,
  collectErrorSamples: COLLECT_ERROR_SAMPLES,
  deleteStoredData: DELETE_STORED_DATA,
  importTables: IMPORT_TABLES,
} as const;

/** What the executors need: the store, the live objects (tables written by configure_table) and the data sources. */
export interface ExecutorDependencies {
  store: Store;
  objects: LiveObjects;
  dataSources: DataSources;
  /** Told when a run wrote notification messages to the outbox (the server's deliverer sends them at once). */
  onMessages?: () => void;
}

export function defaultExecutors(deps: ExecutorDependencies): Record<string, JobExecutor> {
  return {
    [DELETE_STORED_DATA]: deleteStoredDataExecutor(deps.store),
    [COLLECT_STATISTICS]: collectStatisticsExecutor(deps),
    [RUN_CHECKS]: runChecksExecutor(deps),
    [COLLECT_ERROR_SAMPLES]: collectErrorSamplesExecutor(deps),
    [IMPORT_TABLES]: importTablesExecutor(deps),
  };
}
