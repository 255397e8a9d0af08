import { latestCheckResults } from '../../app/results/latestCheckResults.js';
import type { CliIo } from '../io.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { SEVERITY_NAMES, type CheckType } from '../../model/index.js';

export interface ResultsOptions extends StoreFlags {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: CheckType;
  check?: string;
  comparison?: string;
  format: 'text' | 'json';
}


/** `dqctl results [filters]`: the latest result of every check of the selected tables. */
export async function resultsCommand(options: ResultsOptions, io: CliIo): Promise<number> {
  const rows = await withStore(options, io, { operation: 'results' }, (store) => latestCheckResults(store, options));
  if (options.format === 'json') {
    io.stdout(JSON.stringify({ results: rows }, null, 2) + '\n');
    return 0;
  }
  if (rows.length === 0) {
    io.stdout('No results. Run checks first: dqctl run checks\n');
    return 0;
  }
  const lines = rows.map((r) => [
    `${r.connectionName}/${r.schemaName}.${r.tableName}${r.columnName ? `.${r.columnName}` : ''}`,
    r.tableComparison ? `${r.checkName} (${r.tableComparison})` : r.checkName,
    r.dataGroup,
    r.severity === null ? 'EXECUTION ERROR' : (SEVERITY_NAMES[r.severity] ?? String(r.severity)),
    r.severity === null ? (r.errorMessage ?? '') : String(r.actualValue),
    r.executedAt,
  ]);
  const header = ['TARGET', 'CHECK', 'DATA GROUP', 'STATUS', 'VALUE', 'EXECUTED AT'];
  io.stdout(renderColumns(header, lines));
  return 0;
}
