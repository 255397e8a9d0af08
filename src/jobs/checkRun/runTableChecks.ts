import type { DataSource, SqlTarget } from '../../datasource/index.js';
import { ALL_DATA_GROUP, planSensorQueries, sourceColumnTypesWanted, splitScan, type SensorQuery, type SensorReadout, type TableQueryRequest } from '../../datasource/sensors/index.js';
import type { DqError } from '../../model/index.js';
import type { Readout } from '../../rules/index.js';
import { outcomeOf } from './resultRows.js';
import type { CheckResultInput, Store } from '../../store/store.js';
import type { CheckRules } from './checkRules.js';
import { judgeReadouts } from './judgeReadouts.js';
import type { PlannedCheck } from './plannedChecks.js';
import { runTableComparisons, type ComparisonRunContext } from './runTableComparisons.js';
import { periodOf, resultBase } from './resultRows.js';
import { asTableFailure } from './tableFailure.js';
import { renderCustomSensors } from './renderCustomSensors.js';
import { tableQueryRequestOf } from './tableQueryRequest.js';

/**
 * Runs the planned checks of ONE table: per check type and time scale, the sensors go into the fewest queries
 * (one merged scan plus whatever cannot merge, src/datasource/sensors), run in one read-only snapshot on the
 * table's data source; each readout is judged by the check's rule for warning, error and fatal against the
 * stored history; every outcome becomes a check_results row. A sensor or rule that fails becomes an execution
 * error row of that check (the others still run); a data source that fails makes execution errors of all the
 * checks of the query. Nothing is stored here: the caller stores the rows (a check run) or only shows them (a preview).
 */
export interface TableRunOutcome {
  rows: CheckResultInput[];
  /** The first data source error that fails the table (unreachable, timeout, table gone; tableFailure.ts). */
  failure?: DqError;
}

type Group = { checkType: PlannedCheck['checkType']; timeScale: PlannedCheck['timeScale']; checks: PlannedCheck[] };

function groupsOf(checks: readonly PlannedCheck[]): Group[] {
  const groups = new Map<string, Group>();
  for (const check of checks) {
    const key = `${check.checkType}/${check.timeScale ?? ''}`;
    const group = groups.get(key) ?? { checkType: check.checkType, timeScale: check.timeScale, checks: [] };
    group.checks.push(check);
    groups.set(key, group);
  }
  return [...groups.values()];
}

export async function runTableChecks(
  all: readonly PlannedCheck[],
  context: {
    store: Pick<Store, 'checkResults'>;
    dataSource: DataSource;
    signal: AbortSignal;
    now: Date;
    resolveReference?: ComparisonRunContext['resolveReference'];
    /** Custom rules and their Python runner; without them only built-in rules judge. */
    rules?: CheckRules;
  },
): Promise<TableRunOutcome> {
  const rows: CheckResultInput[] = [];
  let failure: DqError | undefined;
  if (all.length === 0) return { rows };
  const { table } = all[0];
  const checks = all.filter((check) => !check.comparison);
  const comparisons = all.filter((check) => check.comparison);
  if (comparisons.length > 0) {
    const resolveReference =
      context.resolveReference ??
      (() => Promise.reject(new Error('table comparisons need the reference connection, which this run does not know')));
    const compared = await runTableComparisons(comparisons, { ...context, resolveReference });
    rows.push(...compared.rows);
    failure ??= compared.failure;
  }
  const executedAt = context.now.toISOString();
  if (checks.length === 0) return { rows, ...(failure ? { failure } : {}) };

  // what the table's queries read and in which SQL dialect (a DuckDB table's files); a table that cannot be read
  // (no folder for its schema) fails each of its checks with the reason
  let target: SqlTarget;
  try {
    target = await context.dataSource.sqlTarget(table.schema, table.table, table.spec);
  } catch (error) {
    if (context.signal.aborted) throw error;
    const base = (check: PlannedCheck) => resultBase(check, periodOf(check.checkType, check.timeScale, context.now).timeGradient, 0, executedAt);
    for (const check of checks) rows.push({ ...base(check), timePeriod: periodOf(check.checkType, check.timeScale, context.now).timePeriod, severity: null, errorMessage: (error as Error).message });
    return { rows, failure: failure ?? asTableFailure(error) };
  }

  for (const group of groupsOf(checks)) {
    context.signal.throwIfAborted();
    const byId = new Map(group.checks.map((c) => [String(c.checkHash), c]));
    const rendered = await renderCustomSensors({ ...tableQueryRequestOf(group.checks, { now: context.now, grouping: true }), ...target }, context.rules, table.spec);
    const request = await withSourceColumnTypes(rendered.request, target);
    const plan = planSensorQueries(request);
    const readouts = new Map<string, SensorReadout[]>();
    const failures = new Map<string, string>(rendered.failures);
    for (const rejected of plan.rejected) failures.set(rejected.id, `the sensor ${rejected.sensorName} cannot run: ${rejected.reason}`);
    const started = performance.now();
    try {
      await context.dataSource.session(
        async (session) => {
          const beside = runBesideTheScan(plan.queries, context, readouts, failures, (error) => (failure ??= asTableFailure(error)));
          const here = plan.queries.filter((query) => !beside.queries.has(query));
          try {
            for (const query of here) {
              try {
                const result = query.parse(await session.query(query.text, query.values));
                for (const [id, values] of result) readouts.set(id, values);
              } catch (error) {
                if (context.signal.aborted) throw error;
                if (query.parseError) {
                  for (const [id, values] of query.parseError(error)) readouts.set(id, values);
                } else {
                  for (const id of query.sensorIds) failures.set(id, (error as Error).message);
                  failure ??= asTableFailure(error);
                }
                // a failed statement aborts the transaction: the rest of this group needs a new one, and a failed
                // merged scan is re-run sensor by sensor
                const last = query === here[here.length - 1];
                if (!last || (query.kind === 'scan' && query.sensorIds.length > 1)) throw new RetryInNewSession();
              }
            }
          } finally {
            await beside.done;
          }
        },
        { signal: context.signal, snapshot: true },
      );
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (error instanceof RetryInNewSession) {
        // one query at a time, each in its own transaction, so one failure cannot take the others down; a failed
        // merged scan is split into one scan per sensor to pin the error on the sensor that caused it
        const pending: SensorQuery[] = [...plan.queries];
        const failedScans = new Set<SensorQuery>();
        for (const query of plan.queries) if (query.kind === 'scan' && query.sensorIds.some((id) => failures.has(id))) failedScans.add(query);
        for (const scan of failedScans) {
          if (scan.sensorIds.length < 2) continue;
          for (const id of scan.sensorIds) failures.delete(id);
          pending.splice(pending.indexOf(scan), 1, ...splitScan(request, scan));
        }
        for (const query of pending) {
          if (query.sensorIds.every((id) => readouts.has(id) || failures.has(id))) continue;
          try {
            const result = query.parse(await context.dataSource.query(query.text, query.values, { signal: context.signal }));
            for (const [id, values] of result) readouts.set(id, values);
          } catch (inner) {
            if (context.signal.aborted) throw inner;
            if (query.parseError) for (const [id, values] of query.parseError(inner)) readouts.set(id, values);
            else {
              for (const id of query.sensorIds) failures.set(id, (inner as Error).message);
              failure ??= asTableFailure(inner);
            }
          }
        }
      } else {
        for (const id of byId.keys()) if (!readouts.has(id)) failures.set(id, (error as Error).message);
        failure ??= asTableFailure(error);
      }
    }
    const durationMs = Math.round(performance.now() - started);
    // a custom sensor's default_value stands for a query that returned no row, as in DQOps
    for (const sensor of request.sensors) {
      const defaultValue = sensor.template?.defaultValue;
      if (defaultValue !== undefined && readouts.get(sensor.id)?.length === 0) readouts.set(sensor.id, [{ dataGroup: ALL_DATA_GROUP, actualValue: defaultValue }]);
    }

    for (const [id, check] of byId) {
      const period = periodOf(group.checkType, group.timeScale, context.now);
      const base = resultBase(check, period.timeGradient, durationMs, executedAt);
      const failure = failures.get(id);
      const values = readouts.get(id);
      if (failure !== undefined || !values) {
        rows.push({ ...base, timePeriod: period.timePeriod, severity: null, errorMessage: failure ?? 'the sensor returned no readout' });
        continue;
      }
      const judged = await judgeReadouts(check, values, {
        rules: context.rules,
        timeGradient: period.timeGradient,
        defaultTimePeriod: period.timePeriod,
        storedHistory: () => storedHistoryOf(context.store, check, period.timeGradient),
      });
      for (const judgement of judged) {
        const { readout, timePeriod } = judgement;
        const dataGroup = readout.dataGroup;
        if ('error' in judgement) {
          rows.push({ ...base, timePeriod, dataGroup, actualValue: readout.actualValue, severity: null, errorMessage: judgement.error });
          continue;
        }
        const { evaluation } = judgement;
        rows.push({
          ...base,
          timePeriod,
          dataGroup,
          actualValue: readout.actualValue,
          expectedValue: evaluation.expectedValue ?? readout.expectedValue ?? null,
          ...outcomeOf(evaluation, readout.severity),
        });
      }
    }
  }
  // a timeout of the merged scan that the one-sensor-at-a-time retry got past fails nothing
  const failed = failure !== undefined && rows.some((row) => row.severity === null);
  return { rows, ...(failed ? { failure } : {}) };
}

class RetryInNewSession extends Error {}

/**
 * Where one statement runs on one core (MySQL, MariaDB: SqlDialect.statementUsesCores), the queries after the
 * scan (those that cannot share it, such as the duplicate-record count) run beside it, each on a session of the
 * connection that is free now (never waited for); each then reads the table as of its own start, as DQOps reads
 * every check, rather than in the scan's snapshot. A failure is that query's sensors' alone. `done` settles when
 * all of them have, and never rejects.
 */
function runBesideTheScan(
  queries: readonly SensorQuery[],
  context: { dataSource: DataSource; signal: AbortSignal },
  readouts: Map<string, SensorReadout[]>,
  failures: Map<string, string>,
  onFailure: (error: unknown) => void,
): { queries: Set<SensorQuery>; done: Promise<unknown> } {
  const spared = new Set<SensorQuery>();
  const runs: Promise<void>[] = [];
  const { dataSource, signal } = context;
  if (dataSource.dialect.statementUsesCores || !dataSource.spareSession) return { queries: spared, done: Promise.resolve() };
  for (const query of queries.slice(1)) {
    const run = dataSource.spareSession((session) => session.query(query.text, query.values), { signal, snapshot: true });
    if (!run) break;
    spared.add(query);
    runs.push(
      run.then(
        (rows) => {
          for (const [id, values] of query.parse(rows)) readouts.set(id, values);
        },
        (error: unknown) => {
          if (signal.aborted) return;
          if (query.parseError) for (const [id, values] of query.parseError(error)) readouts.set(id, values);
          else {
            for (const id of query.sensorIds) failures.set(id, (error as Error).message);
            onFailure(error);
          }
        },
      ),
    );
  }
  return { queries: spared, done: Promise.all(runs) };
}

/** The request with the source's column types when a sensor can use them (a failure to get them is no failure). */
async function withSourceColumnTypes(request: TableQueryRequest, target: SqlTarget): Promise<TableQueryRequest> {
  if (!target.describeColumns || !sourceColumnTypesWanted(request)) return request;
  const types = await target.describeColumns().catch(() => undefined);
  return types ? { ...request, sourceColumnTypes: types } : request;
}

/** The stored readouts of one check (every data group, execution errors left out), by data group. */
async function storedHistoryOf(store: Pick<Store, 'checkResults'>, check: PlannedCheck, timeGradient: string): Promise<Map<string, Readout[]>> {
  const rows = await store.checkResults({
    connectionName: check.table.connection,
    schemaName: check.table.schema,
    tableName: check.table.table,
    columnName: check.column,
    checkType: check.checkType,
    timeGradient,
    checkName: check.checkName,
    executionErrors: 'exclude',
    read: 'readouts',
  });
  const byGroup = new Map<string, Readout[]>();
  for (const row of rows) {
    if (typeof row.actualValue !== 'number') continue;
    const list = byGroup.get(row.dataGroup) ?? [];
    list.push({ timePeriod: row.timePeriod, value: row.actualValue, expectedValue: row.expectedValue });
    byGroup.set(row.dataGroup, list);
  }
  return byGroup;
}
