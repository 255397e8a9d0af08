import type { CheckType } from '../../model/index.js';
import type { CheckResultRow, Store } from '../../store/store.js';
import { refuseUnknownFilterNames } from '../filterNames.js';
import { selectedTables, type TableSelection } from '../selectedTables.js';

/** Which results `dqctl results` shows: the selected tables, narrowed to a column, a check type, a check or a comparison. */
export interface LatestResultsFilter extends TableSelection {
  column?: string;
  checkType?: CheckType;
  check?: string;
  comparison?: string;
}

/** The latest result of every check of the selected tables (the rows of the newest run of each). */
export async function latestCheckResults(store: Store, filter: LatestResultsFilter): Promise<CheckResultRow[]> {
  await refuseUnknownFilterNames(store, { connection: filter.connection, table: filter.table, column: filter.column, check: filter.check });
  const rows: CheckResultRow[] = [];
  for (const t of await selectedTables(store, filter)) {
    rows.push(
      ...(await store.checkResults({
        connectionName: t.connection,
        schemaName: t.schema,
        tableName: t.table,
        ...(filter.column ? { columnName: filter.column } : {}),
        ...(filter.checkType ? { checkType: filter.checkType } : {}),
        ...(filter.check ? { checkName: filter.check } : {}),
        ...(filter.comparison ? { tableComparison: filter.comparison } : {}),
        newest: { of: 'runs', count: 1 },
      })),
    );
  }
  return rows;
}
