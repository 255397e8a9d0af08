/**
 * The request and response shapes DQOps's generated Python client sends and parses, through app.inject (the
 * client itself runs in test/scripts/dqopsClient.test.ts when DQOps's repository is mirrored on the machine):
 * job templates sent back as they were served, the operation groups beyond the spec that fit dqctl, and the
 * clear 501 of the groups that do not.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const ORDERS = '/api/connections/shop_oltp/schemas/public/tables/orders';
const ERROR_BODY_KEYS = ['code', 'error', 'message', 'path', 'status', 'timestamp'];

describe("DQOps's client shapes", () => {
  let fx: StoreFixture;
  let app: FastifyInstance;

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('create_connection_basic accepts the connection model it served, job templates with hierarchy ids included', async () => {
    const served = (await call(app, { method: 'GET', url: '/api/connections/shop_oltp/basic' })).body;
    // what the client sends back: the served model, with the fields its models add
    const body = {
      ...served,
      connection_name: 'copy_of_shop',
      connection_hash: 123,
      run_checks_job_template: { ...served.run_checks_job_template, checkHierarchyIdsModels: [] },
      collect_statistics_job_template: { ...served.collect_statistics_job_template, collectorsHierarchyIdsModels: [], enabledCronScheduleExpression: '0 1 * * *' },
      data_clean_job_template: { ...served.data_clean_job_template, incidentStatusName: 'open' },
    };
    const created = await call(app, { method: 'POST', url: '/api/connections/copy_of_shop/basic', payload: body });
    expect(created.status).toBe(201);
    expect((await call(app, { method: 'GET', url: '/api/connections/copy_of_shop' })).status).toBe(200);
    // a misspelled filter key is still refused
    const typo = await call(app, { method: 'POST', url: '/api/connections/copy_two/basic', payload: { ...body, connection_name: 'copy_two', run_checks_job_template: { conection: 'x' } } });
    expect(typo.status).toBe(400);
  });

  it('collect_statistics_on_table accepts collectorsHierarchyIdsModels and target (the client sends them)', async () => {
    const answer = await call(app, {
      method: 'POST',
      url: '/api/jobs/collectstatistics/table?wait=false',
      payload: { connection: 'shop_oltp', fullTableName: 'public.orders', enabled: true, collectorsHierarchyIdsModels: [], target: 'column' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.jobId.jobId).toBeGreaterThan(0);
    const jobs = (await call(app, { method: 'GET', url: '/api/jobs/jobs' })).body;
    expect(jobs.jobs.map((j: any) => j.jobId.jobId)).toContain(answer.body.jobId.jobId);
    expect(jobs.lastSequenceNumber).toBe(answer.body.jobId.jobId);
    const since = (await call(app, { method: 'GET', url: `/api/jobs/jobchangessince/${answer.body.jobId.jobId - 1}` })).body;
    expect(since.jobChanges).toEqual([expect.objectContaining({ changeSequence: answer.body.jobId.jobId, updatedModel: expect.objectContaining({ jobType: 'collect_statistics' }) })]);
    // let the collection end, so that what the later tests read does not depend on how fast it runs
    const ended = (await call(app, { method: 'GET', url: `/api/jobs/jobs/${answer.body.jobId.jobId}/wait?waitTimeout=120` })).body;
    expect(['finished', 'failed']).toContain(ended.status);
  });

  it('answers the instance operations: is_healthy, time zones, scheduler status, labels', async () => {
    const healthy = await call(app, { method: 'GET', url: '/api/ishealthy' });
    expect([healthy.status, healthy.body]).toEqual([200, 'OK']);
    const zones = (await call(app, { method: 'GET', url: '/api/timezones' })).body;
    expect(zones).toContain('Europe/Warsaw');
    expect(zones).toContain('UTC');
    expect((await call(app, { method: 'GET', url: '/api/jobs/scheduler/isrunning' })).body).toBe(false);
    const start = await call(app, { method: 'POST', url: '/api/jobs/scheduler/status/start' });
    expect(start.status).toBe(501);
    expect(start.body.message).toContain('--no-schedules');
    // examples/shop: shop_oltp has the labels oltp, production, team:checkout
    const connections = (await call(app, { method: 'GET', url: '/api/labels/connections' })).body;
    expect(connections).toEqual(expect.arrayContaining([{ label: 'oltp', labels_count: 1, nested_labels_count: 0 }]));
    const prefixed = (await call(app, { method: 'GET', url: '/api/labels/connections?prefix=team' })).body;
    expect(prefixed.every((l: any) => l.label.startsWith('team'))).toBe(true);
    expect(Array.isArray((await call(app, { method: 'GET', url: '/api/labels/columns' })).body)).toBe(true);
  });

  it('serves the default schedules object (settings/defaultschedules) and refuses a bad group', async () => {
    expect((await call(app, { method: 'GET', url: '/api/defaults/defaultschedule/monitoring_daily' })).body).toEqual({});
    const put = await call(app, { method: 'PUT', url: '/api/defaults/defaultschedule/monitoring_daily', payload: { cron_expression: '15 4 * * *' } });
    expect(put.status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/defaults/defaultschedule/monitoring_daily' })).body).toEqual({ cron_expression: '15 4 * * *' });
    expect((await fx.store.listObjects({ kind: 'default_schedules' })).map((o) => [o.name, o.spec])).toEqual([['default', { monitoring_daily: { cron_expression: '15 4 * * *' } }]]);
    expect((await call(app, { method: 'GET', url: '/api/defaults/defaultschedule/hourly' })).status).toBe(400);
  });

  it('manages the data groupings of a table', async () => {
    const url = `${ORDERS}/groupings`;
    const spec = { level_1: { source: 'column_value', column: 'order_status' } };
    expect((await call(app, { method: 'POST', url, payload: { data_grouping_configuration_name: 'by_status', spec } })).status).toBe(201);
    expect((await call(app, { method: 'POST', url, payload: { data_grouping_configuration_name: 'by_status', spec } })).status).toBe(409);
    expect((await call(app, { method: 'PATCH', url: `${url}/setdefault?dataGroupingConfigurationName=by_status` })).status).toBe(204);
    expect((await call(app, { method: 'GET', url })).body).toEqual([expect.objectContaining({ data_grouping_configuration_name: 'by_status', default_data_grouping_configuration: true })]);
    expect((await call(app, { method: 'GET', url: `${url}/by_status` })).body).toMatchObject({ data_grouping_configuration_name: 'by_status', spec });
    const renamed = await call(app, { method: 'PUT', url: `${url}/by_status`, payload: { data_grouping_configuration_name: 'status', spec } });
    expect(renamed.status).toBe(204);
    const table = (await call(app, { method: 'GET', url: ORDERS })).body.spec;
    expect(table.default_grouping_name).toBe('status');
    expect((await call(app, { method: 'DELETE', url: `${url}/status` })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: `${url}/status` })).status).toBe(404);
    const bad = await call(app, { method: 'POST', url, payload: { data_grouping_configuration_name: 'x', spec: { level_1: { source: 'sometimes' } } } });
    expect(bad.status).toBe(400);
  });

  it('serves and replaces the labels and comments of a column, its partitioning and schedule overrides', async () => {
    const column = `${ORDERS}/columns/order_status`;
    expect((await call(app, { method: 'PUT', url: `${column}/labels`, payload: ['pii', 'status'] })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: `${column}/labels` })).body).toEqual(['pii', 'status']);
    expect((await call(app, { method: 'GET', url: `${column}/comments` })).body).toEqual([]);
    expect((await call(app, { method: 'GET', url: `${ORDERS}/columns/nope/labels` })).status).toBe(404);
    const partitioning = (await call(app, { method: 'GET', url: `${ORDERS}/partitioning` })).body;
    expect(partitioning).toMatchObject({ connection_name: 'shop_oltp', target: { schema_name: 'public', table_name: 'orders' } });
    expect((await call(app, { method: 'PUT', url: `${ORDERS}/schedulesoverride/profiling`, payload: { cron_expression: '0 2 * * 6' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: `${ORDERS}/schedulesoverride/profiling` })).body).toEqual({ cron_expression: '0 2 * * 6' });
  });

  it('serves check results, sensor readouts, the table status and the issue histogram from stored results', async () => {
    const executedAt = new Date().toISOString();
    const base = { connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders', checkType: 'monitoring' as const, timeGradient: 'day', checkCategory: 'volume', checkName: 'daily_row_count', checkHash: 7, timePeriod: `${executedAt.slice(0, 10)}T00:00:00.000Z`, executedAt };
    await fx.store.insertCheckResults([{ ...base, actualValue: 0, expectedValue: 1, severity: 2 }]);
    const results = (await call(app, { method: 'GET', url: `${ORDERS}/monitoring/daily/results` })).body;
    expect(results).toEqual([expect.objectContaining({ checkName: 'daily_row_count', checkResultEntries: [expect.objectContaining({ actualValue: 0, expectedValue: 1, severity: 2 })] })]);
    const readouts = (await call(app, { method: 'GET', url: `${ORDERS}/monitoring/daily/readouts` })).body;
    expect(readouts[0].sensorReadoutEntries[0]).toMatchObject({ actualValue: 0, checkName: 'daily_row_count' });
    expect(readouts[0].sensorReadoutEntries[0]).not.toHaveProperty('severity');
    const status = (await call(app, { method: 'GET', url: `${ORDERS}/status` })).body;
    expect(status).toMatchObject({ current_severity: 'error', errors: 1, table_exist: true });
    const histogram = (await call(app, { method: 'GET', url: `${ORDERS}/histogram` })).body;
    expect(histogram.days[executedAt.slice(0, 10)]).toEqual({ warnings: 0, errors: 1, fatals: 0, totalCount: 1 });
    expect(histogram).toMatchObject({ checks: { daily_row_count: 1 }, hasDailyMonitoringIssues: true, hasProfilingIssues: false });
    // a table without results: no severity at all rather than null (the client parses it only as a severity)
    const quiet = (await call(app, { method: 'GET', url: '/api/connections/shop_oltp/schemas/public/tables/payments/status' })).body;
    expect(quiet).not.toHaveProperty('current_severity');
  });

  it('gives the basic and filtered check models and the table check templates', async () => {
    const basic = (await call(app, { method: 'GET', url: `${ORDERS}/monitoring/daily/model/basic` })).body;
    expect(basic.checks).toEqual(expect.arrayContaining([expect.objectContaining({ check_category: 'volume', check_name: 'daily_row_count' })]));
    const one = (await call(app, { method: 'GET', url: `${ORDERS}/monitoring/daily/model/filter/volume/daily_row_count` })).body;
    expect(one.categories.map((c: any) => [c.category, c.checks.map((k: any) => k.check_name)])).toEqual([['volume', ['daily_row_count']]]);
    const templates = (await call(app, { method: 'GET', url: `${ORDERS}/bulkenable/profiling?checkTarget=table&checkCategory=volume` })).body;
    expect(templates.length).toBeGreaterThan(0);
    expect(templates.every((t: any) => t.check_target === 'table' && t.check_category === 'volume' && !('check_time_scale' in t.check_container_type))).toBe(true);
  });

  it('serves table comparison configurations and comparisons with their compare checks, both ways', async () => {
    const FACT = '/api/connections/analytics_dwh/schemas/mart/tables/fact_orders';
    const configs = (await call(app, { method: 'GET', url: `${FACT}/tablecomparisonconfigurations` })).body;
    expect(configs).toEqual([
      expect.objectContaining({
        table_comparison_configuration_name: 'matches_shop_orders',
        compared_table: { schema_name: 'mart', table_name: 'fact_orders' },
        reference_connection: 'shop_oltp',
        reference_table: { schema_name: 'public', table_name: 'orders' },
      }),
    ]);
    // examples/shop: daily_row_count_match warning 0 / error 2, and gross_amount's daily_sum_match against order_total
    const daily = (await call(app, { method: 'GET', url: `${FACT}/tablecomparisons/matches_shop_orders/monitoring/daily` })).body;
    expect(daily.compare_row_count).toEqual({ warning_difference_percent: 0, error_difference_percent: 2 });
    expect(daily.columns.find((c: any) => c.compared_column_name === 'gross_amount')).toEqual({
      compared_column_name: 'gross_amount',
      reference_column_name: 'order_total',
      compare_sum: { warning_difference_percent: 0, error_difference_percent: 2 },
    });
    // a new comparison for profiling: configuration and checks written into the table spec
    const created = await call(app, {
      method: 'POST',
      url: `${FACT}/tablecomparisons/profiling`,
      payload: {
        table_comparison_configuration_name: 'vs_orders',
        reference_connection: 'shop_oltp',
        reference_table: { schema_name: 'public', table_name: 'orders' },
        compare_row_count: { error_difference_percent: 1.5 },
        columns: [{ compared_column_name: 'gross_amount', reference_column_name: 'order_total', compare_max: { fatal_difference_percent: 10 } }],
      },
    });
    expect(created.status).toBe(201);
    const spec = (await call(app, { method: 'GET', url: FACT })).body.spec;
    expect(spec.table_comparisons.vs_orders).toEqual({ reference_table_connection_name: 'shop_oltp', reference_table_schema_name: 'public', reference_table_name: 'orders' });
    expect(spec.profiling_checks.comparisons.vs_orders).toEqual({ profile_row_count_match: { error: { max_diff_percent: 1.5 } } });
    expect(spec.columns.gross_amount.profiling_checks.comparisons.vs_orders).toEqual({ reference_column: 'order_total', profile_max_match: { fatal: { max_diff_percent: 10 } } });
    expect((await call(app, { method: 'POST', url: `${FACT}/tablecomparisons/profiling`, payload: { table_comparison_configuration_name: 'vs_orders' } })).status).toBe(409);
    // a compare left out of the model written back removes its check; deleting the configuration removes the rest
    const read = (await call(app, { method: 'GET', url: `${FACT}/tablecomparisons/vs_orders/profiling` })).body;
    expect((await call(app, { method: 'PUT', url: `${FACT}/tablecomparisons/profiling/vs_orders`, payload: { ...read, compare_row_count: undefined } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: FACT })).body.spec.profiling_checks?.comparisons?.vs_orders).toBeUndefined();
    expect((await call(app, { method: 'DELETE', url: `${FACT}/tablecomparisonconfigurations/vs_orders` })).status).toBe(204);
    const after = (await call(app, { method: 'GET', url: FACT })).body.spec;
    expect(after.table_comparisons.vs_orders).toBeUndefined();
    expect(after.columns.gross_amount.profiling_checks?.comparisons?.vs_orders).toBeUndefined();
    expect((await call(app, { method: 'GET', url: `${FACT}/tablecomparisons/vs_orders/profiling` })).status).toBe(404);
  });

  it('lists the comparison configurations of one check type and time scale when asked, as DQOps filters them', async () => {
    const FACT = '/api/connections/analytics_dwh/schemas/mart/tables/fact_orders';
    const reference = { reference_connection: 'shop_oltp', reference_table: { schema_name: 'public', table_name: 'orders' } };
    for (const [name, scope] of [['by_day', { check_type: 'monitoring', time_scale: 'daily' }], ['by_month', { check_type: 'partitioned', time_scale: 'monthly' }], ['monitoring_any', { check_type: 'monitoring' }]] as const) {
      const created = await call(app, { method: 'POST', url: `${FACT}/tablecomparisonconfigurations`, payload: { table_comparison_configuration_name: name, ...reference, ...scope } });
      expect(created.status, created.raw).toBe(201);
    }
    // a comparison created with the checks of a container belongs to that container, as in DQOps
    const withChecks = await call(app, { method: 'POST', url: `${FACT}/tablecomparisons/partitioned/daily`, payload: { table_comparison_configuration_name: 'checks_by_day', ...reference, compare_row_count: { error_difference_percent: 1 } } });
    expect(withChecks.status, withChecks.raw).toBe(201);
    expect((await call(app, { method: 'GET', url: `${FACT}/tablecomparisonconfigurations/checks_by_day` })).body).toMatchObject({ check_type: 'partitioned', time_scale: 'daily' });
    const names = async (query: string) => (await call(app, { method: 'GET', url: `${FACT}/tablecomparisonconfigurations${query}` })).body.map((c: any) => c.table_comparison_configuration_name);
    // matches_shop_orders (examples/shop) sets neither: a profiling comparison for DQOps, with no time scale
    expect(await names('')).toEqual(['by_day', 'by_month', 'checks_by_day', 'matches_shop_orders', 'monitoring_any']);
    expect(await names('?checkType=profiling')).toEqual(['matches_shop_orders']);
    expect(await names('?checkType=monitoring')).toEqual(['by_day', 'monitoring_any']);
    expect(await names('?checkType=monitoring&checkTimeScale=daily')).toEqual(['by_day']);
    expect(await names('?check_type=partitioned&check_time_scale=monthly')).toEqual(['by_month']);
    expect(await names('?checkTimeScale=monthly')).toEqual(['by_month']);
    expect(await names('?checkType=partitioned&checkTimeScale=daily')).toEqual(['checks_by_day']);
    // writing the model of another container moves it there (DQOps's copyToTableSpec)
    const read = (await call(app, { method: 'GET', url: `${FACT}/tablecomparisons/checks_by_day/partitioned/daily` })).body;
    expect((await call(app, { method: 'PUT', url: `${FACT}/tablecomparisons/monitoring/monthly/checks_by_day`, payload: read })).status).toBe(204);
    expect(await names('?checkType=monitoring&checkTimeScale=monthly')).toEqual(['checks_by_day']);
    // a value DQOps's enum does not have, and two spellings that disagree, are refused
    expect((await call(app, { method: 'GET', url: `${FACT}/tablecomparisonconfigurations?checkType=weekly` })).status).toBe(400);
    const disagree = await call(app, { method: 'GET', url: `${FACT}/tablecomparisonconfigurations?checkType=monitoring&check_type=profiling` });
    expect([disagree.status, disagree.body.message]).toEqual([400, 'check_type and checkType disagree']);
    for (const name of ['by_day', 'by_month', 'monitoring_any', 'checks_by_day']) expect((await call(app, { method: 'DELETE', url: `${FACT}/tablecomparisonconfigurations/${name}` })).status).toBe(204);
  });

  it('answers the rest of the tables and columns operations: column check models, profiling status, similar tables, basic updates', async () => {
    const models = (await call(app, { method: 'GET', url: `${ORDERS}/columnchecks/monitoring/daily/model?columnNamePattern=order_*` })).body;
    expect(models.length).toBeGreaterThan(0);
    expect(models.every((m: any) => m.check_target === 'column' && m.column_name.startsWith('order_') && m.table_name === 'orders')).toBe(true);
    // the collection of the first test stored statistics of orders when its data source answered
    const statisticsCollected = (await fx.store.latestStatistics({ connectionName: 'shop_oltp', schemaName: 'public', tableName: 'orders' })).length > 0;
    const status = (await call(app, { method: 'GET', url: `${ORDERS}/profilingstatus` })).body;
    expect(status).toMatchObject({ connection_name: 'shop_oltp', target: { schema_name: 'public', table_name: 'orders' }, monitoring_checks_configured: true, basic_statistics_collected: statisticsCollected });
    // the warehouse's fact_orders and the shop's other tables share some column names with orders; never itself
    const similar = (await call(app, { method: 'GET', url: `${ORDERS}/similar?limit=3` })).body;
    expect(similar.length).toBeGreaterThan(0);
    expect(similar.length).toBeLessThanOrEqual(3);
    expect(similar[0].similarity_pct).toBeGreaterThanOrEqual(similar.at(-1).similarity_pct);
    expect(similar.every((t: any) => !(t.connection_name === 'shop_oltp' && t.table_name === 'orders'))).toBe(true);
    const list = (await call(app, { method: 'GET', url: `${ORDERS}/basic` })).body;
    expect((await call(app, { method: 'PUT', url: `${ORDERS}/basic`, payload: { ...list, stage: 'bronze', has_any_configured_checks: false } })).status).toBe(204);
    const spec = (await call(app, { method: 'GET', url: ORDERS })).body.spec;
    expect(spec.stage).toBe('bronze');
    expect(spec.monitoring_checks).toBeDefined();
    expect((await call(app, { method: 'PUT', url: `${ORDERS}/columns/order_status/basic`, payload: { column_name: 'order_status', sql_expression: 'lower({column})' } })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: ORDERS })).body.spec.columns.order_status.sql_expression).toBe('lower({column})');
    expect((await call(app, { method: 'PUT', url: `${ORDERS}/columns/nope/basic`, payload: { disabled: true } })).status).toBe(404);
  });

  it('answers 501 with the error body and a reason for the DQOps groups dqctl does not serve', async () => {
    for (const [method, url] of [
      ['GET', '/api/users'],
      ['GET', '/api/dashboards'],
      ['GET', '/api/domains'],
      ['POST', '/api/logs/error'],
      ['POST', `${ORDERS}/monitoring/daily/propose`],
      ['GET', '/api/credentials'],
      ['POST', '/api/jobs/synchronize'],
    ] as const) {
      const answer = await call(app, { method, url, payload: method === 'POST' ? {} : undefined });
      expect([url, answer.status]).toEqual([url, 501]);
      expect(Object.keys(answer.body).sort()).toEqual(ERROR_BODY_KEYS);
      expect(answer.body.message).toMatch(/^not served by dqctl: /);
    }
    // a path that is nobody's stays a plain 404
    expect((await call(app, { method: 'GET', url: '/api/nothing-here' })).status).toBe(404);
  });
});
