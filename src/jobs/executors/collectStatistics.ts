import type { LiveObjects } from '../../inspect/liveObjects.js';
import {
  ALL_DATA,
  DEFAULT_TOP_VALUES,
  collectTableStatistics,
  columnProfileOf,
  categoryOfCollector,
  failureReason,
  selectedCollectors,
  type CollectorSelection,
  type DataSources,
  type SourceColumn,
} from '../../datasource/index.js';
import { DqError, isJsonObject, parseTableKey, type JsonObject, type LiveObject } from '../../model/index.js';
import { dataGroupingLevelsOf } from '../../policy/dataGrouping.js';
import { dataTypeCategoryOf } from '../../policy/dataTypeCategory.js';
import { tableRefOf } from '../../policy/subjects.js';
import type { StatisticsInput } from '../../store/statistics.js';
import type { Store } from '../../store/store.js';
import type { JobExecutor } from '../jobService.js';

/**
 * The collect-statistics job (StatisticsCollectorSearchFilters, camelCase, plus `samplesLimit`,
 * `configureTable` and `dataScope`): for every table of the live store the filters select, one read-only
 * session on its data source computes the statistics (src/datasource/collectTableStatistics.ts) for the whole
 * table (`dataScope: table`) or per data group of the table's default grouping (`data_group`), and one insert
 * stores them. Tables run in parallel up to their connection's parallel_jobs_limit.
 *
 * A table that fails (its data source unreachable, the table gone, a timeout) does not stop the others: an
 * error row is stored for each of its collectors, and the job ends FAILED naming the tables and reasons once
 * every table was tried. Cancelling stops the running statements and starts no more tables.
 *
 * `configureTable`: sets `timestamp_columns.event_timestamp_column` (when unset) to the first timestamp column
 * whose name says created / updated / event / timestamp, and `id: true` on the primary key columns, writing the
 * table through LiveObjects (an API write; on a git-managed table it shows as drift in the next plan).
 *
 * The counts of CollectStatisticsQueueJobResult: executed_statistics_collectors = collectors run (per column
 * and collector, data groups not multiplied), columns_analyzed / columns_successfully_analyzed = columns whose
 * collectors ran / all succeeded, total_collectors_failed, total_collected_results = result rows stored (one per
 * collector and data group).
 */
export const COLLECT_STATISTICS = 'collect_statistics';

export interface CollectStatisticsDependencies {
  store: Store;
  dataSources: DataSources;
  objects: LiveObjects;
}

export interface CollectStatisticsParameters {
  connection?: string;
  /** `schema.table`, `*` wildcards. */
  fullTableName?: string;
  /** false selects no collector (every collector is enabled). */
  enabled?: boolean;
  columnNames?: string[];
  collectorCategory?: string;
  collectorName?: string;
  collectorTarget?: 'table' | 'column';
  /** How many most common values per column (default 5). */
  samplesLimit?: number;
  configureTable?: boolean;
  dataScope?: 'table' | 'data_group';
}

export interface CollectStatisticsResult {
  executed_statistics_collectors: number;
  columns_analyzed: number;
  columns_successfully_analyzed: number;
  total_collectors_failed: number;
  total_collected_results: number;
}

export interface TableOutcome {
  connection: string;
  schema: string;
  table: string;
  /** The live object name, `connection/schema.table`. */
  name: string;
  status: 'ok' | 'failed';
  error?: DqError;
  collectors: number;
  collectorsFailed: number;
  results: number;
  columnsAnalyzed: number;
  durationMs: number;
  /** What configureTable changed (`columns.id.id = true` …). */
  configured: string[];
}

export interface CollectStatisticsRun {
  result: CollectStatisticsResult;
  tables: TableOutcome[];
}

export interface CollectStatisticsOptions {
  signal?: AbortSignal;
  /** Called as each table ends (for progress on a terminal). */
  onTable?: (outcome: TableOutcome, done: number, total: number) => void;
  /** Who writes configured tables (the lock holder). */
  caller?: string;
}

const MAX_SAMPLES_LIMIT = 1000;

/** Validates the job's JSON parameters (unknown keys are ignored, wrong types refused). */
export function collectStatisticsParameters(json: JsonObject): CollectStatisticsParameters {
  const text = (key: string): string | undefined => {
    const value = json[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new DqError('INVALID_ARGUMENT', `${key} must be a string`);
    return value;
  };
  const flag = (key: string): boolean | undefined => {
    const value = json[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw new DqError('INVALID_ARGUMENT', `${key} must be a boolean`);
    return value;
  };
  const columns = json.columnNames;
  if (columns !== undefined && columns !== null && !(Array.isArray(columns) && columns.every((c) => typeof c === 'string'))) {
    throw new DqError('INVALID_ARGUMENT', 'columnNames must be a list of column names');
  }
  const samples = json.samplesLimit;
  if (samples !== undefined && samples !== null && !(typeof samples === 'number' && Number.isInteger(samples) && samples >= 1 && samples <= MAX_SAMPLES_LIMIT)) {
    throw new DqError('INVALID_ARGUMENT', `samplesLimit must be an integer from 1 to ${MAX_SAMPLES_LIMIT}`);
  }
  // DQOps's generated clients name it `target`
  const target = text('collectorTarget') ?? text('target');
  if (target !== undefined && target !== 'table' && target !== 'column') throw new DqError('INVALID_ARGUMENT', 'collectorTarget must be table or column');
  const scope = text('dataScope');
  if (scope !== undefined && scope !== 'table' && scope !== 'data_group') throw new DqError('INVALID_ARGUMENT', 'dataScope must be table or data_group');
  return {
    connection: text('connection'),
    fullTableName: text('fullTableName'),
    enabled: flag('enabled'),
    columnNames: Array.isArray(columns) && columns.length > 0 ? (columns as string[]) : undefined,
    collectorCategory: text('collectorCategory'),
    collectorName: text('collectorName'),
    collectorTarget: target,
    samplesLimit: typeof samples === 'number' ? samples : undefined,
    configureTable: flag('configureTable'),
    dataScope: scope,
  };
}

export function collectStatisticsExecutor(deps: CollectStatisticsDependencies): JobExecutor {
  return async (job, signal) => {
    const parameters = collectStatisticsParameters(job.parameters);
    const run = await collectStatistics(deps, parameters, { signal, caller: `job:${job.id}` });
    const failed = run.tables.filter((t) => t.status === 'failed');
    if (failed.length > 0) throw failureSummary(run, failed);
    return { ...run.result };
  };
}

/** One DqError for the failed tables: the first one's code, every table and reason in the message. */
export function failureSummary(run: CollectStatisticsRun, failed: readonly TableOutcome[]): DqError {
  const r = run.result;
  const reasons = failed.slice(0, 5).map((t) => `${t.name}: ${t.error?.message ?? 'failed'}`);
  if (failed.length > 5) reasons.push(`… and ${failed.length - 5} more`);
  return new DqError(
    failed[0].error?.code ?? 'DATASOURCE_QUERY_FAILED',
    `statistics collection failed for ${failed.length} of ${run.tables.length} table${run.tables.length === 1 ? '' : 's'} ` +
      `(${r.total_collected_results} results collected, ${r.total_collectors_failed} collector${r.total_collectors_failed === 1 ? '' : 's'} failed): ${reasons.join('; ')}`,
    { result: { ...r }, tables: failed.map((t) => ({ table: t.name, code: t.error?.code, reason: failureReason(t.error) ?? null })) },
  );
}

export async function collectStatistics(deps: CollectStatisticsDependencies, parameters: CollectStatisticsParameters, options: CollectStatisticsOptions = {}): Promise<CollectStatisticsRun> {
  const { signal } = options;
  const tables = await selectTables(deps.objects, parameters);
  const selection = collectorSelection(parameters);
  const outcomes: TableOutcome[] = [];
  const total = tables.length;
  if (parameters.enabled === false || total === 0) return { result: sumUp(outcomes), tables: outcomes };

  const byConnection = new Map<string, LiveObject[]>();
  for (const table of tables) {
    const connection = parseTableKey(table.name)?.connection ?? '';
    byConnection.set(connection, [...(byConnection.get(connection) ?? []), table]);
  }
  await Promise.all(
    [...byConnection].map(async ([connection, connectionTables]) => {
      const connectionObject = await deps.objects.get('source', connection);
      let limit = 1;
      let source: ReturnType<DataSources['get']> | undefined;
      let sourceError: DqError | undefined;
      if (!connectionObject) sourceError = new DqError('NOT_FOUND', `connection ${JSON.stringify(connection)} not found`);
      else {
        try {
          source = deps.dataSources.get(connection, connectionObject.spec);
          limit = source.maxConnections;
        } catch (error) {
          sourceError = error instanceof DqError ? error : new DqError('INTERNAL', String(error));
        }
      }
      await forEachLimited(connectionTables, limit, signal, async (table) => {
        const outcome = await collectOne(deps, table, connectionObject?.spec, source, sourceError, parameters, selection, options);
        outcomes.push(outcome);
        options.onTable?.(outcome, outcomes.length, total);
      });
    }),
  );
  if (signal?.aborted) throw new DqError('QUERY_CANCELLED', 'statistics collection was cancelled');
  outcomes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { result: sumUp(outcomes), tables: outcomes };
}

async function collectOne(
  deps: CollectStatisticsDependencies,
  table: LiveObject,
  connectionSpec: JsonObject | undefined,
  source: ReturnType<DataSources['get']> | undefined,
  sourceError: DqError | undefined,
  parameters: CollectStatisticsParameters,
  selection: CollectorSelection,
  options: CollectStatisticsOptions,
): Promise<TableOutcome> {
  const ref = tableRefOf(table.name, table.spec)!;
  const started = Date.now();
  const collectedAt = new Date(started).toISOString();
  const base = { connection: ref.connection, schema: ref.schema, table: ref.table, name: table.name, configured: [] as string[] };
  const wantedColumn = columnFilter(table.spec, parameters.columnNames);
  const levels = parameters.dataScope === 'data_group' ? dataGroupingLevelsOf(table.spec, connectionSpec) : [];
  let described: SourceColumn[] | undefined;
  try {
    if (sourceError) throw sourceError;
    const stats = await collectTableStatistics(
      source!,
      {
        schema: ref.schema,
        table: ref.table,
        selectColumns: (columns) => {
          described = [...columns];
          return columns.filter((c) => wantedColumn(c.name));
        },
        collectors: selection,
        grouping: levels,
        tableSpec: table.spec,
        topValues: parameters.samplesLimit ?? DEFAULT_TOP_VALUES,
      },
      { signal: options.signal },
    );
    const durationMs = Date.now() - started;
    const rows: StatisticsInput[] = stats.values.map((v) => ({
      connectionName: ref.connection,
      schemaName: ref.schema,
      tableName: ref.table,
      columnName: v.columnName,
      collectorCategory: v.category,
      collectorName: v.collector,
      dataGroup: v.dataGroup,
      resultDouble: v.double,
      resultText: v.text,
      resultJson: v.json,
      collectedAt,
      durationMs,
    }));
    if (rows.length > 0) await deps.store.insertStatistics(rows);
    let configured: string[] = [];
    let configureError: DqError | undefined;
    if (parameters.configureTable) {
      try {
        configured = await configureTable(deps.objects, table.name, stats.columns, options.caller ?? 'collect statistics');
      } catch (error) {
        // the statistics are stored; only the table could not be written (e.g. --read-only-managed)
        configureError = error instanceof DqError ? error : new DqError('INTERNAL', String(error));
      }
    }
    return {
      ...base,
      configured,
      status: configureError ? 'failed' : 'ok',
      ...(configureError ? { error: configureError } : {}),
      collectors: stats.tableCollectors.length + stats.analyzed.reduce((n, c) => n + c.collectors.length, 0),
      collectorsFailed: 0,
      results: rows.length,
      columnsAnalyzed: stats.analyzed.length,
      durationMs,
    };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const failure = error instanceof DqError ? error : new DqError('INTERNAL', error instanceof Error ? error.message : String(error));
    const durationMs = Date.now() - started;
    // the collectors that did not run: of the columns the source described, or else the ones the table spec lists
    const columns = (described ?? specColumns(table.spec)).filter((c) => wantedColumn(c.name));
    const failedCollectors: { column: string | null; collector: string }[] = [
      ...selectedCollectors('table', undefined, selection).map((collector) => ({ column: null, collector })),
      ...columns.flatMap((c) => selectedCollectors('column', columnProfileOf(c), selection).map((collector) => ({ column: c.name, collector }))),
    ];
    const analyzedColumns = new Set(failedCollectors.filter((f) => f.column !== null).map((f) => f.column));
    await deps.store.insertStatistics(
      failedCollectors.map(({ column, collector }) => ({
        connectionName: ref.connection,
        schemaName: ref.schema,
        tableName: ref.table,
        columnName: column,
        collectorCategory: categoryOfCollector(collector),
        collectorName: collector,
        dataGroup: ALL_DATA,
        collectedAt,
        durationMs,
        errorMessage: failure.message,
      })),
    );
    return {
      ...base,
      status: 'failed',
      error: failure,
      collectors: failedCollectors.length,
      collectorsFailed: failedCollectors.length,
      results: 0,
      columnsAnalyzed: analyzedColumns.size,
      durationMs,
    };
  }
}

function sumUp(outcomes: readonly TableOutcome[]): CollectStatisticsResult {
  const result: CollectStatisticsResult = {
    executed_statistics_collectors: 0,
    columns_analyzed: 0,
    columns_successfully_analyzed: 0,
    total_collectors_failed: 0,
    total_collected_results: 0,
  };
  for (const o of outcomes) {
    result.executed_statistics_collectors += o.collectors;
    result.columns_analyzed += o.columnsAnalyzed;
    if (o.collectorsFailed === 0) result.columns_successfully_analyzed += o.columnsAnalyzed;
    result.total_collectors_failed += o.collectorsFailed;
    result.total_collected_results += o.results;
  }
  return result;
}

/** The tables the filters select, sorted by name; disabled tables are skipped. */
async function selectTables(objects: LiveObjects, parameters: CollectStatisticsParameters): Promise<LiveObject[]> {
  const all = await objects.list('table', parameters.connection ? `${parameters.connection}/` : undefined);
  const matchTable = fullTableNameFilter(parameters.fullTableName);
  return all.filter((table) => {
    const ref = tableRefOf(table.name, table.spec);
    if (!ref) return false;
    if (parameters.connection && ref.connection !== parameters.connection) return false;
    if (table.spec.disabled === true) return false;
    return matchTable(ref.schema, ref.table);
  });
}

function fullTableNameFilter(fullTableName: string | undefined): (schema: string, table: string) => boolean {
  if (!fullTableName) return () => true;
  const dot = fullTableName.indexOf('.');
  if (dot < 0) {
    const table = glob(fullTableName);
    return (_schema, name) => table(name);
  }
  const schema = glob(fullTableName.slice(0, dot));
  const table = glob(fullTableName.slice(dot + 1));
  return (s, t) => schema(s) && table(t);
}

function glob(pattern: string): (value: string) => boolean {
  if (pattern === '' || pattern === '*') return () => true;
  const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, '\\$&')).join('.*')}$`, 's');
  return (value) => regex.test(value);
}

function collectorSelection(parameters: CollectStatisticsParameters): CollectorSelection {
  const split = (text: string | undefined) => (text ? new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== '')) : undefined);
  return { categories: split(parameters.collectorCategory), names: split(parameters.collectorName), target: parameters.collectorTarget };
}

/** Columns selected by name (absent: all), minus columns disabled in the table spec. */
function columnFilter(spec: JsonObject, names: readonly string[] | undefined): (name: string) => boolean {
  const wanted = names ? new Set(names) : undefined;
  const columns = isJsonObject(spec.columns) ? spec.columns : {};
  return (name) => {
    if (wanted && !wanted.has(name)) return false;
    const column = columns[name];
    return !(isJsonObject(column) && column.disabled === true);
  };
}

/** The table spec's columns as the statistics see them (for counting the collectors of a table that failed). */
function specColumns(spec: JsonObject): SourceColumn[] {
  const columns = isJsonObject(spec.columns) ? spec.columns : {};
  return Object.entries(columns).map(([name, column], i) => {
    const snapshot = isJsonObject(column) && isJsonObject(column.type_snapshot) ? column.type_snapshot : {};
    const type = typeof snapshot.column_type === 'string' ? snapshot.column_type : '';
    const category = dataTypeCategoryOf(type);
    const [baseType, typeCategory] = category?.startsWith('numeric') ? ['numeric', 'N'] : category === 'text' ? ['text', 'S'] : category?.startsWith('datetime') ? ['timestamp', 'D'] : category === 'bool' ? ['bool', 'B'] : [type, 'X'];
    return { name, ordinal: i + 1, columnType: type, baseType, typeCategory, nullable: true, length: null, precision: null, scale: null, primaryKeyPosition: null };
  });
}

const EVENT_TIMESTAMP_NAME = /created|updated|event|timestamp/i;

/** configure_table: event timestamp column (when unset) and id columns (primary keys), through LiveObjects. */
async function configureTable(objects: LiveObjects, name: string, columns: readonly SourceColumn[], caller: string): Promise<string[]> {
  const changes: string[] = [];
  const timestampColumn = columns.find((c) => (c.baseType === 'timestamp' || c.baseType === 'timestamptz') && EVENT_TIMESTAMP_NAME.test(c.name));
  const keys = columns.filter((c) => c.primaryKeyPosition !== null).sort((a, b) => a.primaryKeyPosition! - b.primaryKeyPosition!);
  if (!timestampColumn && keys.length === 0) return changes;
  await objects.update('table', name, { caller }, (current) => {
    changes.length = 0;
    const spec: JsonObject = structuredClone(current.spec);
    const timestamps = isJsonObject(spec.timestamp_columns) ? spec.timestamp_columns : {};
    if (timestampColumn && typeof timestamps.event_timestamp_column !== 'string') {
      spec.timestamp_columns = { ...timestamps, event_timestamp_column: timestampColumn.name };
      changes.push(`timestamp_columns.event_timestamp_column = ${timestampColumn.name}`);
    }
    const specColumns: JsonObject = isJsonObject(spec.columns) ? spec.columns : {};
    for (const key of keys) {
      const column = isJsonObject(specColumns[key.name]) ? (specColumns[key.name] as JsonObject) : {};
      if (column.id === true) continue;
      specColumns[key.name] = { ...column, id: true };
      changes.push(`columns.${key.name}.id = true`);
    }
    if (keys.length > 0) spec.columns = specColumns;
    return { spec: changes.length > 0 ? spec : current.spec };
  });
  return changes;
}

/** Runs `work` over `items`, at most `limit` at once; no new item starts once the signal is aborted. */
async function forEachLimited<T>(items: readonly T[], limit: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let firstError: unknown;
  const worker = async () => {
    while (next < items.length && !signal?.aborted && firstError === undefined) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (firstError !== undefined) throw firstError;
}
