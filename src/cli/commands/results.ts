import { latestCheckResults } from '../../app/results/latestCheckResults.js';
import type { CheckResultRow } from '../../app/types.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { int64Json, SEVERITY_NAMES, type CheckType } from '../../model/index.js';

export interface ResultsOptions extends StoreFlags, RemoteFlags {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: CheckType;
  check?: string;
  comparison?: string;
  format: 'text' | 'json';
}


/**
 * `dqctl results [filters]`: the latest result of every check of the selected tables; with --server, from that
 * running server's store (GET /api/gitops/results, the same JSON).
 */
export async function resultsCommand(options: ResultsOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  const { connection, table, column, checkType, check, comparison } = options;
  const rows = target
    ? (await callServer<{ results: CheckResultRow[] }>(target, 'GET', `/api/gitops/results${queryOf({ connection, table, column, checkType, check, comparison })}`))?.results ?? []
    : await withStore(options, io, { operation: 'results' }, (store) => latestCheckResults(store, options));
  if (options.format === 'json') {
    io.stdout(int64Json({ results: rows }, 2) + '\n');
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

/** `?a=1&b=2` of the given filters (none: ''). */
export function queryOf(filters: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return query.size > 0 ? `?${query.toString()}` : '';
}
