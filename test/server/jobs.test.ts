import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { parseTokens } from '../../src/server/tokens.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { rowCountResult } from '../helpers/checkResults.js';

const result = (table: string, overrides: Partial<CheckResultInput> = {}): CheckResultInput =>
  rowCountResult({ connectionName: 'shop_oltp', tableName: table, checkHash: 42, ...overrides });

describe('jobs API', () => {
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

  it('deletestoreddata runs as a job: 201 with the result when it ends in time, rows really gone', async () => {
    await fx.store.insertCheckResults([
      result('orders'),
      result('orders', { severity: null, errorMessage: 'sensor failed' }),
      result('customers'),
    ]);
    const started = await call(app, {
      method: 'POST',
      url: '/api/jobs/deletestoreddata?jobBusinessKey=cleanup-1&waitTimeout=30',
      payload: { connection: 'shop_oltp', fullTableName: 'public.ord*', deleteCheckResults: true, deleteErrors: true },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      jobId: { jobId: expect.any(Number), jobBusinessKey: 'cleanup-1', createdAt: expect.any(String) },
      status: 'finished',
      result: { partitionResults: { check_results: { rowsAffectedCount: 1 }, errors: { rowsAffectedCount: 1 }, error_samples: { rowsAffectedCount: 0 } } },
    });
    const left = await fx.store.checkResults({ connectionName: 'shop_oltp', schemaName: 'public', tableName: 'customers' });
    expect(left).toHaveLength(1);

    const byKey = await call(app, { method: 'GET', url: '/api/jobs/jobs/cleanup-1' });
    expect(byKey.body).toMatchObject({
      jobType: 'delete_stored_data',
      status: 'finished',
      parameters: { deleteStoredDataParameters: { connection: 'shop_oltp', fullTableName: 'public.ord*', deleteCheckResults: true, deleteErrors: true } },
    });
    const waited = await call(app, { method: 'GET', url: `/api/jobs/jobs/${started.body.jobId.jobId}/wait?waitTimeout=1` });
    expect(waited.body.status).toBe('finished');
    expect((await call(app, { method: 'DELETE', url: '/api/jobs/jobs/cleanup-1' })).status).toBe(204);
  });

  it('wait=false answers at once with the job id; a repeated business key is 409; unknown jobs 404', async () => {
    const started = await call(app, { method: 'POST', url: '/api/jobs/deletestoreddata?wait=false&job_business_key=k2', payload: { connection: 'shop_oltp', deleteErrorSamples: true } });
    expect(started.status).toBe(201);
    expect(started.body.result).toBeUndefined();
    expect((await call(app, { method: 'POST', url: '/api/jobs/deletestoreddata?job_business_key=k2', payload: { connection: 'shop_oltp' } })).status).toBe(409);
    expect((await call(app, { method: 'GET', url: '/api/jobs/jobs/999999' })).status).toBe(404);
    expect((await call(app, { method: 'DELETE', url: '/api/jobs/jobs/nope' })).status).toBe(404);
    const bad = await call(app, { method: 'POST', url: '/api/jobs/deletestoreddata', payload: { connection: 'shop_oltp', deleteErrors: 'yes' } });
    expect(bad.status).toBe(400);
    // a check filter a run could only ignore (running more than asked) is refused
    const tagged = await call(app, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: { connection: 'shop_oltp', tags: ['eu'] } } });
    expect(tagged.status).toBe(400);
    expect(tagged.body.message).toMatch(/tags is not supported/);
    // parameters the job cannot honour are refused before anything is queued or deleted
    for (const payload of [
      { connection: 'shop_oltp', deleteCheckResults: true, dateStart: '2026-13-01' },
      { connection: 'shop_oltp', deleteCheckResults: true, dateStart: '2026-11-20', dateEnd: '2026-11-01' },
      { connection: 'shop_oltp', deleteChecksConfiguration: true },
    ]) {
      const refused = await call(app, { method: 'POST', url: '/api/jobs/deletestoreddata', payload });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('collecterrorsamples runs as a job: dummy_sensor_execution plans the samplers; unreachable sources fail it with the reason', async () => {
    const planned = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples', payload: { check_search_filters: { connection: 'shop_oltp' }, dummy_sensor_execution: true } });
    expect(planned.status).toBe(201);
    expect(planned.body).toMatchObject({ status: 'finished', result: { total_error_samplers_failed: 0, total_error_samples_collected: 0 } });
    expect(planned.body.result.executed_error_samplers).toBeGreaterThan(0);
    expect(planned.body.result.columns_analyzed).toBeGreaterThan(0);
    // the example's connections name variables this test does not set: every sampler fails, the job says why
    const failed = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples', payload: { check_search_filters: { connection: 'shop_oltp' } } });
    expect(failed.status).toBe(201);
    expect(failed.body).toMatchObject({ status: 'failed', errorMessage: expect.stringMatching(/^error sampling failed: all \d+ error samplers failed: shop_oltp\//) });
    expect(failed.body.result).toBeUndefined();
    const bad = await call(app, { method: 'POST', url: '/api/jobs/collecterrorsamples', payload: { data_scope: 'everything' } });
    expect(bad.status).toBe(400);
  });

  it("a job's parameters are nested under its kind as DQOps's DqoJobEntryParametersModel nests them, with the result inside", async () => {
    const run = await call(app, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: { connection: 'shop_oltp', fullTableName: 'public.orders' }, dummy_execution: true } });
    expect(run.body.status).toBe('finished');
    const runJob = (await call(app, { method: 'GET', url: `/api/jobs/jobs/${run.body.jobId.jobId}` })).body;
    expect(runJob.parameters).toEqual({
      runChecksParameters: {
        check_search_filters: { connection: 'shop_oltp', fullTableName: 'public.orders' },
        dummy_execution: true,
        run_checks_result: run.body.result,
      },
    });
    expect(run.body.result.executed_checks).toBeGreaterThan(0);
    // every kind, as its executor stores it → DQOps's nesting (a failed run keeps its counts; an unknown kind: {})
    const counts = { highest_severity: 'error', executed_checks: 3, valid_results: 1, warnings: 0, errors: 2, fatals: 0, execution_errors: 0 };
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown> | null, 'finished' | 'failed', Record<string, unknown>]> = [
      ['run_checks', { check_search_filters: { connection: 'c' }, scheduled: true }, { result: counts, tables: 2, failed_tables: [] }, 'failed',
        { runChecksParameters: { check_search_filters: { connection: 'c' }, scheduled: true, run_checks_result: counts } }],
      ['collect_statistics', { connection: 'c', fullTableName: 's.t', samplesLimit: 5, configureTable: true, dataScope: 'data_group' }, { executed_statistics_collectors: 4, total_collected_results: 9 }, 'finished',
        { collectStatisticsParameters: { statistics_collector_search_filters: { connection: 'c', fullTableName: 's.t' }, data_scope: 'data_group', configure_table: true, samples_limit: 5, collect_statistics_result: { executed_statistics_collectors: 4, total_collected_results: 9 } } }],
      ['collect_error_samples', { check_search_filters: { connection: 'c' }, data_scope: 'table', error_sampler_result: { stale: true } }, { executed_error_samplers: 2, total_error_samples_collected: 7 }, 'finished',
        { collectErrorSamplesParameters: { check_search_filters: { connection: 'c' }, data_scope: 'table', error_sampler_result: { executed_error_samplers: 2, total_error_samples_collected: 7 } } }],
      ['delete_stored_data', { connection: 'c', schemaName: 's', tableName: 'a*', deleteCheckResults: true }, null, 'finished',
        { deleteStoredDataParameters: { connection: 'c', schemaName: 's', tableName: 'a*', fullTableName: 's.a*', deleteCheckResults: true } }],
      ['import_tables', { connection: 'c', schema: 's', table_contains: 'fact', table_names: ['x'] }, { created: 1 }, 'finished',
        { importTableParameters: { connectionName: 'c', schemaName: 's', tableNameContains: 'fact', tableNames: ['x'] } }],
      ['no_such_kind', { anything: 1 }, null, 'finished', {}],
    ];
    for (const [jobType, parameters, result, status, expected] of cases) {
      const job = await fx.store.jobs.recordRunning({ jobType, parameters: parameters as never, createdBy: 'test', claimedBy: 'test:1' });
      await fx.store.jobs.finish(job.id, { status, result: result as never, ...(status === 'failed' ? { errorMessage: 'failed' } : {}) });
      const answered = (await call(app, { method: 'GET', url: `/api/jobs/jobs/${job.id}` })).body;
      expect([jobType, answered.parameters]).toEqual([jobType, expected]);
      const listed = (await call(app, { method: 'GET', url: '/api/jobs/jobs' })).body.jobs.find((j: { jobId: { jobId: number } }) => j.jobId.jobId === job.id);
      expect(listed.parameters).toEqual(expected);
    }
  });

  it("a typo in a job's filter is UNKNOWN_NAME with the closest names, before anything is queued; nothing applied is NOTHING_APPLIED", async () => {
    const jobsBefore = (await call(app, { method: 'GET', url: '/api/jobs/jobs' })).body.jobs.length;
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['/api/jobs/runchecks', { check_search_filters: { checkName: 'daily_row_cuont' } }, '--check: no check named "daily_row_cuont"; did you mean "daily_row_count"?'],
      ['/api/jobs/runchecks', { check_search_filters: { connection: 'shop_oltpp' } }, '--connection: no connection named "shop_oltpp"; did you mean "shop_oltp"?'],
      ['/api/jobs/runchecks', { check_search_filters: { connection: 'shop_oltp', fullTableName: 'public.ordres' } }, '--table: no table named "public.ordres" of connection "shop_oltp"; did you mean "public.orders"?'],
      ['/api/jobs/collecterrorsamples', { check_search_filters: { column: 'no_such_column_*' } }, '--column "no_such_column_*" matches no column in the selected tables'],
      ['/api/jobs/collectstatistics/table', { connection: 'shop_oltp', fullTableName: 'public.ordres' }, '--table: no table named "public.ordres" of connection "shop_oltp"; did you mean "public.orders"?'],
    ];
    for (const [url, payload, message] of refusals) {
      const refused = await call(app, { method: 'POST', url, payload });
      expect([refused.status, refused.body.code, refused.body.message], url).toEqual([404, 'UNKNOWN_NAME', message]);
    }
    expect((await call(app, { method: 'GET', url: '/api/jobs/jobs' })).body.jobs.length).toBe(jobsBefore);

    const empty = await STORE_ENGINES[0].setup();
    const emptyApp = await serverOn(empty.store);
    try {
      const refused = await call(emptyApp, { method: 'POST', url: '/api/jobs/runchecks', payload: { check_search_filters: {} } });
      expect([refused.status, refused.body.code]).toEqual([409, 'NOTHING_APPLIED']);
      expect(refused.body.message).toContain('nothing was applied to it');
    } finally {
      await emptyApp.close();
      await empty.dispose();
    }
  }, 180_000); // it opens a second, empty store

  it('starting and cancelling jobs needs the operator role', async () => {
    const guarded = await serverOn(fx.store, { tokens: parseTokens('- {name: v, role: viewer, token: viewer-0001}\n- {name: e, role: editor, token: editor-0001}\n- {name: o, role: operator, token: operator-001}', 't') });
    const post = (token: string) =>
      call(guarded, { method: 'POST', url: '/api/jobs/deletestoreddata', payload: { connection: 'shop_oltp' }, headers: { authorization: `Bearer ${token}` } });
    expect((await post('viewer-0001')).status).toBe(403);
    expect((await post('editor-0001')).status).toBe(403);
    expect((await post('operator-001')).status).toBe(201);
    await guarded.close();
  });
});
