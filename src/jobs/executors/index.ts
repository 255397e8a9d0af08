import { PythonRuleRunner, pythonRuleOptionsFromEnvironment } from '../../pythonrules/index.js';
import type { JobExecutor } from '../jobService.js';
import { COLLECT_ERROR_SAMPLES, collectErrorSamplesExecutor } from './collectErrorSamples.js';
import { COLLECT_STATISTICS, collectStatisticsExecutor } from './collectStatistics.js';
import { DELETE_STORED_DATA, deleteStoredDataExecutor } from './deleteStoredData.js';
import { IMPORT_TABLES, importTablesExecutor } from './importTables.js';
import type { ExecutorDependencies } from './executorDependencies.js';
import { RUN_CHECKS, runChecksExecutor } from './runChecks.js';

export type { ExecutorDependencies };

/** The job types this version runs. A job type without an executor here would answer 501 in the jobs API. */
export const JOB_TYPES = {
  runChecks: RUN_CHECKS,
  collectStatistics: COLLECT_STATISTICS,
  collectErrorSamples: COLLECT_ERROR_SAMPLES,
  deleteStoredData: DELETE_STORED_DATA,
  importTables: IMPORT_TABLES,
} as const;

/** The executors of a long-lived process (the server): one set of Python rule workers serves every run. */
export function defaultExecutors(given: ExecutorDependencies): Record<string, JobExecutor> {
  const deps = given.pythonRules ? given : { ...given, pythonRules: new PythonRuleRunner(pythonRuleOptionsFromEnvironment()) };
  return {
    [DELETE_STORED_DATA]: deleteStoredDataExecutor(deps.store),
    [COLLECT_STATISTICS]: collectStatisticsExecutor(deps),
    [RUN_CHECKS]: runChecksExecutor(deps),
    [COLLECT_ERROR_SAMPLES]: collectErrorSamplesExecutor(deps),
    [IMPORT_TABLES]: importTablesExecutor(deps),
  };
}
