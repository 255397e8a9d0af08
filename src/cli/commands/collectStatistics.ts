import { EXIT } from '../exitCodes.js';
import { padEndShown, shownWidth } from '../render/columns.js';
import { collectStatisticsInProcess } from '../../app/inProcessJobs/collectStatisticsInProcess.js';
import type { CollectStatisticsParameters, CollectStatisticsRun, TableStatisticsOutcome as TableOutcome } from '../../app/types.js';
import { DqError, maxOf } from '../../model/index.js';
import { withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import type { StoreFlags } from '../storeOptions.js';
import { whoAmI } from '../actor.js';

export interface CollectStatisticsOptions extends StoreFlags, DataSourceFlags {
  connection?: string;
  table?: string;
  column?: string[];
  category?: string;
  collector?: string;
  withGrouping?: boolean;
  configureTable?: boolean;
  samplesLimit?: string;
  format: 'text' | 'json';
}

/**
 * `dqctl collect statistics [--connection C] [--table 'schema.t*'] [--column c]`: runs the collect-statistics
 * job in this process (no server needed) and stores the statistics in the live store. A progress line on a
 * terminal, a summary at the end; exit 1 when a table failed (its error is stored and shown).
 */
export async function collectStatisticsCommand(options: CollectStatisticsOptions, io: CliIo): Promise<number> {
  let samplesLimit: number | undefined;
  if (options.samplesLimit !== undefined) {
    samplesLimit = Number(options.samplesLimit);
    if (!Number.isInteger(samplesLimit) || samplesLimit < 1 || samplesLimit > 1000) {
      throw new DqError('INVALID_ARGUMENT', '--samples-limit must be an integer from 1 to 1000');
    }
  }
  const parameters: CollectStatisticsParameters = {
    connection: options.connection,
    fullTableName: options.table,
    columnNames: options.column && options.column.length > 0 ? options.column : undefined,
    collectorCategory: options.category,
    collectorName: options.collector,
    samplesLimit,
    configureTable: options.configureTable,
    dataScope: options.withGrouping ? 'data_group' : 'table',
  };
  const progress = io.interactive && options.format === 'text';
  const started = Date.now();
  const { run, failure } = await withDataSources(options, io, 'collect statistics', ({ store, dataSources, signal }) =>
    collectStatisticsInProcess(store, dataSources, parameters, {
      signal,
      caller: `cli:${whoAmI(io.env)}`,
      onTable: progress ? (outcome, done, total) => io.stderr(`\r\x1b[K[${done}/${total}] ${outcome.name} ${outcome.status === 'ok' ? 'ok' : 'FAILED'}`) : undefined,
    }),
  );
  if (progress && run.tables.length > 0) io.stderr('\r\x1b[K');
  if (options.format === 'json') io.stdout(JSON.stringify(runJson(run), null, 2) + '\n');
  else io.stdout(renderRun(run, Date.now() - started));
  if (failure !== null) {
    io.stderr(`Error: ${failure}\n`);
    return EXIT.couldNotRun;
  }
  return EXIT.ok;
}

function runJson(run: CollectStatisticsRun) {
  return {
    result: run.result,
    tables: run.tables.map((t) => ({
      table: t.name,
      status: t.status,
      ...(t.error ? { error: { code: t.error.code, message: t.error.message } } : {}),
      columns_analyzed: t.columnsAnalyzed,
      executed_collectors: t.collectors,
      collectors_failed: t.collectorsFailed,
      collected_results: t.results,
      duration_ms: t.durationMs,
      configured: t.configured,
    })),
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function renderRun(run: CollectStatisticsRun, elapsedMs: number): string {
  if (run.tables.length === 0) return 'No table matched: nothing collected.\n';
  const width = maxOf(run.tables.map((t) => shownWidth(t.name)));
  const line = (t: TableOutcome) =>
    t.status === 'ok'
      ? `  ok      ${padEndShown(t.name, width)}  ${t.columnsAnalyzed} columns, ${t.results} results, ${seconds(t.durationMs)}`
      : `  FAILED  ${padEndShown(t.name, width)}  ${t.error?.message ?? ''}`;
  const lines = run.tables.map(line);
  for (const t of run.tables) for (const change of t.configured) lines.push(`  configured ${t.name}: ${change}`);
  const r = run.result;
  const failed = run.tables.filter((t) => t.status === 'failed').length;
  lines.push(
    '',
    `Statistics of ${run.tables.length} table${run.tables.length === 1 ? '' : 's'} in ${seconds(elapsedMs)}: ${run.tables.length - failed} ok, ${failed} failed; ` +
      `${r.executed_statistics_collectors} collectors on ${r.columns_analyzed} columns (${r.columns_successfully_analyzed} fully analyzed), ` +
      `${r.total_collected_results} results stored, ${r.total_collectors_failed} collectors failed.`,
  );
  return lines.join('\n') + '\n';
}
