import { importTablesInProcess } from '../../app/inProcessJobs/importTablesInProcess.js';
import type { ImportTablesResult } from '../../app/types.js';
import { dataSourceSettingsOf, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { whoAmI } from '../actor.js';

export interface ImportTablesOptions extends StoreFlags, DataSourceFlags {
  connection: string;
  schema?: string;
  tableContains?: string;
  format: 'text' | 'json';
}

/**
 * `dqctl import tables --connection C [--schema S] [--table-contains X]`: the data source's tables into the
 * live store, as API-managed objects (existing tables keep their checks; their type snapshots are refreshed).
 */
export async function importTablesCommand(options: ImportTablesOptions, io: CliIo): Promise<number> {
  const dataSources = dataSourceSettingsOf(options, io);
  const result = await withStore(options, io, { operation: 'import tables' }, (store) =>
    importTablesInProcess(store, dataSources, {
      connection: options.connection,
      schema: options.schema,
      tableContains: options.tableContains,
      caller: `cli:${whoAmI(io.env)}`,
    }),
  );
  if (options.format === 'json') io.stdout(JSON.stringify(result, null, 2) + '\n');
  else io.stdout(renderImport(result));
  return 0;
}

function renderImport(result: ImportTablesResult): string {
  const lines: string[] = [];
  const total = result.created.length + result.updated.length + result.unchanged.length;
  lines.push(`Imported ${total} table${total === 1 ? '' : 's'} of connection ${JSON.stringify(result.connection)}:`);
  for (const name of result.created) lines.push(`  + ${name}`);
  for (const name of result.updated) lines.push(`  ~ ${name} (column types refreshed)`);
  for (const name of result.unchanged) lines.push(`    ${name} (unchanged)`);
  for (const skipped of result.skipped) lines.push(`  ! ${skipped.table} skipped: ${skipped.reason}`);
  lines.push(`${result.created.length} created, ${result.updated.length} updated, ${result.unchanged.length} unchanged.`);
  return lines.join('\n') + '\n';
}
