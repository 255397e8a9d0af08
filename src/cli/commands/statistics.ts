import { latestStatistics } from '../../app/latestStatistics.js';
import type { StatisticsRow } from '../../app/types.js';
import type { CliIo } from '../io.js';
import { callServer, remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import { queryOf } from './results.js';
import { renderColumns } from '../render/columns.js';
import { withStore, type StoreFlags } from '../storeOptions.js';
import { int64Json } from '../../model/index.js';

export interface StatisticsOptions extends StoreFlags, RemoteFlags {
  connection?: string;
  table?: string;
  column?: string;
  format: 'text' | 'json';
}

/** A statistic's value as one line of text: numbers as they are, top values as `value (count)`, texts quoted. */
function valueText(row: StatisticsRow): string {
  if (row.errorMessage !== null) return `ERROR: ${row.errorMessage}`;
  if (Array.isArray(row.resultJson)) {
    return row.resultJson.map((entry) => (entry && typeof entry === 'object' && !Array.isArray(entry) ? `${JSON.stringify(entry.value)} (${String(entry.count)})` : JSON.stringify(entry))).join(', ');
  }
  if (row.resultJson !== null) return JSON.stringify(row.resultJson);
  if (row.resultDouble !== null) return String(row.resultDouble);
  return row.resultText === null ? '' : JSON.stringify(row.resultText);
}

/**
 * `dqctl statistics [--connection C] [--table 'schema.t*'] [--column c]`: the statistics `collect statistics`
 * stored, the latest value of each: one line per statistic (table, column, data group, collector, value; a
 * collector that failed shows its error), or `--format json`. With --server, from that running server's store
 * (GET /api/gitops/statistics, the same JSON).
 */
export async function statisticsCommand(options: StatisticsOptions, io: CliIo): Promise<number> {
  const target = remoteTargetOf(options, io);
  const { connection, table, column } = options;
  const rows = target
    ? (await callServer<{ statistics: StatisticsRow[] }>(target, 'GET', `/api/gitops/statistics${queryOf({ connection, table, column })}`))?.statistics ?? []
    : await withStore(options, io, { operation: 'statistics' }, (store) => latestStatistics(store, options));
  if (options.format === 'json') {
    io.stdout(int64Json({ statistics: rows }, 2) + '\n');
    return 0;
  }
  if (rows.length === 0) {
    io.stdout('No statistics. Collect them first: dqctl collect statistics\n');
    return 0;
  }
  const lines = rows.map((r) => [`${r.connectionName}/${r.schemaName}.${r.tableName}`, r.columnName ?? '', r.dataGroup, `${r.collectorCategory}/${r.collectorName}`, valueText(r)]);
  const header = ['TABLE', 'COLUMN', 'DATA GROUP', 'STATISTIC', 'VALUE'];
  io.stdout(renderColumns(header, lines));
  io.stdout(`The latest value of each statistic; the newest collection was at ${[...new Set(rows.map((r) => r.collectedAt))].sort().at(-1)}.\n`);
  return 0;
}
