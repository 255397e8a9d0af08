import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { defaultExecutors } from '../../src/jobs/executors/index.js';
import { JobService } from '../../src/jobs/jobService.js';
import { Reconciler } from '../../src/reconcile/reconciler.js';
import { FolderRevisions } from '../../src/reconcile/revisionSource.js';
import { buildMetricsServer } from '../../src/server/metricsRoute.js';
import { ServerMetrics } from '../../src/server/metrics.js';
import { parseTokens } from '../../src/server/tokens.js';
import { createSourceFixture, type SourceFixture } from '../datasource/sourceFixture.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { call, serverOn } from '../helpers/server.js';
import { exampleCopy, idle, setOrdersPriority, waitFor } from '../reconcile/helpers.js';

/**
 * GET /metrics against a real server: a real reconcile loop over a folder, a real check run on a PostgreSQL
 * source, real requests. The values are read back from the Prometheus text, as a scraper would.
 */
const TOKENS = '- {name: grafana, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n';

/** The value of one sample of the exposition text, e.g. sample(text, 'dqctl_check_results_total{severity="error"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', { timeout: 120_000 }, () => {
  let fx: StoreFixture;
  let source: SourceFixture;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let reconciler: Reconciler;
  let dataSources: DataSources;
  let jobs: JobService;
  let app: FastifyInstance;
  const viewer = { authorization: 'Bearer viewer-token' };

  beforeAll(async () => {
    fx = await STORE_ENGINES[1].setup();
    source = await createSourceFixture();
    repo = await exampleCopy('dqctl-metrics-');
    reconciler = new Reconciler({ store: fx.store, source: new FolderRevisions(repo.dir), autoApply: true, intervalMs: 60_000, settleMs: 100 });
    dataSources = new DataSources({ env: source.env });
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    jobs = new JobService(fx.store, defaultExecutors({ store: fx.store, objects, dataSources }), { pollMs: 20 });
    jobs.start();
    const metrics = new ServerMetrics({ store: fx.store, reconciler });
    app = await serverOn(fx.store, { tokens: parseTokens(TOKENS, 'test'), reconciler, jobs, dataSources, metrics });
    await reconciler.start();
    await idle(reconciler, 30_000);
  });
  afterAll(async () => {
    await reconciler?.stop();
    await app?.close();
    await jobs?.stop();
    await dataSources?.close();
    await repo?.cleanup();
    await source?.dispose();
    await fx?.dispose();
  });

  it('is a read like the others: 401 without a token, the Prometheus text format with a viewer token', async () => {
    expect((await call(app, { method: 'GET', url: '/metrics' })).status).toBe(401);
    const answer = await call(app, { method: 'GET', url: '/metrics', headers: viewer });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.raw).toContain('# TYPE dqctl_reconcile_runs_total counter');
    expect(answer.raw).toContain('# TYPE dqctl_apply_duration_seconds histogram');
    expect(answer.raw).toContain('# TYPE dqctl_http_request_duration_seconds histogram');
    expect(answer.raw).toContain('dqctl_process_cpu_seconds_total');
    // incidents and the outbox are read from the store at every scrape: none yet
    expect(sample(answer.raw, 'dqctl_incidents_open')).toBe(0);
    expect(sample(answer.raw, 'dqctl_notification_outbox_backlog')).toBe(0);
    expect(answer.raw).toContain('# TYPE dqctl_notification_deliveries_total counter');
  });

  it('reconcile: passes by outcome, the last successful sync, objects out of sync, apply durations', async () => {
    let text = (await call(app, { method: 'GET', url: '/metrics', headers: viewer })).raw;
    expect(sample(text, 'dqctl_reconcile_runs_total{outcome="applied"}')).toBe(1);
    const lastSuccess = sample(text, 'dqctl_reconcile_last_success_timestamp_seconds')!;
    expect(Math.abs(lastSuccess - Date.now() / 1000)).toBeLessThan(60);
    expect(sample(text, 'dqctl_apply_duration_seconds_count{source="reconcile",outcome="applied"}')).toBe(1);
    expect(sample(text, 'dqctl_objects_out_of_sync{status="OutOfSync"}')).toBe(0);

    // a saved edit: one more pass, one more apply
    const before = sample(text, 'dqctl_reconcile_runs_total{outcome="applied"}')!;
    await setOrdersPriority(repo.dir, 4);
    await waitFor(async () => {
      text = (await call(app, { method: 'GET', url: '/metrics', headers: viewer })).raw;
      return sample(text, 'dqctl_reconcile_runs_total{outcome="applied"}') === before + 1;
    }, 20_000, 'the second apply');
    expect(sample(text, 'dqctl_apply_duration_seconds_count{source="reconcile",outcome="applied"}')).toBe(2);
    expect(sample(text, 'dqctl_reconcile_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(lastSuccess);
  });

  it('a check run: runs by outcome and results by severity; queued and running jobs from the store', async () => {
    const objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'src', source.spec(), { caller: 'test' });
    // 6 rows: the row count passes at min 1 and is an error at min 100
    await objects.create(
      'table',
      'src/Sales "EU".order lines.2024',
      { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 100 } } } } } },
      { caller: 'test' },
    );
    const job = await jobs.submit('run_checks', { check_search_filters: { connection: 'src' } });
    const ended = await jobs.wait(String(job.id), 60_000);
    expect(ended.status).toBe('finished');
    const text = (await call(app, { method: 'GET', url: '/metrics', headers: viewer })).raw;
    expect(sample(text, 'dqctl_check_runs_total{outcome="finished"}')).toBe(1);
    expect(sample(text, 'dqctl_check_results_total{severity="error"}')).toBe(1);
    expect(sample(text, 'dqctl_jobs_total{type="run_checks",outcome="finished"}')).toBe(1);
    expect(sample(text, 'dqctl_jobs{status="queued"}')).toBe(0);
    expect(sample(text, 'dqctl_jobs{status="running"}')).toBe(0);
    // the error opened an incident (DQOps's default grouping: table, dimension, category; from warnings on)
    expect(sample(text, 'dqctl_incidents_open')).toBe(1);
  });

  it('HTTP requests by route pattern (never the URL) and status', async () => {
    await call(app, { method: 'GET', url: '/api/connections/no%20such%20connection', headers: viewer });
    const text = (await call(app, { method: 'GET', url: '/metrics', headers: viewer })).raw;
    expect(sample(text, 'dqctl_http_request_duration_seconds_count{method="GET",route="/api/connections/:connectionName",status="404"}')).toBe(1);
    expect(sample(text, 'dqctl_http_request_duration_seconds_count{method="GET",route="/metrics",status="401"}')).toBe(1);
    expect(text).not.toContain('no such connection');
  });

  it('--metrics-port: its own listener, no token, the same registry; the hooks report once registered', async () => {
    const metrics = new ServerMetrics({ store: fx.store, processMetrics: false });
    const separate = await buildMetricsServer(metrics);
    try {
      metrics.setOpenIncidents(() => 3);
      metrics.setOutboxBacklog(async () => 7);
      metrics.countDelivery('delivered');
      const answer = await separate.inject({ method: 'GET', url: '/metrics' });
      expect(answer.statusCode).toBe(200);
      expect(sample(answer.body, 'dqctl_incidents_open')).toBe(3);
      expect(sample(answer.body, 'dqctl_notification_outbox_backlog')).toBe(7);
      expect(sample(answer.body, 'dqctl_notification_deliveries_total{outcome="delivered"}')).toBe(1);
      expect((await separate.inject({ method: 'GET', url: '/api/connections' })).statusCode).toBe(404);
    } finally {
      await separate.close();
    }
  });
});
