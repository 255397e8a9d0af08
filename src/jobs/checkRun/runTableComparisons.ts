import type { DataSource, SqlTarget } from '../../datasource/index.js';
import { planSensorQueries, type SensorReadout, type TableQueryRequest } from '../../datasource/sensors/index.js';
import { DqError, isJsonObject, RULE_SEVERITIES, type JsonObject } from '../../model/index.js';
import { evaluateCheck } from '../../rules/index.js';
import type { CheckResultInput, Store } from '../../store/store.js';
import { partitionColumnOf, type PlannedCheck } from './plannedChecks.js';
import { outcomeOf, periodOf, resultBase } from './resultRows.js';
import { asTableFailure } from './tableFailure.js';
import { columnTypesOf, tableQueryRequestOf } from './tableQueryRequest.js';

/**
 * Runs the comparison checks of ONE table (`<container>.comparisons.<name>.<check>`): for each table comparison
 * of `table_comparisons` and each check type and time scale, the same sensors (row count, column count, min,
 * max, mean, sum, null and not-null counts) are measured on this table and on the reference table, each side in
 * one merged query on its own data source, both at once. The readouts are matched by data group (the values of
 * the comparison's grouping columns, e.g. `PL`) and, for partitioned checks, by partition; this table's value
 * is the actual value, the reference table's the expected one, and the check's rule (`max_diff_percent`) judges
 * the difference. A data group found on one side only is a difference: counts read 0 on the missing side, other
 * aggregates fail at the check's highest configured severity. A side that fails (connection refused, table gone)
 * gives execution errors naming that side. The two sides may be sources of different providers (a PostgreSQL
 * table and a Parquet file or a MariaDB table): each side's queries are in its own source's dialect, and data
 * groups match on the grouping values' text.
 */
export interface ComparisonReference {
  dataSource: DataSource;
  /** The reference table's spec when it is in the live store (its partition and timestamp columns). */
  tableSpec?: JsonObject;
}

export interface ComparisonRunContext {
  /** Read only here (nothing is stored): a preview passes its store too. */
  store: Pick<Store, 'checkResults'>;
  dataSource: DataSource;
  signal: AbortSignal;
  now: Date;
  /** The data source of a reference connection; throws (with a message for the user) when there is none. */
  resolveReference(connection: string, schema: string, table: string): Promise<ComparisonReference>;
}

/** Sensors whose value for a data group missing on one side is 0: the group has no rows there. */
const COUNT_SENSORS = new Set(['table/volume/row_count', 'column/nulls/null_count', 'column/nulls/not_null_count']);

type Group = { name: string; checks: PlannedCheck[] };

function groupsOf(checks: readonly PlannedCheck[]): Group[] {
  const groups = new Map<string, Group>();
  for (const check of checks) {
    if (!check.comparison) continue;
    const key = JSON.stringify([check.comparison.name, check.checkType, check.timeScale]);
    const group = groups.get(key) ?? { name: check.comparison.name, checks: [] };
    group.checks.push(check);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function bothFilters(a: string | undefined, b: string | undefined): string | undefined {
  return a && b ? `(${a}) AND (${b})` : (a ?? b);
}

/** The grouping columns of both sides, in order. */
function groupingColumnsOf(config: JsonObject): { compared: string[]; reference: string[] } {
  const pairs = Array.isArray(config.grouping_columns) ? config.grouping_columns.filter(isJsonObject) : [];
  return {
    compared: pairs.map((p) => String(p.compared_table_column_name)),
    reference: pairs.map((p) => String(p.reference_table_column_name)),
  };
}

/** The two sensor requests of one comparison: the same sensor ids on both tables. */
export function comparisonRequests(
  checks: readonly PlannedCheck[],
  config: JsonObject,
  referenceSpec: JsonObject | undefined,
  now: Date,
): { compared: TableQueryRequest; reference: TableQueryRequest } {
  const base = tableQueryRequestOf(checks, { now, grouping: false });
  const grouping = groupingColumnsOf(config);
  const compared: TableQueryRequest = {
    ...base,
    ...(grouping.compared.length > 0 ? { grouping: { columns: grouping.compared } } : {}),
  };
  const comparedFilter = bothFilters(base.filter, text(config.compared_table_filter));
  if (comparedFilter) compared.filter = comparedFilter;
  else delete compared.filter;

  const referenceTimestamps = referenceSpec && isJsonObject(referenceSpec.timestamp_columns) ? referenceSpec.timestamp_columns : {};
  const referenceFilter = text(config.reference_table_filter);
  const reference: TableQueryRequest = {
    schema: String(config.reference_table_schema_name),
    table: String(config.reference_table_name),
    sensors: checks.map((check, i) => ({
      ...base.sensors[i],
      ...(check.comparison?.referenceColumn ? { column: check.comparison.referenceColumn } : {}),
    })),
    ...(referenceFilter ? { filter: referenceFilter } : {}),
    ...(referenceSpec ? columnTypesOf(referenceSpec) : {}),
    ...(grouping.reference.length > 0 ? { grouping: { columns: grouping.reference } } : {}),
    ...(base.partitioning
      ? { partitioning: { ...base.partitioning, column: (referenceSpec && partitionColumnOf(referenceSpec)) ?? base.partitioning.column } }
      : {}),
    timestampColumns: {
      ...(typeof referenceTimestamps.event_timestamp_column === 'string' ? { eventTimestampColumn: referenceTimestamps.event_timestamp_column } : {}),
      ...(typeof referenceTimestamps.ingestion_timestamp_column === 'string' ? { ingestionTimestampColumn: referenceTimestamps.ingestion_timestamp_column } : {}),
    },
    now,
  };
  return { compared, reference };
}

interface Measurement {
  readouts: Map<string, SensorReadout[]>;
  failures: Map<string, string>;
  /** The first error that fails the side as a whole (tableFailure.ts). */
  failure?: DqError;
}

/** Runs one side's queries, each in its own read-only transaction, so one failing query spares the others. */
async function measure(dataSource: DataSource, request: TableQueryRequest, side: string, signal: AbortSignal): Promise<Measurement> {
  const plan = planSensorQueries(request);
  const readouts = new Map<string, SensorReadout[]>();
  const failures = new Map<string, string>();
  let failure: DqError | undefined;
  for (const rejected of plan.rejected) failures.set(rejected.id, `${side}: the sensor ${rejected.sensorName} cannot run: ${rejected.reason}`);
  for (const query of plan.queries) {
    signal.throwIfAborted();
    try {
      for (const [id, values] of query.parse(await dataSource.query(query.text, query.values, { signal }))) readouts.set(id, values);
    } catch (error) {
      if (signal.aborted) throw error;
      if (query.parseError) for (const [id, values] of query.parseError(error)) readouts.set(id, values);
      else {
        for (const id of query.sensorIds) failures.set(id, `${side}: ${(error as Error).message}`);
        failure ??= asTableFailure(error);
      }
    }
  }
  return { readouts, failures, ...(failure ? { failure } : {}) };
}

/** What one side's queries read and in which dialect; a side that cannot be read fails with its name. */
async function targetOf(dataSource: DataSource, schema: string, table: string, spec: JsonObject | undefined, side: string): Promise<SqlTarget> {
  try {
    return await dataSource.sqlTarget(schema, table, spec);
  } catch (error) {
    throw new DqError('DATASOURCE_QUERY_FAILED', `${side}: ${(error as Error).message}`);
  }
}

const keyOf = (readout: SensorReadout) => `${readout.timePeriod ?? ''}\u0000${readout.dataGroup}`;

/** The highest severity the check configures (and does not disable): what a data group missing on one side raises. */
function highestConfiguredSeverity(spec: JsonObject): 0 | 1 | 2 | 3 {
  const levels = [['fatal', 3], ['error', 2], ['warning', 1]] as const;
  for (const [name, level] of levels) {
    if (!(name in spec)) continue;
    const rule = spec[name];
    if (isJsonObject(rule) && rule.disabled === true) continue;
    return level;
  }
  return 0;
}

export async function runTableComparisons(checks: readonly PlannedCheck[], context: ComparisonRunContext): Promise<{ rows: CheckResultInput[]; failure?: DqError }> {
  const rows: CheckResultInput[] = [];
  let failure: DqError | undefined;
  const executedAt = context.now.toISOString();
  for (const group of groupsOf(checks)) {
    context.signal.throwIfAborted();
    const [first] = group.checks;
    const { table } = first;
    const period = periodOf(first.checkType, first.timeScale, context.now);
    const started = performance.now();
    const comparisons = isJsonObject(table.spec.table_comparisons) ? table.spec.table_comparisons : {};
    const entry = Object.hasOwn(comparisons, group.name) ? comparisons[group.name] : undefined;
    const config = isJsonObject(entry) ? entry : undefined;

    let compared: Measurement | undefined;
    let reference: Measurement | undefined;
    let groupFailure: string | undefined;
    if (!config) {
      groupFailure = `the table comparison ${JSON.stringify(group.name)} is not defined in table_comparisons`;
    } else {
      const referenceName = `${String(config.reference_table_schema_name)}.${String(config.reference_table_name)}`;
      try {
        const source = await context.resolveReference(String(config.reference_table_connection_name), String(config.reference_table_schema_name), String(config.reference_table_name));
        const requests = comparisonRequests(group.checks, config, source.tableSpec, context.now);
        const comparedSide = `compared table ${table.schema}.${table.table}`;
        const referenceSide = `reference table ${String(config.reference_table_connection_name)}/${referenceName}`;
        // each side in its own source's SQL (the reference may be another provider: a Parquet file, a MariaDB table)
        [compared, reference] = await Promise.all([
          targetOf(context.dataSource, table.schema, table.table, table.spec, comparedSide).then((target) => measure(context.dataSource, { ...requests.compared, ...target }, comparedSide, context.signal)),
          targetOf(source.dataSource, requests.reference.schema, requests.reference.table, source.tableSpec, referenceSide).then((target) =>
            measure(source.dataSource, { ...requests.reference, ...target }, referenceSide, context.signal),
          ),
        ]);
      } catch (error) {
        if (context.signal.aborted) throw error;
        groupFailure = (error as Error).message;
      }
      failure ??= compared?.failure ?? reference?.failure;
    }
    const durationMs = Math.round(performance.now() - started);

    for (const check of group.checks) {
      const id = String(check.checkHash);
      const base = resultBase(check, period.timeGradient, durationMs, executedAt);
      const failure = groupFailure ?? compared?.failures.get(id) ?? reference?.failures.get(id);
      if (failure !== undefined || !compared || !reference) {
        rows.push({ ...base, timePeriod: period.timePeriod, severity: null, errorMessage: failure ?? 'the sensor returned no readout' });
        continue;
      }
      rows.push(...judge(check, compared.readouts.get(id) ?? [], reference.readouts.get(id) ?? [], base, period.timePeriod));
    }
  }
  return { rows, ...(failure ? { failure } : {}) };
}

/** One result per data group (and partition) found on either side. */
function judge(
  check: PlannedCheck,
  comparedReadouts: readonly SensorReadout[],
  referenceReadouts: readonly SensorReadout[],
  base: Omit<CheckResultInput, 'timePeriod' | 'severity'>,
  defaultPeriod: string,
): CheckResultInput[] {
  const counting = COUNT_SENSORS.has(check.catalog.sensor);
  const referenceByKey = new Map(referenceReadouts.map((r) => [keyOf(r), r]));
  const keys = new Map<string, SensorReadout>();
  for (const readout of comparedReadouts) keys.set(keyOf(readout), readout);
  for (const readout of referenceReadouts) if (!keys.has(keyOf(readout))) keys.set(keyOf(readout), readout);
  const comparedByKey = new Map(comparedReadouts.map((r) => [keyOf(r), r]));
  const severities: Record<string, JsonObject | null> = {};
  for (const severity of RULE_SEVERITIES) {
    if (severity in check.spec) severities[severity] = isJsonObject(check.spec[severity]) ? check.spec[severity] : null;
  }

  const rows: CheckResultInput[] = [];
  for (const [key, any] of keys) {
    const timePeriod = any.timePeriod ? new Date(`${any.timePeriod.slice(0, 10)}T00:00:00.000Z`).toISOString() : defaultPeriod;
    const compared = comparedByKey.get(key);
    const reference = referenceByKey.get(key);
    const actual = compared ? compared.actualValue : counting ? 0 : null;
    const expected = reference ? reference.actualValue : counting ? 0 : null;
    if (actual === null || expected === null) {
      // a group (or an aggregate) present on one side only: the tables do not match
      rows.push({ ...base, timePeriod, dataGroup: any.dataGroup, actualValue: actual, expectedValue: expected, severity: highestConfiguredSeverity(check.spec) });
      continue;
    }
    try {
      const evaluation = evaluateCheck({
        ruleName: check.catalog.rule,
        actualValue: actual,
        timePeriod,
        severities,
        referenceValue: expected,
        timeGradient: base.timeGradient,
      });
      rows.push({ ...base, timePeriod, dataGroup: any.dataGroup, actualValue: actual, expectedValue: expected, ...outcomeOf(evaluation) });
    } catch (error) {
      rows.push({ ...base, timePeriod, dataGroup: any.dataGroup, actualValue: actual, expectedValue: expected, severity: null, errorMessage: `rule ${check.catalog.rule}: ${(error as Error).message}` });
    }
  }
  return rows;
}
