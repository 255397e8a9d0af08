import { compileNamePattern } from '../policy/index.js';
import type { StatisticsRow, Store } from '../store/store.js';
import { refuseUnknownFilterNames } from './filterNames.js';
import { selectedTables, type TableSelection } from './selectedTables.js';

/**
 * The statistics `collect statistics` stored, the latest value of each, of the selected tables (and, with
 * `column`, of the columns it matches: wildcards, comma lists). `dqctl statistics` renders them.
 */
export async function latestStatistics(store: Store, options: TableSelection & { column?: string }): Promise<StatisticsRow[]> {
  // Columns are not checked: statistics describe the data source's columns, listed in the table file or not.
  await refuseUnknownFilterNames(store, { connection: options.connection, table: options.table });
  const column = compileNamePattern(options.column);
  const rows: StatisticsRow[] = [];
  for (const t of await selectedTables(store, options)) {
    const found = await store.latestStatistics({ connectionName: t.connection, schemaName: t.schema, tableName: t.table });
    rows.push(...found.filter((r) => !column || (r.columnName !== null && column.matches(r.columnName))));
  }
  return rows;
}
