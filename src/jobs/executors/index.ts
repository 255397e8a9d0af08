import { PythonRuleRunner, pythonRuleOptionsFromEnvironment } from '../../pythonrules/index.js';
import type { JobExecutor, JobServiceOptions } from '../jobService.js';
import { COLLECT_ERROR_SAMPLES, collectErrorSamplesExecutor } from './collectErrorSamples.js';
import { COLLECT_STATISTICS, collectStatisticsExecutor } from './collectStatistics.js';
import { DELETE_STORED_DATA, deleteStoredDataExecutor } from './deleteStoredData.js';
import { IMPORT_TABLES, importTablesExecutor } from './importTables.js';
import type { ExecutorDependencies } from './executorDependencies.js';
import { completeRunChecks, RUN_CHECKS, RUN_CHECKS_ON_TABLE, runChecksExecutor, runChecksOnTableExecutor } from './runChecks.js';
import { parallelJobsLimitOf } from '../../datasource/index.js';
import { ResultsWriter } from '../checkRun/resultsWriter.js';

export type { ExecutorDependencies };

/** The job types this version runs. A job type without an executor here would answer 501 in the jobs API. */
export const JOB_TYPES = {
  runChecks: RUN_CHECKS,
  collectStatistics: COLLECT_STATISTICS,
  collectErrorSamples: COLLECT_ERROR_SAMPLES,
  deleteStoredData: DELETE_STORED_DATA,
  importTables: IMPORT_TABLES,
} as const;

/**
 * The executors of a long-lived process (the server): one set of Python rule workers and one results writer serve
 * every run. `splitByTable`: a run over several tables becomes child jobs of a few tables each (run with the options of
 * jobServiceOptionsOf, which end the run when its last table ends); without it a run is one job, as before.
 */
export function defaultExecutors(given: ExecutorDependencies, options: { splitByTable?: boolean } = {}): Record<string, JobExecutor> {
  // one set of Python rule workers and one writer of check results (batched writes) for every run of the process
  const deps = {
    ...given,
    pythonRules: given.pythonRules ?? new PythonRuleRunner(pythonRuleOptionsFromEnvironment()),
    // a transaction waits up to 100 ms for more tables: under a run over many tables, fewer and fuller transactions
    // (measured at 300 tables under load: 87 transactions without, 70 at 50 ms, 61 at 200 ms)
    resultsWriter: given.resultsWriter ?? new ResultsWriter(given.store, { maxTables: 100, maxRows: 20_000, gatherMs: 100 }),
  };
  return {
    [DELETE_STORED_DATA]: deleteStoredDataExecutor(deps.store),
    [COLLECT_STATISTICS]: collectStatisticsExecutor(deps),
    [RUN_CHECKS]: runChecksExecutor(deps, { splitByTable: options.splitByTable === true }),
    [RUN_CHECKS_ON_TABLE]: runChecksOnTableExecutor(deps),
    [COLLECT_ERROR_SAMPLES]: collectErrorSamplesExecutor(deps),
    [IMPORT_TABLES]: importTablesExecutor(deps),
  };
}

/**
 * How a server's job worker runs the executors above: a table's part of a check run in the lane of its connection
 * (at most its parallel_jobs_limit at once in this server), the run ended by its last table, and a table or a run
 * not yet split whose server died queued again (results are upserted, so running twice stores each result once).
 */
export function jobServiceOptionsOf(deps: Pick<ExecutorDependencies, 'store' | 'objects'>): Pick<JobServiceOptions, 'lanes' | 'completers' | 'requeueTypes'> {
  return {
    lanes: { jobType: RUN_CHECKS_ON_TABLE, limitOf: async (connection) => parallelJobsLimitOf((await deps.objects.get('source', connection))?.spec ?? {}) },
    completers: { [RUN_CHECKS]: completeRunChecks(deps) },
    // a run whose server died after claiming it and before splitting it is split again by another server
    requeueTypes: [RUN_CHECKS, RUN_CHECKS_ON_TABLE],
  };
}
