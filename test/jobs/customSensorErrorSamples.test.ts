import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataSources } from '../../src/datasource/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import type { ExecutorDependencies } from '../../src/jobs/executors/index.js';
import { collectErrorSamples } from '../../src/jobs/executors/collectErrorSamples.js';
import { runChecks } from '../../src/jobs/executors/runChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import { PythonRuleRunner } from '../../src/pythonrules/index.js';
import { createSourceFixture, type SourceFixture } from '../datasource/sourceFixture.js';
import { call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Error samples of custom sensors: a hand-written postgresql.sample.sql.jinja2 (DQOps's render_error_sampler
 * macro, as dqctl's dialect file implements it) on a seeded PostgreSQL table, every sample listed by hand.
 * The check on `status` accepts only 'paid'; the failing rows are those whose status is not NULL and not 'paid':
 *
 *   id country status  amount
 *   1  PL      paid    10
 *   2  PL      lost    20      failing
 *   3  DE      lost     5      failing
 *   4  DE      unknown 15      failing
 *   5  PL      unknown 30      failing
 *   6  DE      paid    25
 *   7  PL      (null)  40      not sampled: render_null_check leaves NULLs out
 *
 * Ordered by the value, then the row id (the primary key `id`): lost/2, lost/3, unknown/4, unknown/5.
 */
const SEED = `
create schema shop;
create table shop.orders (id int primary key, country text not null, status text, amount numeric not null);
insert into shop.orders values
  (1, 'PL', 'paid', 10), (2, 'PL', 'lost', 20), (3, 'DE', 'lost', 5), (4, 'DE', 'unknown', 15),
  (5, 'PL', 'unknown', 30), (6, 'DE', 'paid', 25), (7, 'PL', null, 40);
`;

const NOT_ACCEPTED_TEMPLATE = `{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}
SELECT
    SUM(CASE WHEN {{ lib.render_target_column('analyzed_table') }} NOT IN ({% for v in parameters.expected_values %}{{ lib.make_text_constant(v) }}{{ ', ' if not loop.last }}{% endfor %}) THEN 1 ELSE 0 END) AS actual_value
    {{- lib.render_data_grouping_projections('analyzed_table') }}
    {{- lib.render_time_dimension_projection('analyzed_table') }}
FROM {{ lib.render_target_table() }} AS analyzed_table
{{- lib.render_where_clause() -}}
{{- lib.render_group_by() -}}
{{- lib.render_order_by() -}}
`;
const NOT_ACCEPTED_SAMPLES = `{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}
{%- call lib.render_error_sampler() -%}
    {{ lib.render_target_column('analyzed_table') }} NOT IN ({% for v in parameters.expected_values %}{{ lib.make_text_constant(v) }}{{ ', ' if not loop.last }}{% endfor %})
{%- endcall -%}
`;
const MAX_AMOUNT_TEMPLATE = `{% import '/dialects/postgresql.sql.jinja2' as lib with context -%}
SELECT MAX({{ lib.render_column('amount') }}) AS actual_value
FROM {{ lib.render_target_table() }} AS analyzed_table
{{- lib.render_where_clause() -}}
`;
const PROVIDER: JsonObject = { type: 'sql_template', supports_grouping: true, supports_partitioned_checks: true };
const NOT_ACCEPTED: JsonObject = { fields: [{ field_name: 'expected_values', data_type: 'string_list', required: true }] };

const table = (columnChecks: JsonObject, extra: JsonObject = {}): JsonObject => ({
  groupings: { default: { level_1: { source: 'column_value', column: 'country' } } },
  monitoring_checks: {
    daily: {
      // a custom sensor without a sample template: a note, no sampler
      custom: { max_amount: { sensor_name: 'table/custom/max_amount', rule_name: 'comparison/max_value', warning: { max_value: 42 } } },
    },
  },
  columns: {
    status: { type_snapshot: { column_type: 'text' }, monitoring_checks: { daily: { accepted_values: { custom_checks: columnChecks } } } },
  },
  ...extra,
});
const NOT_PAID = { sensor_name: 'column/custom/not_accepted_count', rule_name: 'comparison/max_count', parameters: { expected_values: ['paid'] }, error: { max_count: 0 } };

describe('error samples of custom sensors', () => {
  let source: SourceFixture;
  let fx: StoreFixture;
  let dataSources: DataSources;
  let python: PythonRuleRunner;
  let objects: LiveObjects;
  let deps: ExecutorDependencies;
  const caller = { caller: 'test' };

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
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    deps = { store: fx.store, objects, dataSources, pythonRules: python };
    await objects.create('source', 'src', source.spec(), caller);
    await objects.create('sensor', 'column/custom/not_accepted_count', NOT_ACCEPTED, caller, {
      providers: { postgresql: { provider_definition: PROVIDER, sql_template: NOT_ACCEPTED_TEMPLATE, sample_sql_template: NOT_ACCEPTED_SAMPLES } },
    });
    await objects.create('sensor', 'table/custom/max_amount', {}, caller, { providers: { postgresql: { provider_definition: PROVIDER, sql_template: MAX_AMOUNT_TEMPLATE } } });
  });

  const samples = async () =>
    (await fx.store.errorSamples({ connectionName: 'src', schemaName: 'shop', tableName: 'orders' })).map((s) => [s.checkName, s.dataGroup, s.sampleIndex, s.result, s.resultDataType, s.rowId1]);

  it('renders the sample template and stores its rows as samples; a sensor without one gets a note, not an error', async () => {
    await objects.create('table', 'src/shop.orders', table({ not_paid: NOT_PAID }), caller);
    const run = await collectErrorSamples(deps, { check_search_filters: { connection: 'src' } });
    expect(run.result).toEqual({ executed_error_samplers: 1, columns_analyzed: 1, columns_successfully_analyzed: 1, total_error_samplers_failed: 0, total_error_samples_collected: 4 });
    const samplers = run.tables[0].samplers.map((s) => [s.check.checkName, s.samples, s.error?.message, s.note]);
    expect(samplers).toEqual(
      expect.arrayContaining([
        ['not_paid', 4, undefined, undefined],
        ['max_amount', 0, undefined, 'the custom sensor table/custom/max_amount has no postgresql.sample.sql.jinja2: no error samples are collected for its checks'],
      ]),
    );
    expect(await samples()).toEqual([
      ['not_paid', 'all data', 0, 'lost', 'string', '2'],
      ['not_paid', 'all data', 1, 'lost', 'string', '3'],
      ['not_paid', 'all data', 2, 'unknown', 'string', '4'],
      ['not_paid', 'all data', 3, 'unknown', 'string', '5'],
    ]);
    const [row] = await fx.store.errorSamples({ connectionName: 'src', schemaName: 'shop', tableName: 'orders', columnName: 'status' });
    expect(row).toMatchObject({ sensorName: 'column/custom/not_accepted_count', columnName: 'status', checkType: 'monitoring', timeGradient: 'day' });
    // through the results API, as the samples of built-in sensors
    const app = await serverOn(fx.store, { dataSources });
    try {
      const { status, body } = await call(app, { method: 'GET', url: '/api/connections/src/schemas/shop/tables/orders/columns/status/monitoring/daily/errorsamples' });
      expect(status).toBe(200);
      expect(body).toHaveLength(1);
      expect(body[0]).toMatchObject({ checkName: 'not_paid', checkCategory: 'accepted_values', dataGroupsNames: ['all data'] });
      expect(body[0].errorSamplesEntries.map((e: any) => [e.sampleIndex, e.result, e.resultDataType, e.rowId1])).toEqual([
        [0, 'lost', 'string', '2'],
        [1, 'lost', 'string', '3'],
        [2, 'unknown', 'string', '4'],
        [3, 'unknown', 'string', '5'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('keeps at most the limit, per data group with data_scope data_group', async () => {
    await objects.create('table', 'src/shop.orders', table({ not_paid: NOT_PAID }), caller);
    const limited = await collectErrorSamples(deps, { check_search_filters: { connection: 'src' } }, { limit: 3 });
    expect(limited.result.total_error_samples_collected).toBe(3);
    expect((await samples()).map((s) => s[5])).toEqual(['2', '3', '4']);
    await fx.reset();
    await objects.create('source', 'src', source.spec(), caller);
    await objects.create('sensor', 'column/custom/not_accepted_count', NOT_ACCEPTED, caller, {
      providers: { postgresql: { provider_definition: PROVIDER, sql_template: NOT_ACCEPTED_TEMPLATE, sample_sql_template: NOT_ACCEPTED_SAMPLES } },
    });
    await objects.create('table', 'src/shop.orders', table({ not_paid: NOT_PAID }), caller);
    // DE: lost/3, unknown/4; PL: lost/2, unknown/5 — one per group with limit 1: DE lost/3, PL lost/2
    const grouped = await collectErrorSamples(deps, { check_search_filters: { connection: 'src' }, data_scope: 'data_group' }, { limit: 1 });
    expect(grouped.result.total_error_samples_collected).toBe(2);
    expect((await samples()).map((s) => [s[1], s[3], s[5]])).toEqual([
      ['DE', 'lost', '3'],
      ['PL', 'lost', '2'],
    ]);
  });

  it('a sample template that cannot be rendered fails its sampler, with the reason; the others are not affected', async () => {
    await objects.create('sensor', 'column/custom/broken', NOT_ACCEPTED, caller, {
      providers: { postgresql: { provider_definition: PROVIDER, sql_template: NOT_ACCEPTED_TEMPLATE, sample_sql_template: '{% call lib.render_error_sampler() %}x{% endcall' } },
    });
    await objects.create('table', 'src/shop.orders', table({ not_paid: NOT_PAID, broken: { ...NOT_PAID, sensor_name: 'column/custom/broken' } }), caller);
    const run = await collectErrorSamples(deps, { check_search_filters: { connection: 'src' } });
    expect(run.result).toMatchObject({ executed_error_samplers: 2, total_error_samplers_failed: 1, total_error_samples_collected: 4 });
    const broken = run.tables[0].samplers.find((s) => s.check.checkName === 'broken')!;
    expect(broken.error?.message).toMatch(/^the sample template of the custom sensor column\/custom\/broken cannot be rendered: /);
  });

  it('run checks with collect_error_samples samples the failed custom check by its template', async () => {
    // not_paid fails (4 rows not paid > max_count 0); all_known (paid, lost, unknown) passes: 0 rows outside the list
    await objects.create('table', 'src/shop.orders', table({ not_paid: NOT_PAID, all_known: { ...NOT_PAID, parameters: { expected_values: ['paid', 'lost', 'unknown'] } } }), caller);
    await runChecks(deps, { check_search_filters: { connection: 'src', column: 'status' }, collect_error_samples: true }, new AbortController().signal);
    // a run samples by the table's data grouping (country): DE lost/3, unknown/4; PL lost/2, unknown/5
    expect((await samples()).map((s) => [s[0], s[1], s[3], s[5]])).toEqual([
      ['not_paid', 'DE', 'lost', '3'],
      ['not_paid', 'DE', 'unknown', '4'],
      ['not_paid', 'PL', 'lost', '2'],
      ['not_paid', 'PL', 'unknown', '5'],
    ]);
  });
});
