import { importTables, type ImportTablesRequest, type ImportTablesResult } from '../../jobs/importTables.js';
import type { Store } from '../../store/store.js';
import { withDataSources, type DataSourceSettings } from '../dataSourceSettings.js';

/**
 * `dqctl import tables`: a connection's tables and column types, read from its data source in this process,
 * into the live store as API-managed objects (existing tables keep their checks; their type snapshots are
 * refreshed).
 */
export function importTablesInProcess(store: Store, settings: DataSourceSettings, request: ImportTablesRequest): Promise<ImportTablesResult> {
  return withDataSources(store, settings, (deps) => importTables(deps, request));
}
