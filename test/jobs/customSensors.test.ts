import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { planSensorQueries, type SensorRequest, type TableQueryRequest } from '../../src/datasource/sensors/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { loadCheckRules } from '../../src/jobs/checkRun/checkRules.js';
import { renderCustomSensors } from '../../src/jobs/checkRun/renderCustomSensors.js';
import type { ExecutorDependencies } from '../../src/jobs/executors/index.js';
import { runChecks } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { PythonRuleRunner } from '../../src/pythonrules/index.js';
import { createSourceFixture, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Custom SQL sensors, custom check definitions and a dictionary on a seeded PostgreSQL source, every readout
 * and severity computed by hand below. The table is grouped by country; the run is at 2024-05-10 12:00 UTC, so
 * the daily partitioned checks read the partitions of 05-08 and 05-09 and the monitoring checks every row.
 *
 *   id country status  amount ordered_on
 *   1  PL      paid    10     05-08
 *   2  PL      paid    20     05-08
 *   3  DE      paid     5     05-08
 *   4  DE      lost    15     05-08
 *   5  PL      paid    30     05-09
 *   6  PL      unknown 40     05-09
 *   7  DE      paid    25     05-09
 *   8  DE      paid    35     05-09
 *   9  DE      paid    45     05-09
 */
const SEED = `
create schema shop;
create table shop.orders (id int primary key, country text not null, status text not null, amount numeric not null, ordered_on date not null);
insert into shop.orders values
  (1, 'PL', 'paid', 10, '2024-05-08'), (2, 'PL', 'paid', 20, '2024-05-08'), (3, 'DE', 'paid', 5, '2024-05-08'),
  (4, 'DE', 'lost', 15, '2024-05-08'), (5, 'PL', 'paid', 30, '2024-05-09'), (6, 'PL', 'unknown', 40, '2024-05-09'),
  (7, 'DE', 'paid', 25, '2024-05-09'), (8, 'DE', 'paid', 35, '2024-05-09'), (9, 'DE', 'paid', 45, '2024-05-09');
`;
const NOW = new Date('2024-05-10T12:00:00Z');

/** Counts the values of the column found in expected_values (quoted by the dialect), and the rows as the expected value. */
const ACCEPTED_COUNT_TEMPLATE = `{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}
SELECT
    SUM(CASE WHEN {{ lib.render_target_column('analyzed_table') }} IN ({% for value in parameters.expected_values %}{{ lib.make_text_constant(value) }}{{ ', ' if not loop.last }}{% endfor %}) THEN 1 ELSE 0 END) AS actual_value,
    COUNT(*) AS expected_value
    {{- lib.render_data_grouping_projections('analyzed_table') }}
    {{- lib.render_time_dimension_projection('analyzed_table') }}
FROM {{ lib.render_target_table() }} AS analyzed_table
{{- lib.render_where_clause() -}}
{{- lib.render_group_by() -}}
{{- lib.render_order_by() -}}
`;
const MAX_AMOUNT_TEMPLATE = `{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}
SELECT
    MAX({{ lib.render_column('amount') }}) AS actual_value
    {{- lib.render_data_grouping_projections('analyzed_table') }}
    {{- lib.render_time_dimension_projection('analyzed_table') }}
FROM {{ lib.render_target_table() }} AS analyzed_table
{{- lib.render_where_clause() -}}
{{- lib.render_group_by() -}}
{{- lib.render_order_by() -}}
`;
const provider = (extra: JsonObject = {}): JsonObject => ({ type: 'sql_template', supports_grouping: true, supports_partitioned_checks: true, ...extra });
const ACCEPTED_COUNT: JsonObject = { fields: [{ field_name: 'expected_values', data_type: 'string_list', required: true }], default_value: 0 };

const TABLE: JsonObject = {
  timestamp_columns: { partition_by_column: 'ordered_on' },
  groupings: { default: { level_1: { source: 'column_value', column: 'country' } } },
  monitoring_checks: {
    daily: {
      volume: { daily_row_count: { error: { min_count: 1 } } },
      // runs the check definition checks/table/monitoring/daily/custom/max_amount.dqocheck.yaml
      custom: { max_amount: { warning: { max_value: 42 } } },
    },
  },
  partitioned_checks: {
    daily: {
      volume: { daily_partition_row_count: { error: { min_count: 1 } } },
    },
  },
  columns: {
    status: {
      type_snapshot: { column_type: 'text' },
      monitoring_checks: {
        daily: {
          accepted_values: {
            custom_checks: {
              // the same sensor with the same check filter: one merged query of its own
              big_paid: { sensor_name: 'column/custom/accepted_count', rule_name: 'comparison/min_count', parameters: { expected_values: ['paid'], filter: '{alias}.amount > 20' }, error: { min_count: 2 } },
              // no row has amount > 1000: the query returns no row and the definition's default_value (0) is the readout
              none_huge: { sensor_name: 'column/custom/accepted_count', rule_name: 'comparison/min_count', parameters: { expected_values: ['paid'], filter: '{alias}.amount > 1000' }, error: { min_count: 2 } },
              big_any: { sensor_name: 'column/custom/accepted_count', rule_name: 'comparison/min_count', parameters: { expected_values: ['paid', 'lost', 'unknown'], filter: '{alias}.amount > 20' }, error: { min_count: 2 } },
            },
          },
        },
      },
      partitioned_checks: {
        daily: {
          accepted_values: {
            // runs checks/column/partitioned/daily/accepted_values/paid_status_count.dqocheck.yaml; the list comes from a dictionary
            custom_checks: { paid_status_count: { parameters: { expected_values: ['${dictionary://statuses.csv}'] }, error: { min_count: 2 } } },
          },
        },
      },
    },
  },
};

describe('custom sensors, check definitions and dictionaries in a check run', () => {
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
    python = new PythonRuleRunner({ callTimeoutMs: 5000 });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources, pythonRules: python };
    const caller = { caller: 'test' };
    await objects.create('source', 'src', source.spec(), caller);
    const sensor = (name: string, spec: JsonObject, providerSpec: JsonObject, template: string) =>
      objects.create('sensor', name, spec, caller, { providers: { postgresql: { provider_definition: providerSpec, sql_template: template } } });
    await sensor('column/custom/accepted_count', ACCEPTED_COUNT, provider(), ACCEPTED_COUNT_TEMPLATE);
    await sensor('table/custom/max_amount', {}, provider({ disable_merging_queries: true }), MAX_AMOUNT_TEMPLATE);
    await sensor('table/custom/escapes', {}, provider(), "SELECT\n    {{ ''.__class__.__mro__[1].__subclasses__() }} AS actual_value\n");
    await objects.create('check', 'column/partitioned/daily/accepted_values/paid_status_count', { sensor_name: 'column/custom/accepted_count', rule_name: 'comparison/min_count' }, caller);
    await objects.create('check', 'table/monitoring/daily/custom/max_amount', { sensor_name: 'table/custom/max_amount', rule_name: 'comparison/max_value', default_severity: 'warning' }, caller);
    await objects.create('dictionary', 'statuses.csv', {}, caller, { file_content: 'paid\nshipped,paid\n\n' });
    await objects.create('table', 'src/shop.orders', TABLE, caller);
  });

  const rowsOf = async (checkName: string) =>
    (await fx.store.checkResults({ connectionName: 'src', schemaName: 'shop', tableName: 'orders', checkName, read: 'readouts' }))
      .map((r) => ({ period: r.timePeriod.slice(0, 10), group: r.dataGroup, actual: r.actualValue, severity: r.severity, error: r.errorMessage }))
      .sort((a, b) => a.period.localeCompare(b.period) || a.group.localeCompare(b.group));

  it('renders the templates with the dialect macros (grouping, partitions, quoted constants) and judges their readouts', async () => {
    const run = await runChecks(deps, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: NOW });

    // paid_status_count (check definition + dictionary: paid, shipped), partitioned by day and grouped by country, min 2:
    // 05-08 DE 1 of 2 (error), PL 2 of 2 (valid); 05-09 DE 3 of 3 (valid), PL 1 of 2 (error)
    expect(await rowsOf('paid_status_count')).toEqual([
      { period: '2024-05-08', group: 'DE', actual: 1, severity: 2, error: null },
      { period: '2024-05-08', group: 'PL', actual: 2, severity: 0, error: null },
      { period: '2024-05-09', group: 'DE', actual: 3, severity: 0, error: null },
      { period: '2024-05-09', group: 'PL', actual: 1, severity: 2, error: null },
    ]);
    // max_amount (the check definition of the root custom map; disable_merging_queries): PL 40 ≤ 42, DE 45 > 42 (warning)
    expect(await rowsOf('max_amount')).toEqual([
      { period: '2024-05-10', group: 'DE', actual: 45, severity: 1, error: null },
      { period: '2024-05-10', group: 'PL', actual: 40, severity: 0, error: null },
    ]);
    // amount > 20: PL rows 5 (paid) and 6 (unknown), DE rows 7, 8, 9 (paid); min 2
    expect(await rowsOf('big_paid')).toEqual([
      { period: '2024-05-10', group: 'DE', actual: 3, severity: 0, error: null },
      { period: '2024-05-10', group: 'PL', actual: 1, severity: 2, error: null },
    ]);
    expect(await rowsOf('big_any')).toEqual([
      { period: '2024-05-10', group: 'DE', actual: 3, severity: 0, error: null },
      { period: '2024-05-10', group: 'PL', actual: 2, severity: 0, error: null },
    ]);
    expect(await rowsOf('none_huge')).toEqual([{ period: '2024-05-10', group: 'all data', actual: 0, severity: 2, error: null }]);
    expect(run.result).toMatchObject({ execution_errors: 0, warnings: 1, errors: 4 });
  }, 60_000);

  it('merges as DQOps merges: a template reading the scan rows joins the scan, equal filtered ones merge, disable_merging_queries stays apart', async () => {
    const rules = await loadCheckRules(deps.objects, python);
    const sensors: SensorRequest[] = [
      { id: 'rows', sensorName: 'table/volume/row_count', parameters: {} },
      { id: 'accepted', sensorName: 'column/custom/accepted_count', column: 'status', parameters: { expected_values: ["it's", 'paid'] } },
      { id: 'big_paid', sensorName: 'column/custom/accepted_count', column: 'status', parameters: { expected_values: ['paid'], filter: '{alias}.amount > 20' } },
      { id: 'big_any', sensorName: 'column/custom/accepted_count', column: 'status', parameters: { expected_values: ['paid', 'lost'], filter: '{alias}.amount > 20' } },
      { id: 'max', sensorName: 'table/custom/max_amount', parameters: {} },
      { id: 'bad', sensorName: 'column/custom/accepted_count', column: 'status', parameters: { expected_values: [1] } },
      { id: 'escapes', sensorName: 'table/custom/escapes', parameters: {} },
    ];
    const request: TableQueryRequest = { schema: 'shop', table: 'orders', sensors, grouping: { levels: [{ column: 'country' }] }, now: NOW };
    const rendered = await renderCustomSensors(request, rules, TABLE);
    expect(Object.fromEntries(rendered.failures)).toEqual({
      bad: 'the parameter expected_values of the sensor column/custom/accepted_count must be a list of texts, not [1]',
      // templates render in Jinja2's sandbox: Python's internals are out of reach
      escapes: expect.stringMatching(/^the template of the custom sensor table\/custom\/escapes cannot be rendered: jinja2\.exceptions\.SecurityError: access to attribute '__class__' of 'str' object is unsafe/),
    });
    const accepted = rendered.request.sensors.find((s) => s.id === 'accepted')!.template!.sql;
    expect(accepted).toContain(`IN (E'it''s', E'paid')`);
    expect(accepted).toContain(`analyzed_table."country" AS grouping_level_1`);
    expect(accepted).toContain(`GROUP BY grouping_level_1`);
    const plan = planSensorQueries(rendered.request);
    expect(plan.rejected).toEqual([]);
    expect(plan.queries.map((q) => [q.kind, [...q.sensorIds].sort()])).toEqual([
      ['scan', ['accepted', 'rows']],
      ['custom', ['max']],
      ['custom', ['big_any', 'big_paid']],
    ]);
    // the scan and the merged queries run and give what the separate queries give
    const results = new Map<string, unknown>();
    for (const query of plan.queries) for (const [id, values] of query.parse(await source.admin(query.text, query.values))) results.set(id, values);
    expect(results.get('accepted')).toEqual([
      { dataGroup: 'DE', actualValue: 4, expectedValue: 5 },
      { dataGroup: 'PL', actualValue: 3, expectedValue: 4 },
    ]);
    expect(results.get('big_any')).toEqual([
      { dataGroup: 'DE', actualValue: 3, expectedValue: 3 },
      { dataGroup: 'PL', actualValue: 1, expectedValue: 2 },
    ]);

    // partitioned: the template's window and periods are the scan's, so it joins the partitioned scan too
    const partitioned: TableQueryRequest = { ...request, sensors: sensors.slice(0, 2), partitioning: { column: 'ordered_on', timeScale: 'daily' as const } };
    const inPartitions = await renderCustomSensors(partitioned, rules, TABLE);
    const partitionedSql = inPartitions.request.sensors[1].template!.sql;
    expect(partitionedSql).toContain(`CAST(DATE_TRUNC('day', analyzed_table."ordered_on") AS DATE) AS time_period`);
    expect(partitionedSql).toContain(`analyzed_table."ordered_on" >= CAST(CAST(E'2024-05-10T12:00:00.000Z' AS TIMESTAMP WITH TIME ZONE) AS DATE) - 7`);
    const partitionedPlan = planSensorQueries(inPartitions.request);
    expect(partitionedPlan.queries.map((q) => [q.kind, [...q.sensorIds].sort()])).toEqual([['scan', ['accepted', 'rows']]]);
    const [scan] = partitionedPlan.queries;
    const readouts = scan.parse(await source.admin(scan.text, scan.values));
    // DE: 05-08 rows 3 (paid), 4 (lost); 05-09 rows 7, 8, 9. PL: 05-08 rows 1, 2; 05-09 rows 5 (paid), 6 (unknown)
    expect(readouts.get('accepted')).toEqual([
      { dataGroup: 'DE', timePeriod: '2024-05-08', actualValue: 1, expectedValue: 2 },
      { dataGroup: 'DE', timePeriod: '2024-05-09', actualValue: 3, expectedValue: 3 },
      { dataGroup: 'PL', timePeriod: '2024-05-08', actualValue: 2, expectedValue: 2 },
      { dataGroup: 'PL', timePeriod: '2024-05-09', actualValue: 1, expectedValue: 2 },
    ]);
  }, 60_000);
});
