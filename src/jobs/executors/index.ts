import type { Store } from '../../store/store.js';
import type { JobExecutor } from '../jobService.js';
import { DELETE_STORED_DATA, deleteStoredDataExecutor } from './deleteStoredData.js';

/**
 * The job types this version runs. Running checks, collecting statistics and collecting error samples need the
 * data-source engine (src/datasource), which is not part of this version yet: their API routes answer 501.
 */
export const JOB_TYPES = {
  runChecks: 'run_checks',
  collectStatistics: 'collect_statistics',
  collectErrorSamples: 'collect_error_samples',
  deleteStoredData: DELETE_STORED_DATA,
} as const;

export function defaultExecutors(store: Store): Record<string, JobExecutor> {
  return { [DELETE_STORED_DATA]: deleteStoredDataExecutor(store) };
}
