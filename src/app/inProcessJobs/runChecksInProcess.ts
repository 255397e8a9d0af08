import { runChecks, type RunChecksResult } from '../../jobs/executors/runChecks.js';
import type { JsonObject } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import { checkSearchNames, refuseUnknownFilterNames } from '../filterNames.js';
import { withDataSources, type DataSourceSettings } from '../dataSourceSettings.js';
import { prepareDataSources } from './prepareDataSources.js';

/**
 * `dqctl run checks` without a server: the run_checks executor (the one POST /api/jobs/runchecks queues) in this
 * process, on its data sources, storing the results in the live store. Its outcome has the shape a server's
 * run_checks job reports, so the CLI reports both the same way.
 */
export interface RunChecksOutcome {
  result: RunChecksResult;
  /** How many tables the run covered. */
  tables: number;
  /** The tables whose data source failed them; their checks are stored as execution errors. */
  failed: Array<{ table: string; code: string | null; message: string | null }>;
}

export interface RunChecksInProcessOptions {
  /** DQOps's CheckSearchFilters (connection, fullTableName, checkType, …). */
  filters: JsonObject;
  signal: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export async function runChecksInProcess(store: Store, settings: DataSourceSettings, options: RunChecksInProcessOptions): Promise<RunChecksOutcome> {
  const { filters } = options;
  const run = await withDataSources(store, settings, async (deps) => {
    // the sources open while the filters are checked and the run reads the store (DuckDB's engine takes ~0.3 s)
    prepareDataSources(deps, filters.connection);
    await refuseUnknownFilterNames(store, checkSearchNames(filters), { requireApplied: true });
    return runChecks(deps, { check_search_filters: options.filters }, options.signal, { onProgress: options.onProgress });
  });
  return {
    result: run.result,
    tables: run.tables.length,
    failed: run.tables
      .filter((t) => t.status === 'failed')
      .map((t) => ({ table: t.table, code: t.error?.code ?? null, message: t.error?.message ?? null })),
  };
}
