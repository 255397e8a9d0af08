import { describeTable, type DataSource, type SourceColumn, type SqlDialect, type SqlTarget } from '../../datasource/index.js';
import {
  buildErrorSamplesQuery,
  errorSamplingSupported,
  MAX_ID_COLUMNS,
  parameterProblem,
  POSTGRESQL_DIALECT_TEMPLATE,
  POSTGRESQL_DIALECT_TEMPLATE_NAME,
  samplerContext,
  samplesOfRows,
  type CustomSensorDefinition,
  type ErrorSample,
  type ErrorSamplesQuery,
} from '../../datasource/sensors/index.js';
import { PythonRuleRunner, pythonRuleOptionsFromEnvironment } from '../../pythonrules/index.js';
import { loadCheckRules, type CheckRules } from '../checkRun/checkRules.js';
import { withDictionaries } from '../checkRun/renderCustomSensors.js';
import { DqError, isJsonObject, tableKey, type JsonObject } from '../../model/index.js';
import type { TableRef } from '../../policy/index.js';
import type { ErrorSampleInput, Store } from '../../store/store.js';
import { planCheckRun } from '../checkRun/planCheckRun.js';
import type { CheckSearchFilters, PlannedCheck } from '../checkRun/plannedChecks.js';
import { checkIdentity, periodOf } from '../checkRun/resultRows.js';
import { tableQueryRequestOf, type TimeWindowOverride } from '../checkRun/tableQueryRequest.js';
import type { JobExecutor } from '../jobService.js';
import type { ExecutorDependencies } from './executorDependencies.js';

/**
 * The collect-error-samples job (CollectErrorSamplesParameters): for every effective check of the selected
 * tables whose sensor counts failing rows (src/datasource/sensors: `failingRows`), one "error sampler" query
 * returns up to `max_results_per_check` (100) of those rows, as the offending value and up to five row ids, and
 * the samples are stored in the store's error_samples table (served by the results API's `…/errorsamples` and
 * its CSV download). The same function collects the samples of failed checks in a run-checks job.
 *
 * Row ids: the table spec's columns marked `id: true`, else the table's primary key on the data source, else a
 * column named `id`, else none (at most five, in that order; samples are ordered by them, so the same rows come
 * back each time). `data_scope: data_group` names each sample by its data group of the table's default data
 * grouping; `table` (the default) samples the table as a whole. `time_window_filter` narrows the partition
 * window of partitioned checks (recent days / months, include today / current month).
 *
 * A check whose sensor is a custom sensor (sensors/…, also one named as a built-in sensor, which it replaces) is
 * sampled by the sensor's `postgresql.sample.sql.jinja2`, rendered by the Python workers' Jinja2 with the
 * sensor's variables plus `error_sampling` (samples_limit = the limit, per data group; total_samples_limit = 1000 or the
 * limit when larger; id_columns = the row ids above) and run as it is; its `actual_value`, `row_id_<n>` and `grouping_level_<n>` columns become the
 * samples. A custom sensor without a sample template runs no sampler: its check gets a note, not an error, and
 * does not count in executed_error_samplers.
 *
 * A sampler that fails (the data source, a column that is gone, a sensor that cannot be built) stores nothing
 * and counts in `total_error_samplers_failed`; the job fails, with the reasons, only when every sampler failed.
 * Counts of CollectErrorSamplesResult: executed_error_samplers = samplers run (one per check); columns_analyzed /
 * columns_successfully_analyzed = columns with a sampler / whose samplers all succeeded (table-level checks are
 * not columns); total_error_samples_collected = sample rows stored. `dummy_sensor_execution` plans the samplers
 * without touching a data source (executed_error_samplers = what would run).
 */
export const COLLECT_ERROR_SAMPLES = 'collect_error_samples';

/** max_results_per_check: samples kept per check and collection (the results API's default limit). */
export const DEFAULT_MAX_RESULTS_PER_CHECK = 100;
const MAX_RESULTS_LIMIT = 100_000;

export type ErrorSamplesDataScope = 'table' | 'data_group';

/** TimeWindowFilter of the job parameters: overrides of the tables' incremental_time_window. */
export type TimeWindowFilter = TimeWindowOverride;

export interface CollectErrorSamplesParameters {
  check_search_filters?: CheckSearchFilters;
  time_window_filter?: TimeWindowFilter;
  data_scope?: ErrorSamplesDataScope;
  dummy_sensor_execution?: boolean;
}

export interface CollectErrorSamplesResult extends JsonObject {
  executed_error_samplers: number;
  columns_analyzed: number;
  columns_successfully_analyzed: number;
  total_error_samplers_failed: number;
  total_error_samples_collected: number;
}

export interface SamplerOutcome {
  check: PlannedCheck;
  /** Samples stored. */
  samples: number;
  /** Why the sampler failed (nothing was stored for it). */
  error?: DqError;
  /** Why no sampler ran for the check (a custom sensor without a sample template); not a failure. */
  note?: string;
}

export interface TableSamplesOutcome {
  table: TableRef;
  /** `connection/schema.table`. */
  name: string;
  samplers: SamplerOutcome[];
  durationMs: number;
}

export interface CollectErrorSamplesRun {
  result: CollectErrorSamplesResult;
  tables: TableSamplesOutcome[];
}

export interface TableSamplesContext {
  store: Store;
  dataSource: DataSource;
  signal: AbortSignal;
  /** The collection time: collected_at of every sample, and the run time bound into the sensors. */
  now: Date;
  dataScope: ErrorSamplesDataScope;
  /** Samples per check (default 100). */
  limit?: number;
  timeWindow?: TimeWindowFilter;
  /** executed_at of the samples (the check run's, when collected by a run; default `now`). */
  executedAt?: string;
  /** The custom sensors (with their sample templates) and the Python workers that render them. */
  rules?: CheckRules;
}

export interface CollectErrorSamplesOptions {
  signal?: AbortSignal;
  /** Samples per check (default 100). */
  limit?: number;
  /** Called as each table ends (progress on a terminal). */
  onTable?: (outcome: TableSamplesOutcome, done: number, total: number) => void;
}

const TABLES_AT_ONCE = 4;

/**
 * The checks of the list that have an error sampler: built-in sensors with failing rows, and every custom sensor
 * (`customSensors`; one without a sample template is kept to be given its note).
 */
export function samplingChecks(checks: readonly PlannedCheck[], customSensors?: ReadonlyMap<string, unknown>): PlannedCheck[] {
  // a comparison's failing "rows" are differences between two tables, not rows of one: nothing to sample
  return checks.filter((check) => !check.comparison && (customSensors?.has(check.catalog.sensor) === true || errorSamplingSupported(check.catalog.sensor)));
}

/** Validates the job's JSON parameters (the API's schema checks them too; the CLI builds them). */
export function collectErrorSamplesParameters(json: JsonObject): CollectErrorSamplesParameters {
  const filters = json.check_search_filters;
  if (filters !== undefined && filters !== null && !isJsonObject(filters)) throw new DqError('INVALID_ARGUMENT', 'check_search_filters must be an object');
  const window = json.time_window_filter;
  if (window !== undefined && window !== null && !isJsonObject(window)) throw new DqError('INVALID_ARGUMENT', 'time_window_filter must be an object');
  const scope = json.data_scope;
  if (scope !== undefined && scope !== null && scope !== 'table' && scope !== 'data_group') throw new DqError('INVALID_ARGUMENT', 'data_scope must be table or data_group');
  const dummy = json.dummy_sensor_execution;
  if (dummy !== undefined && dummy !== null && typeof dummy !== 'boolean') throw new DqError('INVALID_ARGUMENT', 'dummy_sensor_execution must be a boolean');
  return {
    check_search_filters: (isJsonObject(filters) ? filters : {}) as CheckSearchFilters,
    ...(isJsonObject(window) ? { time_window_filter: timeWindowOf(window) } : {}),
    data_scope: scope === 'data_group' ? 'data_group' : 'table',
    dummy_sensor_execution: dummy === true,
  };
}

function timeWindowOf(json: JsonObject): TimeWindowFilter {
  const count = (key: string): number | undefined => {
    const value = json[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new DqError('INVALID_ARGUMENT', `time_window_filter.${key} must be a non-negative integer`);
    return value;
  };
  const flag = (key: string): boolean | undefined => {
    const value = json[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new DqError('INVALID_ARGUMENT', `time_window_filter.${key} must be a boolean`);
    return value;
  };
  const window: TimeWindowFilter = {};
  const days = count('daily_partitioning_recent_days');
  if (days !== undefined) window.daily_partitioning_recent_days = days;
  const today = flag('daily_partitioning_include_today');
  if (today !== undefined) window.daily_partitioning_include_today = today;
  const months = count('monthly_partitioning_recent_months');
  if (months !== undefined) window.monthly_partitioning_recent_months = months;
  const month = flag('monthly_partitioning_include_current_month');
  if (month !== undefined) window.monthly_partitioning_include_current_month = month;
  return window;
}

export function collectErrorSamplesExecutor(deps: ExecutorDependencies): JobExecutor {
  return async (job, signal) => {
    const run = await collectErrorSamples(deps, collectErrorSamplesParameters(job.parameters), { signal });
    const failure = allFailed(run);
    if (failure) throw failure;
    return { ...run.result };
  };
}

/** The job's error when every sampler failed (at least one ran): the first failure's code, the reasons. */
export function allFailed(run: CollectErrorSamplesRun): DqError | undefined {
  const r = run.result;
  if (r.executed_error_samplers === 0 || r.total_error_samplers_failed < r.executed_error_samplers) return undefined;
  const failures = run.tables.flatMap((t) => t.samplers.filter((s) => s.error).map((s) => ({ table: t.name, sampler: s })));
  // one line per distinct reason, naming the tables it hit (a source that is down fails every table alike)
  const tablesByReason = new Map<string, Set<string>>();
  for (const { table, sampler } of failures) {
    const tables = tablesByReason.get(sampler.error!.message) ?? new Set<string>();
    tables.add(table);
    tablesByReason.set(sampler.error!.message, tables);
  }
  const reasons = [...tablesByReason].map(([message, tables]) => {
    const names = [...tables];
    return `${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more tables` : ''}: ${message}`;
  });
  const shown = reasons.slice(0, 5);
  if (reasons.length > 5) shown.push(`… and ${reasons.length - 5} more reasons`);
  return new DqError(
    failures[0].sampler.error!.code,
    `error sampling failed: all ${r.executed_error_samplers} error sampler${r.executed_error_samplers === 1 ? '' : 's'} failed: ${shown.join('; ')}`,
    { result: { ...r } },
  );
}

/** Selects the tables and checks, runs the samplers table by table (4 tables at once), stores the samples. */
export async function collectErrorSamples(
  deps: ExecutorDependencies,
  parameters: CollectErrorSamplesParameters,
  options: CollectErrorSamplesOptions = {},
): Promise<CollectErrorSamplesRun> {
  const signal = options.signal ?? new AbortController().signal;
  const limit = options.limit ?? DEFAULT_MAX_RESULTS_PER_CHECK;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RESULTS_LIMIT) {
    throw new DqError('INVALID_ARGUMENT', `the samples limit must be an integer from 1 to ${MAX_RESULTS_LIMIT}`);
  }
  const filters = parameters.check_search_filters ?? {};
  // custom sensors: read once; the Python workers (ours when none was given) render their sample templates
  const ownRunner = deps.pythonRules ? undefined : new PythonRuleRunner(pythonRuleOptionsFromEnvironment());
  try {
    const rules = await loadCheckRules(deps.objects, deps.pythonRules ?? ownRunner!);
    return await collectWithRules(deps, parameters, options, limit, signal, rules);
  } finally {
    await ownRunner?.close();
  }
}

async function collectWithRules(
  deps: ExecutorDependencies,
  parameters: CollectErrorSamplesParameters,
  options: CollectErrorSamplesOptions,
  limit: number,
  signal: AbortSignal,
  rules: CheckRules,
): Promise<CollectErrorSamplesRun> {
  const filters = parameters.check_search_filters ?? {};
  const { work, connections } = await planCheckRun(deps.objects, filters, (checks) => samplingChecks(checks, rules.sensors));
  const now = new Date();
  const outcomes: TableSamplesOutcome[] = [];
  if (parameters.dummy_sensor_execution === true) {
    for (const { table, checks } of work) {
      outcomes.push({ table, name: tableKey(table), samplers: checks.map((check) => ({ check, samples: 0, ...noteOf(check, rules) })), durationMs: 0 });
    }
    return { result: sumUp(outcomes), tables: outcomes };
  }

  let next = 0;
  const worker = async () => {
    while (next < work.length && !signal.aborted) {
      const { table, checks } = work[next++];
      const spec = connections.get(table.connection);
      let outcome: TableSamplesOutcome;
      if (!spec) {
        const error = new DqError('NOT_FOUND', `connection ${JSON.stringify(table.connection)} does not exist`);
        outcome = { table, name: tableKey(table), samplers: checks.map((check) => ({ check, samples: 0, error })), durationMs: 0 };
      } else {
        let dataSource: DataSource | undefined;
        let sourceError: DqError | undefined;
        try {
          dataSource = deps.dataSources.get(table.connection, spec);
        } catch (error) {
          sourceError = asDqError(error);
        }
        outcome = dataSource
          ? await collectTableErrorSamples(checks, { store: deps.store, dataSource, signal, now, dataScope: parameters.data_scope ?? 'table', limit, timeWindow: parameters.time_window_filter, rules })
          : { table, name: tableKey(table), samplers: checks.map((check) => ({ check, samples: 0, error: sourceError })), durationMs: 0 };
      }
      outcomes.push(outcome);
      options.onTable?.(outcome, outcomes.length, work.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TABLES_AT_ONCE, work.length) }, worker));
  if (signal.aborted) throw new DqError('QUERY_CANCELLED', 'error sampling was cancelled');
  outcomes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { result: sumUp(outcomes), tables: outcomes };
}

function sumUp(outcomes: readonly TableSamplesOutcome[]): CollectErrorSamplesResult {
  const result: CollectErrorSamplesResult = {
    executed_error_samplers: 0,
    columns_analyzed: 0,
    columns_successfully_analyzed: 0,
    total_error_samplers_failed: 0,
    total_error_samples_collected: 0,
  };
  for (const outcome of outcomes) {
    const columns = new Map<string, boolean>();
    for (const sampler of outcome.samplers) {
      if (sampler.note !== undefined) continue; // no sampler ran
      result.executed_error_samplers++;
      if (sampler.error) result.total_error_samplers_failed++;
      result.total_error_samples_collected += sampler.samples;
      if (sampler.check.column !== null) columns.set(sampler.check.column, (columns.get(sampler.check.column) ?? true) && !sampler.error);
    }
    result.columns_analyzed += columns.size;
    result.columns_successfully_analyzed += [...columns.values()].filter(Boolean).length;
  }
  return result;
}


function asDqError(error: unknown): DqError {
  return error instanceof DqError ? error : new DqError('INTERNAL', error instanceof Error ? error.message : String(error));
}

/**
 * The error samplers of ONE table's checks (those without a sampler are skipped): the table is described once
 * (row id columns, column types), then one query per check, each in its own read-only transaction so one failing
 * sampler cannot take the others down; the samples of the samplers that succeeded are stored in one insert.
 */
export async function collectTableErrorSamples(checks: readonly PlannedCheck[], context: TableSamplesContext): Promise<TableSamplesOutcome> {
  const started = performance.now();
  const sampled = samplingChecks(checks, context.rules?.sensors);
  const table = sampled[0]?.table ?? checks[0]?.table;
  if (table === undefined || sampled.length === 0) return { table: table ?? { connection: '', schema: '', table: '', spec: {} }, name: table ? tableKey(table) : '', samplers: [], durationMs: 0 };
  const { dataSource, signal } = context;
  const limit = context.limit ?? DEFAULT_MAX_RESULTS_PER_CHECK;
  const collectedAt = context.now.toISOString();
  const executedAt = context.executedAt ?? collectedAt;
  const fail = (error: unknown): TableSamplesOutcome => ({
    table,
    name: tableKey(table),
    samplers: sampled.map((check) => ({ check, samples: 0, error: asDqError(error) })),
    durationMs: Math.round(performance.now() - started),
  });

  let columns: SourceColumn[];
  let target: SqlTarget;
  try {
    // what the table's queries read and in which dialect (a DuckDB table's files, MySQL's SQL)
    target = await dataSource.sqlTarget(table.schema, table.table, table.spec);
    columns = await describeTable(dataSource, table.schema, table.table, { signal }, target.relation);
  } catch (error) {
    if (signal.aborted) throw error;
    return fail(error);
  }
  if (columns.length === 0) {
    return fail(new DqError('DATASOURCE_QUERY_FAILED', `the table ${table.schema}.${table.table} does not exist on the data source (or has no columns the user can see)`));
  }
  const byName = new Map(columns.map((c) => [c.name, c]));
  const idColumns = idColumnsOf(table.spec, columns);

  const samplers: SamplerOutcome[] = [];
  const rows: ErrorSampleInput[] = [];
  for (const check of sampled) {
    signal.throwIfAborted();
    const checkStarted = performance.now();
    const custom = context.rules?.sensors?.get(check.catalog.sensor);
    const note = custom === undefined ? undefined : noteOf(check, context.rules!).note;
    if (note !== undefined) {
      samplers.push({ check, samples: 0, note });
      continue;
    }
    try {
      const request = { ...tableQueryRequestFor(check, context), ...target };
      let samples: ErrorSample[];
      let valueIsColumn: boolean;
      if (custom !== undefined) {
        if ('error' in custom) throw new DqError('INVALID_ARGUMENT', custom.error);
        samples = await customSamples(check, custom, request, { ...context, rules: context.rules! }, limit, idColumns);
        valueIsColumn = check.column !== null;
      } else {
        const query: ErrorSamplesQuery = buildErrorSamplesQuery(request, String(check.checkHash), { limit, idColumns });
        samples = query.parse(await dataSource.query(query.text, query.values, { signal }));
        valueIsColumn = query.valueIsColumn;
      }
      const durationMs = Math.round(performance.now() - checkStarted);
      const { timeGradient } = periodOf(check.checkType, check.timeScale, context.now);
      const valueColumn = valueIsColumn && check.column !== null ? byName.get(check.column) : undefined;
      const resultDataType = (value: string | null) => resultDataTypeOf(value, valueColumn, target.dialect);
      samples.forEach((sample, index) => {
        const ids: Partial<ErrorSampleInput> = {};
        sample.rowIds.forEach((id, i) => {
          (ids as Record<string, string | null>)[`rowId${i + 1}`] = id;
        });
        rows.push({
          ...checkIdentity(check, timeGradient),
          dataGroup: sample.dataGroup,
          sampleIndex: index,
          result: resultDataType(sample.value) === 'instant' ? instantText(sample.value!) : sample.value,
          resultDataType: resultDataType(sample.value),
          ...ids,
          collectedAt,
          executedAt,
          durationMs,
        });
      });
      samplers.push({ check, samples: samples.length });
    } catch (error) {
      if (signal.aborted) throw error;
      samplers.push({ check, samples: 0, error: asDqError(error) });
    }
  }
  if (rows.length > 0) await context.store.insertErrorSamples(rows);
  return { table, name: tableKey(table), samplers, durationMs: Math.round(performance.now() - started) };
}

/** Row id columns: the spec's `id: true` columns, else the primary key, else a column named `id`; at most five, existing ones only. */
export function idColumnsOf(spec: JsonObject, columns: readonly SourceColumn[]): string[] {
  const existing = new Set(columns.map((c) => c.name));
  const specColumns = isJsonObject(spec.columns) ? spec.columns : {};
  const marked = Object.entries(specColumns)
    .filter(([name, column]) => isJsonObject(column) && column.id === true && existing.has(name))
    .map(([name]) => name);
  if (marked.length > 0) return marked.slice(0, MAX_ID_COLUMNS);
  const key = columns
    .filter((c) => c.primaryKeyPosition !== null)
    .sort((a, b) => a.primaryKeyPosition! - b.primaryKeyPosition!)
    .map((c) => c.name);
  if (key.length > 0) return key.slice(0, MAX_ID_COLUMNS);
  return existing.has('id') ? ['id'] : [];
}

const INTEGER_TYPES: ReadonlySet<string> = new Set(['int2', 'int4', 'int8', 'tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'hugeint', 'utinyint', 'usmallint', 'uinteger', 'ubigint']);

/**
 * DQOps's ErrorSampleResultDataType of a sampled value, from its column's type on the data source: an instant
 * by the dialect's instant types (MySQL's TIMESTAMP too, which DQOps reads as a UTC instant), else a date and
 * time without a zone is a local `datetime`.
 */
export function resultDataTypeOf(value: string | null, column: SourceColumn | undefined, dialect: Pick<SqlDialect, 'instantTypes'>): string {
  if (value === null) return 'null_value';
  if (column === undefined) return 'string';
  const type = column.baseType;
  if (INTEGER_TYPES.has(type)) return 'integer';
  if (column.typeCategory === 'N') return 'float';
  if (column.typeCategory === 'B') return 'boolean';
  if (type === 'date') return 'date';
  if (dialect.instantTypes.has(type)) return 'instant';
  if (type === 'timestamp' || type === 'datetime') return 'datetime';
  if (type === 'time' || type === 'timetz') return 'time';
  return 'string';
}

/**
 * An instant's text with its zone: the sessions run in UTC, and a source that writes no offset (MySQL's
 * TIMESTAMP as text) wrote UTC, so it gets PostgreSQL's `+00` and reads as the instant it is, not as a local time.
 */
function instantText(text: string): string {
  return /(?:[+-]\d{2}(?::?\d{2})?|Z)$/.test(text) ? text : `${text}+00`;
}

/** The sensor request of one check, over the same rows as the check run's (filter, grouping, partition window). */
function tableQueryRequestFor(check: PlannedCheck, context: TableSamplesContext) {
  return tableQueryRequestOf([check], { now: context.now, grouping: context.dataScope === 'data_group', timeWindow: context.timeWindow });
}

/** The note of a check whose custom sensor has no sample template (nothing to run); none otherwise. */
function noteOf(check: PlannedCheck, rules: CheckRules): { note?: string } {
  const custom = rules.sensors?.get(check.catalog.sensor);
  if (custom === undefined || 'error' in custom || custom.sampleTemplate !== undefined) return {};
  return { note: `the custom sensor ${custom.name} has no postgresql.sample.sql.jinja2: no error samples are collected for its checks` };
}

/** A custom sensor's sampler: its sample template rendered by the Python workers' Jinja2, run as it is. */
async function customSamples(
  check: PlannedCheck,
  definition: CustomSensorDefinition,
  request: ReturnType<typeof tableQueryRequestFor> & Partial<SqlTarget>,
  context: TableSamplesContext & { rules: CheckRules },
  limit: number,
  idColumns: readonly string[],
): Promise<ErrorSample[]> {
  if (request.dialect !== undefined && request.dialect.name !== 'postgresql') {
    throw new DqError('INVALID_ARGUMENT', `the custom sensor ${definition.name} has a PostgreSQL sample template; this source speaks ${request.dialect.name}`);
  }
  const sensor = request.sensors.find((s) => s.id === String(check.checkHash)) ?? request.sensors[0];
  const dictionaries = context.rules.dictionaries;
  const expanded = dictionaries && dictionaries.size > 0 ? withDictionaries(sensor, dictionaries) : sensor;
  const problem = parameterProblem(definition, expanded.parameters ?? {});
  if (problem !== undefined) throw new DqError('INVALID_ARGUMENT', problem);
  const name = `sensors/${definition.name}/postgresql.sample.sql.jinja2`;
  const variables = samplerContext(request, expanded, definition, { tableSpec: check.table.spec, limit, idColumns });
  const [rendered] = await context.rules.python.render(
    { [POSTGRESQL_DIALECT_TEMPLATE_NAME]: POSTGRESQL_DIALECT_TEMPLATE, [name]: definition.sampleTemplate! },
    [{ template: name, context: variables }],
  );
  if ('error' in rendered) throw new DqError('INVALID_ARGUMENT', `the sample template of the custom sensor ${definition.name} cannot be rendered: ${rendered.error}`);
  const rows = await context.dataSource.query(rendered.sql, [], { signal: context.signal });
  return samplesOfRows(rows, request, definition, { limit, idCount: idColumns.length });
}
