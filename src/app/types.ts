/**
 * The types of lower modules that the CLI and the server name in what they pass to and get from the use cases
 * of `app`. Types only: what they call is a use case of `app`, never a function of the modules below it.
 */
export type { OpenStoreOptions, Store, StatisticsRow, CheckResultRow, IncidentRecord } from '../store/store.js';
export type { LockEntry, LockListing } from '../store/lockAdmin.js';
export type { RunChecksResult } from '../jobs/executors/runChecks.js';
export type { CheckSearchFilters } from '../jobs/checkRun/plannedChecks.js';
export type { CollectStatisticsParameters, CollectStatisticsRun, TableOutcome as TableStatisticsOutcome } from '../jobs/executors/collectStatistics.js';
export type { CollectErrorSamplesParameters, CollectErrorSamplesRun, TableSamplesOutcome } from '../jobs/executors/collectErrorSamples.js';
export type { ImportTablesResult } from '../jobs/importTables.js';
export type { ObjectStatus, ReconcileStatus } from '../reconcile/status.js';
