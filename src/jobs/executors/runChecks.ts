import { hostname } from 'node:os';
import { parallelJobsLimitOf, type DataSource } from '../../datasource/index.js';
import { DqError, isJsonObject, SEVERITY_NAMES, tableKey, type JsonObject } from '../../model/index.js';
import type { CheckResultInput } from '../../store/store.js';
import { planCheckRun } from '../checkRun/planCheckRun.js';
import { ownScheduleOf } from '../checkScheduleOverrides.js';
import type { CheckSearchFilters, PlannedCheck } from '../checkRun/plannedChecks.js';
import { periodOf, resultBase } from '../checkRun/resultRows.js';
import { runTableChecks } from '../checkRun/runTableChecks.js';
import { loadCheckRules, needsPython } from '../checkRun/checkRules.js';
import { PythonRuleRunner, pythonRuleOptionsFromEnvironment } from '../../pythonrules/index.js';
import { DEFAULT_NOTIFICATIONS_NAME } from '../../manifest/objectPaths.js';
import type { IncidentConfiguration } from '../../incidents/index.js';
import { ResultsWriter } from '../checkRun/resultsWriter.js';
import { JOB_WAITING, type JobCompleter, type JobExecutor } from '../jobService.js';
import { collectTableErrorSamples, samplingChecks } from './collectErrorSamples.js';
import type { ExecutorDependencies } from './executorDependencies.js';

/**
 * The run-checks job (RunChecksParameters): the effective checks of the tables the check_search_filters select
 * run on their data sources, one table at a time per connection slot (parallel_jobs_limit bounds the queries);
 * results, and execution errors of sensors or rules, are stored as check_results rows, and the job ends finished
 * with the counts: `{highest_severity, executed_checks, valid_results, warnings, errors, fatals, execution_errors}`.
 * A table whose data source fails it (unreachable, timeout, connection lost, table gone: tableFailure.ts) gets
 * execution errors for its checks; the run goes on with the other tables, and the job then ends failed with
 * the tables and reasons (the counts in the error's details).
 * `dummy_execution` plans without touching a data source (executed_checks = what would run). `scheduled: true`
 * (the runs the connection schedules submit, connectionSchedules.ts) leaves out checks marked `do_not_schedule`,
 * and either the checks with a `schedule_override` of their own (a scheduling group's run) or all but those whose
 * own schedule is the cron expression in `schedule_override` (the run of that schedule).
 * `collect_error_samples: true` also collects the error samples of the checks that raised a warning, error or
 * fatal (collectErrorSamples.ts, per data group); checks marked `always_collect_error_samples` always get them.
 * Custom Python rules run in the workers of `deps.pythonRules` (the server's, reused between runs), or of a
 * runner this run starts and ends.
 */
export const RUN_CHECKS = 'run_checks';
/**
 * A part of a queued run over several tables (a child job of the run): `parameters` are the run's, with `table`
 * ({connection, schema, table}) or `tables` (several of one connection, run one after the other) and `run_time`
 * (the run's start, so that every table's time periods are the run's). Any server on the store claims them (FOR
 * UPDATE SKIP LOCKED: no table twice), at most the connection's parallel_jobs_limit at once per server, each one
 * session on the data source; the last one to end ends the run (completeRunChecks).
 */
export const RUN_CHECKS_ON_TABLE = 'run_checks_on_table';

export interface RunChecksResult extends JsonObject {
  highest_severity: 'valid' | 'warning' | 'error' | 'fatal' | null;
  executed_checks: number;
  valid_results: number;
  warnings: number;
  errors: number;
  fatals: number;
  execution_errors: number;
}


export function countResults(rows: readonly CheckResultInput[], executedChecks: number): RunChecksResult {
  const result: RunChecksResult = { highest_severity: null, executed_checks: executedChecks, valid_results: 0, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 };
  let highest = -1;
  for (const row of rows) {
    if (row.verdict === false) continue; // a readout the rules gave no verdict on is not a result
    if (row.severity === null || row.severity === undefined) {
      result.execution_errors++;
      continue;
    }
    highest = Math.max(highest, row.severity);
    if (row.severity === 0) result.valid_results++;
    else if (row.severity === 1) result.warnings++;
    else if (row.severity === 2) result.errors++;
    else result.fatals++;
  }
  result.highest_severity = highest >= 0 ? SEVERITY_NAMES[highest] : null;
  return result;
}

/** How one table's checks went: `failed` when its data source failed it (unreachable, timeout, table gone). */
export interface TableCheckOutcome {
  table: string;
  status: 'ok' | 'failed';
  checks: number;
  error?: DqError;
}

export interface RunChecksRun {
  result: RunChecksResult;
  tables: TableCheckOutcome[];
}

export interface RunChecksOptions {
  onProgress?: (done: number, total: number) => void;
  /** The run's clock (default: now), for timeliness and partitions. */
  now?: Date;
  /** The spec of settings/defaultnotifications.dqonotifications.yaml (addresses for connections without their own). */
  defaultNotifications?: JsonObject;
  /**
   * Who the job list says ran it, when the run is not a queued job already (default: IN_PROCESS_RUN). The job
   * executor passes `queuedJob` instead: its row exists.
   */
  runBy?: string;
  queuedJob?: boolean;
  /** Tables run at once per connection (default: its parallel_jobs_limit); a child job runs its tables one by one. */
  parallelism?: number;
  /** Called once the run's queries are done (its results may still be being written): a child job frees its lane. */
  onQueriesDone?: () => void;
  /** Only these tables (a child job of a run): read in one batch instead of listing the connection's tables. */
  tables?: ReadonlyArray<{ connection: string; schema: string; table: string }>;
}

/** Who ran a run that no queue started: `dqctl run checks` in its own process, the demo. */
export const IN_PROCESS_RUN = 'dqctl in-process run';

/**
 * Runs the checks the parameters select and stores every outcome (results and execution errors). Returns the
 * counts and each table's outcome; the job executor below turns failed tables into a failed job.
 * Every run that stores results is a job of the store: a run no queue started (the CLI's, the demo's) is
 * recorded as a job running in this process and ended with its counts, so the job list shows every run.
 */
export async function runChecks(deps: ExecutorDependencies, parameters: JsonObject, signal: AbortSignal, options: RunChecksOptions = {}): Promise<RunChecksRun> {
  if (options.queuedJob || parameters.dummy_execution === true) return runSelectedChecks(deps, parameters, signal, options);
  const job = await deps.store.jobs.recordRunning({ jobType: RUN_CHECKS, parameters, createdBy: options.runBy ?? IN_PROCESS_RUN, claimedBy: `${hostname()}:${process.pid}` });
  let run: RunChecksRun;
  try {
    run = await runSelectedChecks(deps, parameters, signal, options);
  } catch (error) {
    await deps.store.jobs.finish(job.id, { status: signal.aborted ? 'cancelled' : 'failed', errorMessage: (error as Error).message });
    throw error;
  }
  // ended as the queue ends a job: a failed run keeps its counts and failed tables as the result
  const failed = run.tables.filter((t) => t.status === 'failed');
  const failure = failed.length > 0 ? runFailure(run, failed) : undefined;
  await deps.store.jobs.finish(
    job.id,
    failure ? { status: 'failed', result: JSON.parse(JSON.stringify(failure.details ?? null)) as JsonObject | null, errorMessage: failure.message } : { status: 'finished', result: run.result },
  );
  return run;
}

async function runSelectedChecks(deps: ExecutorDependencies, parameters: JsonObject, signal: AbortSignal, options: RunChecksOptions): Promise<RunChecksRun> {
  const p = parameters;
  const filters = (isJsonObject(p.check_search_filters) ? p.check_search_filters : {}) as CheckSearchFilters;
  const now = options.now ?? new Date();
  // A run a schedule submitted leaves out the checks marked do_not_schedule. A scheduling group's run leaves out
  // the checks with a schedule of their own; the run of such a schedule (schedule_override: its cron) runs only them.
  const scheduled = p.scheduled === true;
  const ownSchedule = typeof p.schedule_override === 'string' ? p.schedule_override : undefined;
  // a child job's tables, read in one batch; one no longer in the store fails (the others run)
  const only = options.tables ? await deps.objects.getMany('table', options.tables.map(tableKey)) : undefined;
  const gone: TableCheckOutcome[] = (options.tables ?? [])
    .map(tableKey)
    .filter((name) => !only?.some((o) => o.name === name))
    .map((name) => ({ table: name, status: 'failed', checks: 0, error: new DqError('NOT_FOUND', `the table ${name} is no longer in the store`) }));
  const { work, connections } = await planCheckRun(
    deps.objects,
    filters,
    (checks) => (scheduled ? checks.filter((c) => c.spec.do_not_schedule !== true && ownScheduleOf(c.spec) === ownSchedule) : checks),
    only,
  );
  const executedChecks = work.reduce((n, w) => n + w.checks.length, 0);
  if (p.dummy_execution === true) return { result: countResults([], executedChecks), tables: gone };

  // the reference side of table comparisons: any connection of the store, and the reference table's spec if known
  const resolveReference = async (connection: string, schema: string, table: string) => {
    const spec = connections.get(connection);
    if (!spec) throw new DqError('NOT_FOUND', `the reference connection ${JSON.stringify(connection)} does not exist`);
    const referenceTable = await deps.objects.get('table', tableKey({ connection, schema, table }));
    return { dataSource: deps.dataSources.get(connection, spec), ...(referenceTable ? { tableSpec: referenceTable.spec } : {}) };
  };
  // incidents are grouped in the transaction that stores each table's results (src/incidents)
  const defaultNotifications = options.defaultNotifications ?? (await deps.objects.get('default_notifications', DEFAULT_NOTIFICATIONS_NAME))?.spec;
  const tableSpecs = new Map(work.map((w) => [JSON.stringify([w.table.connection, w.table.schema, w.table.table]), w.table.spec]));
  const incidentConfiguration: IncidentConfiguration = {
    connectionSpec: (connection) => connections.get(connection),
    tableSpec: (connection, schema, table) => tableSpecs.get(JSON.stringify([connection, schema, table])),
    defaultNotifications,
  };
  // custom rules: read once per run; a runner of our own (started on the first call) when none was given
  const ownRunner = deps.pythonRules ? undefined : new PythonRuleRunner(pythonRuleOptionsFromEnvironment());
  const rules = await loadCheckRules(deps.objects, deps.pythonRules ?? ownRunner!);
  if (work.some((w) => w.checks.some((c) => needsPython(c, rules)))) rules.python.warmUp();
  const rows: CheckResultInput[] = [];
  const tables: TableCheckOutcome[] = [...gone];
  let done = 0;
  // each table's results are handed to the writer, and the slot goes on with its next table while they are written
  const writer = deps.resultsWriter ?? new ResultsWriter(deps.store);
  const writes = new Set<Promise<void>>();
  let writeFailure: { error: unknown } | undefined;
  const write = (tableRows: CheckResultInput[]) => {
    const written: Promise<void> = writer
      .write({ rows: tableRows, configuration: incidentConfiguration })
      .then(
        (incidents) => {
          if (incidents.messages > 0) deps.onMessages?.();
        },
        (error: unknown) => {
          writeFailure ??= { error };
        },
      )
      .finally(() => writes.delete(written));
    writes.add(written);
  };
  // per connection, as many tables at once as its parallel_jobs_limit (the data source's sessions)
  const byConnection = new Map<string, typeof work>();
  for (const item of work) byConnection.set(item.table.connection, [...(byConnection.get(item.table.connection) ?? []), item]);
  const worker = async (queue: typeof work) => {
    while (queue.length > 0) {
      signal.throwIfAborted();
      if (writeFailure) throw writeFailure.error;
      // bounded memory: the writer takes a table's rows only while it has room for them
      await writer.room();
      const { table, checks } = queue.shift()!;
      const name = tableKey(table);
      const spec = connections.get(table.connection);
      let tableRows: CheckResultInput[];
      let failure: DqError | undefined;
      let dataSource: DataSource | undefined;
      if (!spec) {
        failure = new DqError('NOT_FOUND', `connection ${JSON.stringify(table.connection)} does not exist`);
        tableRows = checks.map((c) => failureRow(c, now, failure!.message));
      } else {
        dataSource = deps.dataSources.get(table.connection, spec);
        try {
          const outcome = await runTableChecks(checks, { store: deps.store, dataSource, signal, now, resolveReference, rules });
          tableRows = outcome.rows;
          failure = outcome.failure;
        } catch (error) {
          if (signal.aborted) throw error;
          failure = error instanceof DqError ? error : new DqError('DATASOURCE_QUERY_FAILED', (error as Error).message);
          tableRows = checks.map((c) => failureRow(c, now, (error as Error).message));
        }
      }
      if (tableRows.length > 0) write(tableRows);
      const sampled = checksToSample(checks, tableRows, p.collect_error_samples === true, rules.sensors);
      if (dataSource && !failure && sampled.length > 0) {
        // samples are extra: a sampler that fails stores nothing and does not change the run's results
        try {
          await collectTableErrorSamples(sampled, { store: deps.store, dataSource, signal, now, dataScope: 'data_group', executedAt: now.toISOString(), rules });
        } catch (error) {
          if (signal.aborted) throw error;
        }
      }
      rows.push(...tableRows);
      tables.push({ table: name, status: failure ? 'failed' : 'ok', checks: checks.length, ...(failure ? { error: failure } : {}) });
      options.onProgress?.(++done, work.length);
    }
  };
  try {
    await Promise.all(
      [...byConnection].flatMap(([connection, queue]) => {
        const spec = connections.get(connection);
        const limit = options.parallelism ?? (spec ? parallelJobsLimitOf(spec) : 1);
        return Array.from({ length: Math.min(limit, queue.length) }, () => worker(queue));
      }),
    );
    options.onQueriesDone?.();
  } finally {
    // every table's results written (or failed) before the run ends: its job ends only once they are stored
    while (writes.size > 0) await Promise.all(writes);
    await ownRunner?.close();
  }
  if (writeFailure) throw writeFailure.error;
  if (signal.aborted) throw new DqError('QUERY_CANCELLED', 'the run was cancelled');
  return { result: countResults(rows, executedChecks), tables };
}

/**
 * The job: the run's counts when every table ran; when a data source failed a table, the results stay stored
 * and the job ends failed, naming the tables and the reasons (the first failure's error code).
 */
export function runChecksExecutor(deps: ExecutorDependencies, options: {
    onProgress?: (done: number, total: number) => void;
    /** A run over several tables becomes one child job per table (RUN_CHECKS_ON_TABLE); the job service ends it (completeRunChecks). */
    splitByTable?: boolean;
  } = {}): JobExecutor {
  return async (job, signal) => {
    if (options.splitByTable === true && job.parentId === null && job.claimedBy !== null && job.parameters.dummy_execution !== true) {
      const children = await tableJobsOf(deps, job.parameters);
      if (children.length > 1) {
        if (await deps.store.jobs.fanOut(job.id, job.claimedBy, children)) return JOB_WAITING;
        throw new DqError('QUERY_CANCELLED', 'the run was cancelled before its tables were queued');
      }
    }
    const run = await runChecks(deps, job.parameters, signal, { ...options, queuedJob: true });
    const failed = run.tables.filter((t) => t.status === 'failed');
    if (failed.length > 0) throw runFailure(run, failed);
    return run.result;
  };
}

/**
 * The child jobs of a run: the tables the run's filters select (tables without a check to run left out), a few
 * tables of one connection per child (tablesPerJob), so that a server claims and ends several tables per statement.
 */
async function tableJobsOf(deps: ExecutorDependencies, parameters: JsonObject): Promise<Array<{ jobType: string; parameters: JsonObject }>> {
  const filters = (isJsonObject(parameters.check_search_filters) ? parameters.check_search_filters : {}) as CheckSearchFilters;
  const scheduled = parameters.scheduled === true;
  const ownSchedule = typeof parameters.schedule_override === 'string' ? parameters.schedule_override : undefined;
  const { work } = await planCheckRun(deps.objects, filters, (checks) =>
    scheduled ? checks.filter((c) => c.spec.do_not_schedule !== true && ownScheduleOf(c.spec) === ownSchedule) : checks,
  );
  const runTime = new Date().toISOString();
  const byConnection = new Map<string, Array<{ connection: string; schema: string; table: string }>>();
  for (const { table } of work) {
    const list = byConnection.get(table.connection) ?? [];
    list.push({ connection: table.connection, schema: table.schema, table: table.table });
    byConnection.set(table.connection, list);
  }
  const perJob = tablesPerJob(work.length);
  return [...byConnection.values()].flatMap((tables) =>
    Array.from({ length: Math.ceil(tables.length / perJob) }, (_, i) => {
      const chunk = tables.slice(i * perJob, (i + 1) * perJob);
      return {
        jobType: RUN_CHECKS_ON_TABLE,
        parameters: { ...parameters, ...(chunk.length === 1 ? { table: chunk[0]! } : { tables: chunk }), run_time: runTime },
      };
    }),
  );
}

/**
 * Tables per child job: one for a run of up to 64 tables (every table its own job, spread over the replicas), then
 * more, up to 25 (10,000 tables: 400 jobs), so that the claims and ends of jobs cost little beside the tables'
 * queries while the jobs still spread over the replicas and their lanes.
 */
export function tablesPerJob(tables: number): number {
  return Math.min(25, Math.max(1, Math.ceil(tables / 64)));
}

/** The tables of a child job: `table` (one) or `tables` (several, of one connection). */
export function tablesOfJob(parameters: JsonObject): Array<{ connection: string; schema: string; table: string }> {
  const listed = Array.isArray(parameters.tables) ? parameters.tables : [parameters.table];
  return listed.map((table) => {
    if (!isJsonObject(table) || typeof table.connection !== 'string' || typeof table.schema !== 'string' || typeof table.table !== 'string') {
      throw new DqError('INVALID_ARGUMENT', 'a run_checks_on_table job needs parameters.table {connection, schema, table} or parameters.tables [...]');
    }
    return { connection: table.connection, schema: table.schema, table: table.table };
  });
}

/** A child job of a run: the run's parameters on its tables alone, at the run's time; a failed table fails the child. */
export function runChecksOnTableExecutor(deps: ExecutorDependencies): JobExecutor {
  return async (job, signal, slot) => {
    const tables = tablesOfJob(job.parameters);
    const runTime = typeof job.parameters.run_time === 'string' ? new Date(job.parameters.run_time) : new Date();
    const run = await runChecks(deps, job.parameters, signal, { queuedJob: true, now: Number.isNaN(runTime.getTime()) ? new Date() : runTime, tables, parallelism: 1, onQueriesDone: () => slot?.release() });
    const failed = run.tables.filter((t) => t.status === 'failed');
    if (failed.length > 0) throw runFailure(run, failed);
    return run.result;
  };
}

const COUNT_FIELDS = ['executed_checks', 'valid_results', 'warnings', 'errors', 'fatals', 'execution_errors'] as const;

/**
 * Ends a run split by table once its last table ended: the tables' counts summed; failed when a data source
 * failed a table (the tables and reasons, as a run in one piece reports them) or a table's job was cancelled.
 */
export function completeRunChecks(deps: Pick<ExecutorDependencies, 'store'>): JobCompleter {
  return async (parent) => {
    const totals = await deps.store.jobs.childTotals(parent.id, COUNT_FIELDS, 5);
    const result: RunChecksResult = { highest_severity: null, executed_checks: 0, valid_results: 0, warnings: 0, errors: 0, fatals: 0, execution_errors: 0 };
    for (const field of COUNT_FIELDS) result[field] = totals.sums[field] ?? 0;
    result.highest_severity = result.fatals > 0 ? 'fatal' : result.errors > 0 ? 'error' : result.warnings > 0 ? 'warning' : result.valid_results > 0 ? 'valid' : null;
    const tables = Object.values(totals.byStatus).reduce((sum, n) => sum + (n ?? 0), 0);
    const failed = totals.byStatus.failed ?? 0;
    const cancelled = totals.byStatus.cancelled ?? 0;
    if (failed === 0 && cancelled === 0) return { status: 'finished', result };
    const failedTables = totals.failed.flatMap((child) => {
      const listed = isJsonObject(child.result) && Array.isArray(child.result.failed_tables) ? child.result.failed_tables : [];
      return listed.length > 0 ? listed : [{ table: null, code: null, reason: null, message: child.errorMessage }];
    });
    const reasons = failedTables.map((t) => (isJsonObject(t) ? `${String(t.table ?? 'a table')}: ${String(t.message ?? 'failed')}` : 'failed'));
    if (failed > failedTables.length) reasons.push(`… and ${failed - failedTables.length} more`);
    if (cancelled > 0) reasons.push(`${cancelled} table${cancelled === 1 ? '' : 's'} cancelled`);
    return {
      status: 'failed',
      result: { result: { ...result }, tables, failed_tables: failedTables, cancelled_tables: cancelled },
      errorMessage:
        `run checks failed for ${failed + cancelled} of ${tables} table${tables === 1 ? '' : 's'} ` +
        `(${result.executed_checks} checks: ${result.valid_results} valid, ${result.warnings} warnings, ${result.errors} errors, ${result.fatals} fatal, ${result.execution_errors} execution errors): ${reasons.join('; ')}`,
    };
  };
}

export function runFailure(run: RunChecksRun, failed: readonly TableCheckOutcome[]): DqError {
  const reasons = failed.slice(0, 5).map((t) => `${t.table}: ${t.error?.message ?? 'failed'}`);
  if (failed.length > 5) reasons.push(`… and ${failed.length - 5} more`);
  const r = run.result;
  return new DqError(
    failed[0].error?.code ?? 'DATASOURCE_QUERY_FAILED',
    `run checks failed for ${failed.length} of ${run.tables.length} table${run.tables.length === 1 ? '' : 's'} ` +
      `(${r.executed_checks} checks: ${r.valid_results} valid, ${r.warnings} warnings, ${r.errors} errors, ${r.fatals} fatal, ${r.execution_errors} execution errors): ${reasons.join('; ')}`,
    {
      result: { ...r },
      tables: run.tables.length,
      failed_tables: failed.map((t) => ({
        table: t.table,
        code: t.error?.code ?? null,
        reason: typeof t.error?.details?.reason === 'string' ? t.error.details.reason : null,
        message: t.error?.message ?? null,
      })),
    },
  );
}

/**
 * The checks whose error samples a run collects: with `collect_error_samples`, those with a warning, error or
 * fatal result in any data group; always those marked `always_collect_error_samples: true`. Only checks whose
 * sensor has failing rows to sample.
 */
export function checksToSample(
  checks: readonly PlannedCheck[],
  rows: readonly CheckResultInput[],
  collectForFailed: boolean,
  customSensors?: ReadonlyMap<string, unknown>,
): PlannedCheck[] {
  const failed = new Set(rows.filter((row) => (row.severity ?? 0) >= 1).map((row) => row.checkHash));
  return samplingChecks(checks.filter((check) => check.spec.always_collect_error_samples === true || (collectForFailed && failed.has(check.checkHash))), customSensors);
}

function failureRow(check: PlannedCheck, now: Date, message: string): CheckResultInput {
  const { timePeriod, timeGradient } = periodOf(check.checkType, check.timeScale, now);
  return { ...resultBase(check, timeGradient, null, now.toISOString()), timePeriod, severity: null, errorMessage: message };
}
