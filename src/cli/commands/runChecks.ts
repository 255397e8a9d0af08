import { runChecks, type RunChecksResult } from '../../jobs/executors/runChecks.js';
import { DqError, type JsonObject } from '../../model/index.js';
import { checkFiltersOf, withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import { remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import type { StoreFlags } from '../storeOptions.js';

export interface RunChecksOptions extends StoreFlags, DataSourceFlags, RemoteFlags {
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

/** What a run comes to, for the report: the counts and the tables whose data source failed them. */
export interface RunChecksOutcome {
  result: RunChecksResult;
  tables: number;
  failed: Array<{ table: string; code: string | null; message: string | null }>;
}

/**
 * `dqctl run checks [filters]`: runs the effective checks of the selected tables in this process, on their data
 * sources, and stores the results in the live store (the same executor as POST /api/jobs/runchecks). With
 * `--server` (or DQCTL_SERVER_URL) the run is a job of that server instead, on its data sources and secrets
 * (remoteRunChecks.ts); the report and the exit code are the same.
 */
export async function runChecksCommand(options: RunChecksOptions, io: CliIo): Promise<number> {
  if (!(options.failAt in LEVEL)) throw new DqError('INVALID_ARGUMENT', '--fail-at must be warning, error or fatal');
  const filters: JsonObject = { ...checkFiltersOf(options) };
  if (options.comparison) filters.tableComparisonName = options.comparison;
  const started = Date.now();
  const progress = io.interactive && options.format === 'text';
  const target = remoteTargetOf(options, io);
  if (target) {
    for (const [flag, given] of [['--credentials-dir', options.credentialsDir], ['--repository', options.repository]] as const) {
      if (given) throw new DqError('INVALID_ARGUMENT', `${flag} has no effect with --server: the server runs the checks with its own secrets; drop it`);
    }
    const { remoteRunChecks } = await import('./remoteRunChecks.js');
    const outcome = await remoteRunChecks(target, filters, { progress }, io);
    return report(outcome, options, io, Date.now() - started, `See them through the results overview endpoints of ${target.url}/api/docs`);
  }
  return withDataSources(options, io, 'run checks', async ({ store, objects, dataSources, signal }) => {
    const run = await runChecks({ store, objects, dataSources }, { check_search_filters: filters }, signal, {
      onProgress: progress ? (done, total) => io.stderr(`\r\x1b[K${bar(done, total)} ${done}/${total} tables`) : undefined,
    });
    if (progress) io.stderr('\r\x1b[K');
    const failed = run.tables
      .filter((t) => t.status === 'failed')
      .map((t) => ({ table: t.table, code: t.error?.code ?? null, message: t.error?.message ?? null }));
    return report({ result: run.result, tables: run.tables.length, failed }, options, io, Date.now() - started, 'See them with: dqctl results');
  });
}

/** Prints the outcome (text or JSON) and returns the exit code. */
function report({ result, tables, failed }: RunChecksOutcome, options: RunChecksOptions, io: CliIo, elapsedMs: number, whereToSee: string): number {
  if (options.format === 'json') {
    const failedTables = failed.map((t) => ({ table: t.table, code: t.code, error: t.message }));
    io.stdout(JSON.stringify(failed.length > 0 ? { ...result, failed_tables: failedTables } : result, null, 2) + '\n');
  } else {
    for (const t of failed) io.stdout(`  FAILED  ${t.table}  ${t.message ?? ''}\n`);
    io.stdout(
      `Ran ${result.executed_checks} check${result.executed_checks === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s: ` +
        `${result.valid_results} valid, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}, ${result.errors} error${result.errors === 1 ? '' : 's'}, ` +
        `${result.fatals} fatal, ${result.execution_errors} execution error${result.execution_errors === 1 ? '' : 's'}` +
        `${result.highest_severity ? `; highest severity: ${result.highest_severity}` : ''}.\n` +
        (failed.length > 0 ? `The data source failed ${failed.length} of ${tables} tables; their checks are stored as execution errors.\n` : '') +
        (result.executed_checks > 0 ? `${whereToSee}\n` : 'No check matched the filters.\n'),
    );
  }
  return exitCodeOf(result, options.failAt);
}

function bar(done: number, total: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
