import { runChecksInProcess } from '../../app/inProcessJobs/runChecksInProcess.js';
import { DqError, RULE_SEVERITIES, type CheckType, type JsonObject, type RuleSeverity, type TimeScale } from '../../model/index.js';
import { checkFiltersOf, withDataSources, type DataSourceFlags } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import { remoteTargetOf, type RemoteFlags } from '../remoteClient.js';
import type { StoreFlags } from '../storeOptions.js';
import { reportRunChecks } from '../render/runChecksReport.js';

export interface RunChecksOptions extends StoreFlags, DataSourceFlags, RemoteFlags {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: CheckType;
  timeScale?: TimeScale;
  category?: string;
  check?: string;
  comparison?: string;
  failAt: RuleSeverity;
  format: 'text' | 'json';
}

/**
 * `dqctl run checks [filters]`: runs the effective checks of the selected tables in this process, on their data
 * sources, and stores the results in the live store (the same executor as POST /api/jobs/runchecks). With
 * `--server` (or DQCTL_SERVER_URL) the run is a job of that server instead, on its data sources and secrets
 * (remoteRunChecks.ts); the report and the exit code are the same.
 */
export async function runChecksCommand(options: RunChecksOptions, io: CliIo): Promise<number> {
  if (!(RULE_SEVERITIES as readonly string[]).includes(options.failAt)) throw new DqError('INVALID_ARGUMENT', '--fail-at must be warning, error or fatal');
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
    return reportRunChecks(outcome, options, io, Date.now() - started, `See them through the results overview endpoints of ${target.url}/api/docs`);
  }
  const outcome = await withDataSources(options, io, 'run checks', ({ store, dataSources, signal }) =>
    runChecksInProcess(store, dataSources, {
      filters,
      signal,
      onProgress: progress ? (done, total) => io.stderr(`\r\x1b[K${bar(done, total)} ${done}/${total} tables`) : undefined,
    }),
  );
  if (progress) io.stderr('\r\x1b[K');
  return reportRunChecks(outcome, options, io, Date.now() - started, 'See them with: dqctl results');
}

function bar(done: number, total: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
