import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isJobOfKind } from '../app/jobStarts.js';
import type { JobEnded, PassRecord, Reconciler, Store } from '../app/services.js';
import { OBJECT_SYNC_STATUSES } from '../app/syncStatus.js';
import { isJsonObject, RESULT_STATUSES, type ResultStatus } from '../model/index.js';

/**
 * GET /metrics in the Prometheus text format: what an operator alerts on. One registry per server (no global
 * one, so two servers in a process, e.g. in tests, never share counters). Counters count events this process saw
 * (reconcile passes, applies, jobs it ran, requests); gauges that describe shared state (jobs queued in the store,
 * objects out of sync) are read when scraped.
 *
 * HOOKS for later features (branch `incidents`): `setOpenIncidents(fn)` and `setOutboxBacklog(fn)` register the
 * functions the gauges read at scrape time, and `countDelivery(outcome)` counts a notification delivery. Until
 * they are registered the two gauges are absent (not a false 0); the delivery counter is always there.
 */
export interface MetricsOptions {
  store: Store;
  reconciler?: Reconciler;
  /** Process metrics (CPU, memory, event loop lag) with the dqctl_ prefix; default true. */
  processMetrics?: boolean;
}

/** The run_checks job result's counts (RunChecksResult) by the severity label they feed. */
const SEVERITY_FIELDS: Record<ResultStatus, string> = {
  valid: 'valid_results',
  warning: 'warnings',
  error: 'errors',
  fatal: 'fatals',
  execution_error: 'execution_errors',
};
/** Apply durations: a small repository applies in tens of ms, 10,000 tables in tens of seconds. */
const APPLY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type ScrapeValue = () => number | Promise<number>;

export class ServerMetrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;

  private readonly reconcileRuns = new Counter({
    name: 'dqctl_reconcile_runs_total',
    help: 'Reconcile passes by outcome (applied, no_changes, out_of_sync, invalid, refused, unreachable, error, aborted).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly lastSuccess = new Gauge({
    name: 'dqctl_reconcile_last_success_timestamp_seconds',
    help: 'Unix time the last reconcile pass ended in sync with the repository (applied or no changes).',
    registers: [this.registry],
  });
  private readonly applyDuration = new Histogram({
    name: 'dqctl_apply_duration_seconds',
    help: 'Time to apply a plan to the live store, by who applied (reconcile, api) and outcome (applied, failed).',
    labelNames: ['source', 'outcome'],
    buckets: APPLY_BUCKETS,
    registers: [this.registry],
  });
  private readonly checkRuns = new Counter({
    name: 'dqctl_check_runs_total',
    help: 'Check runs (run_checks jobs) this server ran, by outcome (finished, failed, cancelled).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly checkResults = new Counter({
    name: 'dqctl_check_results_total',
    help: 'Check results of those runs by severity (valid, warning, error, fatal, execution_error).',
    labelNames: ['severity'],
    registers: [this.registry],
  });
  private readonly jobsEnded = new Counter({
    name: 'dqctl_jobs_total',
    help: 'Jobs this server ran, by type and outcome (finished, failed, cancelled).',
    labelNames: ['type', 'outcome'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'dqctl_http_request_duration_seconds',
    help: 'HTTP requests by method, route (the route pattern, not the URL) and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'dqctl_notification_deliveries_total',
    help: 'Notification deliveries by outcome (delivered, failed, retried). HOOK: counted through countDelivery().',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor(options: MetricsOptions) {
    const { store, reconciler } = options;
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'dqctl_' });
    new Gauge({
      name: 'dqctl_jobs',
      help: 'Jobs in the store that have not ended, by status (queued, running, waiting, cancel_requested), across every server.',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const counts = await store.jobs.countUnfinished().catch(() => undefined);
        if (!counts) return; // the store is down: no sample rather than a false 0
        for (const status of ['queued', 'running', 'waiting', 'cancel_requested'] as const) this.set({ status }, counts[status] ?? 0);
      },
    });
    if (reconciler) {
      reconciler.addPassListener((record) => this.observePass(record));
      new Gauge({
        name: 'dqctl_objects_out_of_sync',
        help: 'Objects whose live state differs from the repository, as of the last comparison, by status (OutOfSync, Missing, Extraneous, Drifted).',
        labelNames: ['status'],
        registers: [this.registry],
        async collect() {
          this.reset();
          const status = await reconciler.status().catch(() => undefined);
          if (!status || status.compared_at === null) return;
          for (const name of OBJECT_SYNC_STATUSES) if (name !== 'Synced') this.set({ status: name }, status.counts[name] ?? 0);
        },
      });
      new Gauge({
        name: 'dqctl_objects_changed_outside_git',
        help: 'Objects changed through the API or the console since the last apply, as of the last comparison (whatever the repository did to them too).',
        registers: [this.registry],
        async collect() {
          this.reset();
          const status = await reconciler.status().catch(() => undefined);
          if (!status || status.compared_at === null) return;
          this.set(status.objects.filter((o) => o.drifted).length);
        },
      });
    }
  }

  /** HOOK (incidents): the number of open incidents, read at every scrape. The gauge exists from this call on. */
  setOpenIncidents(read: ScrapeValue): void {
    this.scrapedGauge('dqctl_incidents_open', 'Open data quality incidents.', read);
  }

  /** HOOK (notifications): the outbox backlog, read at every scrape. The gauge exists from this call on. */
  setOutboxBacklog(read: ScrapeValue): void {
    this.scrapedGauge('dqctl_notification_outbox_backlog', 'Notifications waiting in the outbox to be delivered.', read);
  }

  private scrapedGauge(name: string, help: string, read: ScrapeValue): void {
    this.registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** HOOK (notifications): one delivery attempt ended. */
  countDelivery(outcome: 'delivered' | 'failed' | 'retried'): void {
    this.deliveries.inc({ outcome });
  }

  observePass(record: PassRecord): void {
    this.reconcileRuns.inc({ outcome: record.result });
    if (record.result === 'applied' || record.result === 'no_changes') this.lastSuccess.set(Date.parse(record.finished_at) / 1000);
    if (record.timings.apply_ms > 0) {
      this.applyDuration.observe({ source: 'reconcile', outcome: record.result === 'applied' ? 'applied' : 'failed' }, record.timings.apply_ms / 1000);
    }
  }

  observeApply(source: 'api', outcome: 'applied' | 'failed', seconds: number): void {
    this.applyDuration.observe({ source, outcome }, seconds);
  }

  observeJob(ended: JobEnded): void {
    this.jobsEnded.inc({ type: ended.job.jobType, outcome: ended.status });
    if (!isJobOfKind(ended.job, 'runChecks')) return;
    this.checkRuns.inc({ outcome: ended.status });
    // a run that failed some tables keeps the counts of the others under `result`
    const failedRun = ended.result?.result;
    const result = (ended.status === 'finished' ? ended.result : isJsonObject(failedRun) ? failedRun : null) ?? {};
    for (const severity of RESULT_STATUSES) {
      const count = result[SEVERITY_FIELDS[severity]];
      if (typeof count === 'number' && count > 0) this.checkResults.inc({ severity }, count);
    }
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
