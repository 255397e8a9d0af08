import { runChecks, type RunChecksResult } from '../../jobs/executors/runChecks.js';
import { DqError, type JsonObject } from '../../model/index.js';
import { checkFiltersOf, withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import type { StoreFlags } from '../storeOptions.js';

export interface RunChecksOptions extends StoreFlags, DataSourceFlags {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: 'profiling' | 'monitoring' | 'partitioned';
  timeScale?: 'daily' | 'monthly';
  category?: string;
  check?: string;
  comparison?: string;
  failAt: 'warning' | 'error' | 'fatal';
  format: 'text' | 'json';
}

const LEVEL = { warning: 1, error: 2, fatal: 3 } as const;
const SEVERITY_LEVEL = { valid: 0, warning: 1, error: 2, fatal: 3 } as const;

/**
 * Exit code of `run checks`: 4 when a check could not run (execution error); otherwise the highest severity
 * (1 warning, 2 error, 3 fatal) when it reaches --fail-at, else 0.
 */
export function exitCodeOf(result: RunChecksResult, failAt: RunChecksOptions['failAt']): number {
  if (result.execution_errors > 0) return 4;
  const highest = result.highest_severity ? SEVERITY_LEVEL[result.highest_severity] : 0;
  return highest >= LEVEL[failAt] ? highest : 0;
}

/**
 * `dqctl run checks [filters]`: runs the effective checks of the selected tables in this process, on their data
 * sources, and stores the results in the live store (the same executor as POST /api/jobs/runchecks).
 */
export async function runChecksCommand(options: RunChecksOptions, io: CliIo): Promise<number> {
  if (!(options.failAt in LEVEL)) throw new DqError('INVALID_ARGUMENT', '--fail-at must be warning, error or fatal');
  const filters: JsonObject = { ...checkFiltersOf(options) };
  if (options.comparison) filters.tableComparisonName = options.comparison;
  const started = Date.now();
  const progress = io.interactive && options.format === 'text';
  return withDataSources(options, io, 'run checks', async ({ store, objects, dataSources, signal }) => {
    const run = await runChecks({ store, objects, dataSources }, { check_search_filters: filters }, signal, {
      onProgress: progress ? (done, total) => io.stderr(`\r\x1b[K${bar(done, total)} ${done}/${total} tables`) : undefined,
    });
    const { result } = run;
    const failed = run.tables.filter((t) => t.status === 'failed');
    if (progress) io.stderr('\r\x1b[K');
    if (options.format === 'json') {
      const tables = failed.map((t) => ({ table: t.table, code: t.error?.code ?? null, error: t.error?.message ?? null }));
      io.stdout(JSON.stringify(failed.length > 0 ? { ...result, failed_tables: tables } : result, null, 2) + '\n');
    } else {
      for (const t of failed) io.stdout(`  FAILED  ${t.table}  ${t.error?.message ?? ''}\n`);
      io.stdout(
        `Ran ${result.executed_checks} check${result.executed_checks === 1 ? '' : 's'} in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
          `${result.valid_results} valid, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}, ${result.errors} error${result.errors === 1 ? '' : 's'}, ` +
          `${result.fatals} fatal, ${result.execution_errors} execution error${result.execution_errors === 1 ? '' : 's'}` +
          `${result.highest_severity ? `; highest severity: ${result.highest_severity}` : ''}.\n` +
          (failed.length > 0 ? `The data source failed ${failed.length} of ${run.tables.length} tables; their checks are stored as execution errors.\n` : '') +
          (result.executed_checks > 0 ? 'See them with: dqctl results\n' : 'No check matched the filters.\n'),
      );
    }
    return exitCodeOf(result, options.failAt);
  });
}

function bar(done: number, total: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
