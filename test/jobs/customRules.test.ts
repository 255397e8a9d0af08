import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import type { ExecutorDependencies } from '../../src/jobs/executors/index.js';
import { runChecks } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { PythonRuleRunner } from '../../src/pythonrules/index.js';
import { createSourceFixture, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Custom Python rules judging a seeded PostgreSQL source, with every severity computed by hand below: a custom
 * rule of each mode under a category's custom_checks, a custom rule replacing a built-in one, and rules that
 * raise, hang past a 2 s limit and print (execution errors of their checks only). And a previous_readouts rule
 * (built-in change/change_percent, custom myrules/growth) judging partition d with the partitions before d of
 * the same first run.
 *
 * shop.sales has 4 rows on 2024-05-07, 5 on 2024-05-08, 8 on 2024-05-09; the run is at 2024-05-10 12:00 UTC, so
 * the daily partitioned checks read three partitions and the monitoring checks 17 rows.
 */
const SEED = `
create schema shop;
create table shop.sales (id int primary key, sold_on date not null, amount numeric);
insert into shop.sales select g, date '2024-05-07', 10 from generate_series(1, 4) g;
insert into shop.sales select g, date '2024-05-08', 10 from generate_series(5, 9) g;
insert into shop.sales select g, date '2024-05-09', 10 from generate_series(10, 17) g;
`;
const NOW = new Date('2024-05-10T12:00:00Z');

const AT_LEAST_RULE: JsonObject = { type: 'python', mode: 'current_value', fields: [{ field_name: 'min_value', data_type: 'double' }] };
const AT_LEAST_PY = `
class RuleExecutionResult:
    def __init__(self, passed=None, expected_value=None, lower_bound=None, upper_bound=None):
        self.passed = passed
        self.expected_value = expected_value
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

def evaluate_rule(rule_parameters):
    if not hasattr(rule_parameters, 'actual_value') or not hasattr(rule_parameters.parameters, 'min_value'):
        return RuleExecutionResult()
    assert rule_parameters.previous_readouts == [], 'a current_value rule gets no history'
    low = rule_parameters.parameters.min_value
    return RuleExecutionResult(rule_parameters.actual_value >= low, low, low, None)
`;

const GROWTH_RULE: JsonObject = {
  type: 'python',
  mode: 'previous_readouts',
  time_window: { prediction_time_window: 3, min_periods_with_readouts: 1, historic_data_point_grouping: 'day' },
  fields: [{ field_name: 'min_ratio', data_type: 'double' }],
  parameters: { source: 'dqctl-test' },
};
/** Fails unless the argument object has DQOps's shape; judges the readout against the last earlier one. */
const GROWTH_PY = `
def evaluate_rule(rule_parameters):
    readouts = rule_parameters.previous_readouts
    assert len(readouts) == rule_parameters.time_window.prediction_time_window == 3
    assert rule_parameters.configuration_parameters.source == 'dqctl-test'
    assert rule_parameters.time_period_local_epoch % 86400 == 0
    assert rule_parameters.data_group == 'all data'
    for slot, readout in enumerate(readouts):
        if readout is not None:
            assert readout.back_periods_index == slot - 3, (slot, readout.back_periods_index)
            assert rule_parameters.time_period_local_epoch - readout.local_datetime_epoch == 86400 * (3 - slot)
    last = [r.sensor_readout for r in readouts if r is not None][-1]
    low = last * rule_parameters.parameters.min_ratio
    return {'passed': rule_parameters.actual_value >= low, 'expected_value': last, 'lower_bound': low}
`;

/** Replaces the built-in comparison/min_count, as a rule file at the same path does in DQOps. */
const MIN_COUNT_PY = `
def evaluate_rule(rule_parameters):
    return {'passed': True, 'expected_value': 42.0}
`;

const misbehaving = (body: string) => `import sys, time\ndef evaluate_rule(rule_parameters):\n${body}\n`;

const rowCount = (ruleName: string, thresholds: JsonObject = { error: {} }): JsonObject => ({ sensor_name: 'table/volume/row_count', rule_name: ruleName, ...thresholds });

const TABLE: JsonObject = {
  timestamp_columns: { partition_by_column: 'sold_on' },
  monitoring_checks: {
    daily: {
      volume: { daily_row_count: { error: { min_count: 100 } } },
      custom: {
        raises: rowCount('myrules/raises'),
        hangs: rowCount('myrules/hangs'),
        prints: rowCount('myrules/prints'),
      },
    },
  },
  partitioned_checks: {
    daily: {
      volume: {
        daily_partition_row_count_change: { error: { max_percent: 30 } },
        custom_checks: {
          at_least: rowCount('myrules/at_least', { warning: { min_value: 5 }, error: { min_value: 4 } }),
          growth: rowCount('myrules/growth', { error: { min_ratio: 1.5 } }),
        },
      },
    },
  },
};

describe('custom Python rules in a check run', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let python: PythonRuleRunner;
  let deps: ExecutorDependencies;

  beforeAll(async () => {
    source = await createSourceFixture(SEED);
    fx = await STORE_ENGINES[0].setup();
  }, 60_000);
  afterAll(async () => {
    await python?.close();
    await dataSources?.close();
    await fx?.dispose();
    await source?.dispose();
  });
  beforeEach(async () => {
    await python?.close();
    await dataSources?.close();
    await fx.reset();
    dataSources = new DataSources({ env: source.env });
    python = new PythonRuleRunner({ callTimeoutMs: 2000 });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources, pythonRules: python };
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    const rule = (name: string, spec: JsonObject, module: string) => objects.create('rule', name, spec, { caller: 'test' }, { python_module: module });
    await rule('myrules/at_least', AT_LEAST_RULE, AT_LEAST_PY);
    await rule('myrules/growth', GROWTH_RULE, GROWTH_PY);
    await rule('comparison/min_count', { type: 'python', mode: 'current_value' }, MIN_COUNT_PY);
    await rule('myrules/raises', { type: 'python', mode: 'current_value' }, misbehaving("    raise ValueError('the threshold table is gone')"));
    await rule('myrules/hangs', { type: 'python', mode: 'current_value' }, misbehaving('    time.sleep(30)'));
    await rule('myrules/prints', { type: 'python', mode: 'current_value' }, misbehaving("    print('debugging', file=sys.stderr)\n    return {'passed': True}"));
    await objects.create('table', 'src/shop.sales', TABLE, { caller: 'test' });
  });

  const rowsOf = async (checkName: string) =>
    (await fx.store.checkResults({ connectionName: 'src', schemaName: 'shop', tableName: 'sales', checkName, read: 'readouts' }))
      .map((r) => ({ period: r.timePeriod.slice(0, 10), actual: r.actualValue, severity: r.severity, expected: r.expectedValue, error: r.errorMessage }))
      .sort((a, b) => a.period.localeCompare(b.period));

  it('judges each readout with the custom rule at each severity, sees earlier partitions of the same run, and makes execution errors of misbehaving rules', async () => {
    const started = Date.now();
    const run = await runChecks(deps, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: NOW });
    // the hanging rule is stopped after its 2 s limit, not after its 30 s sleep
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.tables).toEqual([{ table: 'src/shop.sales', status: 'ok', checks: 7 }]);

    // at_least (current_value): warning min 5, error min 4. 4 rows fail the warning only (1); 5 and 8 pass (0).
    // The expected value is warning's.
    expect(await rowsOf('at_least')).toEqual([
      { period: '2024-05-07', actual: 4, severity: 1, expected: 5, error: null },
      { period: '2024-05-08', actual: 5, severity: 0, expected: 5, error: null },
      { period: '2024-05-09', actual: 8, severity: 0, expected: 5, error: null },
    ]);

    // growth (previous_readouts, this run's earlier partitions): 05-07 has no history (a readout, no verdict);
    // 05-08: 5 < 4 × 1.5 = 6 → error (2), expected 4; 05-09: 8 ≥ 5 × 1.5 = 7.5 → valid, expected 5
    expect(await rowsOf('growth')).toEqual([
      { period: '2024-05-07', actual: 4, severity: 0, expected: null, error: null },
      { period: '2024-05-08', actual: 5, severity: 2, expected: 4, error: null },
      { period: '2024-05-09', actual: 8, severity: 0, expected: 5, error: null },
    ]);
    const growthResults = await fx.store.checkResults({ connectionName: 'src', schemaName: 'shop', tableName: 'sales', checkName: 'growth' });
    expect(growthResults.map((r) => r.timePeriod.slice(0, 10)).sort()).toEqual(['2024-05-08', '2024-05-09']);

    // the built-in daily_partition_row_count_change (change/change_percent, max 30 %) on a first run:
    // 05-08: 4 → 5 is +25 % (valid); 05-09: 5 → 8 is +60 % (error)
    const change = await fx.store.checkResults({ connectionName: 'src', schemaName: 'shop', tableName: 'sales', checkName: 'daily_partition_row_count_change' });
    expect(change.map((r) => [r.timePeriod.slice(0, 10), r.actualValue, r.severity, r.expectedValue]).sort()).toEqual([
      ['2024-05-08', 5, 0, 4],
      ['2024-05-09', 8, 2, 5],
    ]);

    // comparison/min_count replaced by the custom file: 17 < 100 would fail the built-in rule; the custom one passes with 42
    expect(await rowsOf('daily_row_count')).toEqual([{ period: '2024-05-10', actual: 17, severity: 0, expected: 42, error: null }]);

    // the misbehaving rules: execution errors of their checks only
    const errors = await fx.store.checkResults({ connectionName: 'src', schemaName: 'shop', tableName: 'sales', executionErrors: 'only' });
    const byCheck = Object.fromEntries(errors.map((r) => [r.checkName, r.errorMessage]));
    expect(Object.keys(byCheck).sort()).toEqual(['hangs', 'prints', 'raises']);
    expect(byCheck.raises).toMatch(/^rule myrules\/raises \(error\): ValueError: the threshold table is gone\n {2}File "rules\/myrules\/raises\.py", line 3/);
    expect(byCheck.hangs).toBe('rule myrules/hangs (error): the rule did not answer within 2 s (DQCTL_RULE_TIMEOUT); its worker was stopped');
    expect(byCheck.prints).toBe('rule myrules/prints (error): RuntimeError: the rule printed (a rule must not write to stdout or stderr): debugging');

    // valid: at_least ×2, growth, change, daily_row_count; warning: at_least; errors: growth, change; 3 execution errors
    expect(run.result).toEqual({ highest_severity: 'error', executed_checks: 7, valid_results: 5, warnings: 1, errors: 2, fatals: 0, execution_errors: 3 });
  }, 60_000);

  it('reloads a rule whose .py changed, on the same worker', async () => {
    const filters = { check_search_filters: { connection: 'src', checkName: 'at_least' } };
    await runChecks(deps, filters, new AbortController().signal, { now: NOW });
    const workers = python.started;
    // now the rule passes nothing
    await deps.objects.upsert('rule', 'myrules/at_least', { caller: 'test' }, (current) => ({
      spec: current!.spec,
      attachments: { python_module: AT_LEAST_PY.replace('rule_parameters.actual_value >= low', 'False') },
    }));
    const run = await runChecks(deps, filters, new AbortController().signal, { now: new Date('2024-05-11T12:00:00Z') });
    expect(python.started).toBe(workers);
    expect(run.result).toMatchObject({ valid_results: 0, warnings: 0, errors: 3 });
  }, 60_000);
});
