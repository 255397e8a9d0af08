import { compileNamePattern, tableRefOf, type TableRef } from '../policy/index.js';
import type { StoreReader } from '../store/store.js';

/** The tables of the live store that `--connection` and `--table 'schema.t*'` (wildcards, comma lists) select. */
export interface TableSelection {
  connection?: string;
  table?: string;
}

export async function selectedTables(store: StoreReader, options: TableSelection): Promise<TableRef[]> {
  const connection = compileNamePattern(options.connection);
  const table = compileNamePattern(options.table);
  return (await store.listSummaries({ kind: 'table' }))
    .map((t) => tableRefOf(t.name, {}))
    .filter((t): t is TableRef => t !== undefined)
    .filter((t) => (!connection || connection.matches(t.connection)) && (!table || table.matches(`${t.schema}.${t.table}`)));
}
