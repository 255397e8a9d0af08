import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyPlan } from '../apply/applyPlan.js';
import { planLiveForBoth, type LivePlans } from './planLive.js';
import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { loadRepository } from '../manifest/loadRepository.js';
import { ParseCache } from '../manifest/parseCache.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { isDqError, type ApplyRecord, type DesiredObject, type Diagnostic, type LockInfo } from '../model/index.js';
import { blockingFindings, environmentSwitch, nothingToApply, type Plan } from '../plan/plan.js';
import { toPlanDocument, type PlanDocument } from '../plan/planDocument.js';
import type { Store } from '../store/store.js';
import { LeaderElection } from './leaderElection.js';
import type { RevisionSource } from './revisionSource.js';
import { SingleFlight } from './singleFlight.js';
import {
  countStatuses,
  objectStatuses,
  summarizeDiagnostics,
  syncOf,
  type HealthStatus,
  type ObjectStatus,
  type PassRecord,
  type PassResult,
  type ReconcileStatus,
  type SyncStatus,
} from './status.js';
import { startTimer, type Trigger } from './triggers.js';

/**
 * The reconcile loop of `dqctl serve --repo | --git`. Triggers (a folder watch, a git poll on the timer, the
 * webhook, resume, winning the leadership) ask for a pass; one pass runs at a time, and triggers that arrive
 * during a pass fold into one more (singleFlight.ts). A pass loads the revision (reusing what it parsed before
 * from unchanged files), validates, plans against the live store and, with autoApply on the leader, applies.
 *
 * Safety, in the order a pass meets it:
 * - a revision that cannot be fetched, or has validation errors, is not planned: the live store keeps the last
 *   good state, health is Degraded with the reason, and the next trigger tries again;
 * - a plan that deletes is made again from a second read after a short settle when the revision comes from a
 *   folder (an editor's save or a checkout may be half-written), so files that vanish mid-edit never prune;
 * - the plan's own guards hold: a mass delete or an ownership conflict is refused (Degraded, nothing applied);
 * - without selfHeal, objects changed through the API (drift) are reported and kept (planned with keepDrift);
 * - apply is the one of `dqctl apply`: one transaction under the store lock, refused if the store moved since
 *   the plan (then the pass plans again, up to three times).
 * A pass that fails is logged and recorded in the status; the loop waits for the next trigger, so a store that
 * restarts or a remote that comes back is picked up without restarting dqctl.
 */
export interface ReconcilerOptions {
  store: Store;
  source: RevisionSource;
  /** Apply what a pass plans (on the leader). Without it a pass only reports OutOfSync and the pending plan. */
  autoApply?: boolean;
  /** Restore objects changed through the API (drift); without it they are reported and kept. */
  selfHeal?: boolean;
  /** The environment of dqctl.yaml every pass loads the repository with (`serve --env`); null: none. */
  environment?: string | null;
  /** Apply even when the store was last applied with another environment (`serve --switch-env`). */
  switchEnvironment?: boolean;
  /** Timer of the loop: drift check, git poll, and the followers' attempts to lead (default 60 s). */
  intervalMs?: number;
  /**
   * How often the store's revision is read to see writes nobody announced to this process (another process's
   * `dqctl apply`, another replica's API write): a moved revision triggers a comparison (default 500 ms; 0: off).
   */
  storeWatchMs?: number;
  /** Who applies: the lock holder and the audit log's applied_by (default `reconcile@<host>`). */
  actor?: string;
  /** How long an apply waits for the store lock held by someone else (default 10 s). */
  lockTimeoutMs?: number;
  /** Settle time before a folder revision that would delete objects is read again (default 500 ms). */
  settleMs?: number;
  /** Secret of POST /api/gitops/webhook (HMAC-SHA256 of the body); null: the webhook is off. */
  webhookSecret?: string | null;
  log?: ReconcileLog;
  /**
   * Told of every trigger as it arrives (watch, timer, webhook, resume...), with the promise of the pass that
   * covers it: what a test waits on instead of sleeping until a file event has probably arrived.
   */
  onTrigger?: (reason: string, covered: Promise<PassRecord | null | undefined>) => void;
  /** Told when a pass has read the repository (its files are loaded; later edits belong to the next pass). */
  onLoaded?: (revision: string | null) => void;
}

export type ReconcileLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

interface Comparison {
  at: string;
  plans: LivePlans;
  desired: readonly DesiredObject[];
  /** Per-object status, computed when first asked for (not on the way to an apply). */
  objects?: ObjectStatus[];
}

const MAX_APPLY_ATTEMPTS = 3;
/** How long a status or pending-plan read waits for a comparison of a store that moved. */
const FRESHEN_WAIT_MS = 5_000;

export class Reconciler {
  readonly webhookSecret: string | null;
  readonly replicaId = `${hostname()}:${process.pid}`;
  private readonly store: Store;
  private readonly source: RevisionSource;
  private readonly autoApply: boolean;
  private readonly selfHeal: boolean;
  private readonly environment: string | null;
  private readonly switchEnvironment: boolean;
  private readonly intervalMs: number;
  private readonly storeWatchMs: number;
  private readonly actor: string;
  private readonly lockTimeoutMs: number;
  private readonly settleMs: number;
  private log: ReconcileLog;
  private readonly passListeners: ((record: PassRecord) => void)[] = [];
  private readonly onTrigger: ReconcilerOptions['onTrigger'];
  private readonly onLoaded: ReconcilerOptions['onLoaded'];
  private readonly cache = new ParseCache();
  private readonly flight: SingleFlight<PassRecord | null>;
  private readonly election: LeaderElection;
  private triggers: Trigger[] = [];
  private started = false;
  private starting = false;
  private stopped = false;

  private revision: string | null = null;
  private diagnostics: Diagnostic[] = [];
  private comparison: Comparison | null = null;
  /** The store revision the last pass read before planning (what freshness compares with when that pass could not compare). */
  private revisionSeenByPass: number | null = null;
  private watching = false;
  /** False after a pass that could not compare (fetch, validation, store): sync is then Unknown. */
  private comparisonCurrent = false;
  private comparedInPass = false;
  private timings: PassRecord['timings'] = { read_ms: 0, load_ms: 0, plan_ms: 0, apply_ms: 0 };
  private loadedInPass = false;
  private problem: { result: PassResult; message: string } | null = null;
  private lastPass: PassRecord | null = null;
  private passCount = 0;
  private lastApplied: ReconcileStatus['last_applied'] = null;
  private suspendedBy: { by: string; since: string } | null = null;
  private missedWhileSuspended = false;

  constructor(options: ReconcilerOptions) {
    this.store = options.store;
    this.source = options.source;
    this.autoApply = options.autoApply ?? false;
    this.selfHeal = options.selfHeal ?? false;
    this.environment = options.environment ?? null;
    this.switchEnvironment = options.switchEnvironment ?? false;
    this.intervalMs = options.intervalMs ?? 60_000;
    this.storeWatchMs = options.storeWatchMs ?? 500;
    this.actor = options.actor ?? `reconcile@${hostname()}`;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.settleMs = options.settleMs ?? 500;
    this.webhookSecret = options.webhookSecret ?? null;
    this.log = options.log ?? (() => {});
    this.onTrigger = options.onTrigger;
    this.onLoaded = options.onLoaded;
    this.flight = new SingleFlight((reasons, signal) => this.pass(reasons, signal));
    this.election = new LeaderElection({
      store: this.store,
      retryMs: this.intervalMs,
      onChange: (leader) => {
        if (leader) {
          this.log('info', 'this replica leads the reconcile loop', { replica: this.replicaId });
          if (!this.starting) void this.trigger('leader'); // at start, the first pass comes anyway
        } else {
          this.log('warn', 'this replica lost the reconcile leadership (its database session ended); trying again every interval', { replica: this.replicaId });
        }
      },
      onError: (error) => this.log('warn', `cannot take the reconcile leadership: ${messageOf(error)}`),
      // a follower that got the push webhook hands it on: the leader fetches and applies now, not on its next tick
      onRequest: (from) => void this.trigger(`webhook via ${from.slice(0, 200) || 'another replica'}`),
    });
  }

  /** Where log lines go (serve sets it to the server's logger once that exists). */
  setLog(log: ReconcileLog): void {
    this.log = log;
  }

  /** Called with every pass's record as it ends (the server's metrics count them). A throwing listener is ignored. */
  addPassListener(listener: (record: PassRecord) => void): void {
    this.passListeners.push(listener);
  }

  /** One line for the start-up message: what is reconciled, how often, and what a pass may do. */
  summary(): string {
    const what = this.source.type === 'folder' ? `the folder ${this.source.location} (watched)` : `${this.source.location} branch ${this.source.branch}${this.source.path ? ` path ${this.source.path}` : ''}`;
    const every = this.intervalMs % 1000 === 0 ? `${this.intervalMs / 1000}s` : `${this.intervalMs}ms`;
    const mode = this.autoApply ? `applying${this.selfHeal ? ' and restoring drift (--self-heal)' : ''}` : 'reporting only (no --auto-apply)';
    return `reconciling ${what} every ${every}, ${mode}${this.webhookSecret ? '; push webhook at /api/gitops/webhook' : ''}`;
  }

  get isLeader(): boolean {
    return this.election.isLeader;
  }

  /** Starts the election, the watch and the timer, and asks for the first pass (not awaited). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.starting = true;
    await this.election.start();
    this.starting = false;
    if (this.source.watch) {
      this.triggers.push(
        await this.source.watch(
          () => void this.trigger('watch'),
          (error) => this.log('warn', `folder watch: ${error.message}`),
        ),
      );
    }
    this.triggers.push(startTimer(this.intervalMs, () => void this.trigger('timer')));
    if (this.storeWatchMs > 0) this.triggers.push(startTimer(this.storeWatchMs, () => void this.watchStore()));
    void this.trigger('start');
  }

  /** Stops the triggers, aborts the running pass (an apply in progress finishes or rolls back whole), steps down. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.triggers.map((t) => t.stop()));
    await this.flight.stop();
    await this.election.stop();
    await this.source.close();
  }

  /**
   * Asks for a pass; resolves with its record once the pass that covers this trigger ended (null when the pass
   * was skipped because the loop is suspended, undefined when the loop stopped first). Never rejects.
   */
  trigger(reason: string): Promise<PassRecord | null | undefined> {
    const covered = this.flight.trigger(reason).catch((error: unknown) => {
      this.log('error', `reconcile pass crashed: ${messageOf(error)}`);
      return undefined;
    });
    this.onTrigger?.(reason, covered);
    return covered;
  }

  /**
   * The push webhook: a pass at once. On a follower (which only fetches and reports) the push is also handed to
   * the leader through the store, so it applies now rather than on its next tick: the webhook may reach any replica.
   */
  webhook(): Promise<PassRecord | null | undefined> {
    if (!this.isLeader) {
      this.store.requestLeader('reconcile', this.replicaId).catch((error: unknown) => this.log('warn', `cannot hand the webhook to the leader: ${messageOf(error)}`));
    }
    return this.trigger('webhook');
  }

  suspend(by: string): { by: string; since: string } {
    this.suspendedBy ??= { by, since: new Date().toISOString() };
    this.log('info', `reconcile loop suspended by ${by}`);
    return this.suspendedBy;
  }

  /** Ends a suspension and runs a pass at once (one was missed, or drift may have built up). */
  resume(by: string): void {
    if (!this.suspendedBy) return;
    this.suspendedBy = null;
    this.missedWhileSuspended = false;
    this.log('info', `reconcile loop resumed by ${by}`);
    void this.trigger('resume');
  }

  /**
   * A write this process made or saw (an API write, an apply through the server): compare again now rather than
   * on the next tick. Resolves when the comparison that covers it has ended.
   */
  storeChanged(reason: string): Promise<PassRecord | null | undefined> {
    return this.trigger(reason);
  }

  /**
   * The plan of the last comparison, or null before the first one: `apply` is what `dqctl apply` and
   * `apply --server` do with their defaults (drift restored), `loop` what this loop applies on its own (drift kept
   * unless --self-heal). Made fresh first when the store moved since the comparison.
   */
  async pendingPlan(mode: 'apply' | 'loop' = 'apply'): Promise<PlanDocument | null> {
    await this.freshen();
    return this.comparison ? toPlanDocument(this.comparison.plans[mode]) : null;
  }

  async status(options: { all?: boolean } = {}): Promise<ReconcileStatus> {
    let lock: LockInfo | null = null;
    try {
      await this.freshen();
      const [current, history] = await Promise.all([this.store.currentLock(), this.store.history(1)]);
      lock = current;
      this.lastApplied = history[0] ? lastAppliedOf(history[0]) : null;
    } catch {
      // the store is down: the last known apply stays; the pass records say what failed
    }
    const remote = this.source.remote();
    const comparison = this.comparison;
    const objects = comparison ? (comparison.objects ??= objectStatuses(comparison.plans.loop, comparison.desired)) : [];
    const sync: SyncStatus = this.comparison && this.comparisonCurrent ? syncOf(objects) : 'Unknown';
    const health: HealthStatus = this.suspendedBy ? 'Suspended' : this.problem ? 'Degraded' : 'Healthy';
    return {
      repository: {
        type: this.source.type,
        location: this.source.location,
        branch: this.source.branch,
        path: this.source.path,
        revision: this.revision,
        reachable: remote ? remote.reachable : null,
        last_fetch_at: remote?.lastFetchAt ?? null,
        fetch_error: remote?.error ?? null,
      },
      environment: { loaded: this.environment, applied: comparison?.plans.loop.environment.live ?? null },
      last_applied: this.lastApplied,
      sync,
      health,
      message: this.message(sync, objects),
      diagnostics: summarizeDiagnostics(this.diagnostics),
      diagnostic_count: {
        errors: this.diagnostics.filter((d) => d.severity === 'error').length,
        warnings: this.diagnostics.filter((d) => d.severity === 'warning').length,
      },
      settings: { auto_apply: this.autoApply, self_heal: this.selfHeal, interval_ms: this.intervalMs },
      replica: { id: this.replicaId, leader: this.isLeader },
      suspended: this.suspendedBy,
      compared_at: this.comparison?.at ?? null,
      counts: countStatuses(objects),
      objects: options.all ? objects : objects.filter((o) => o.status !== 'Synced'),
      last_pass: this.lastPass,
      pass_running: this.flight.busy,
      pass_queued: this.flight.pending,
      passes: this.passCount,
      lock,
    };
  }

  private message(sync: SyncStatus, objects: readonly ObjectStatus[]): string | null {
    if (this.suspendedBy) {
      return `suspended by ${this.suspendedBy.by} since ${this.suspendedBy.since}; no pass runs until resume${this.missedWhileSuspended ? ' (triggers arrived meanwhile)' : ''}`;
    }
    if (this.problem) return this.problem.message;
    if (sync !== 'OutOfSync') return null;
    const pending = this.comparison?.plans.loop;
    const changes = pending ? pending.changes.length : 0;
    const drifted = objects.filter((o) => o.status === 'Drifted' && o.reason === 'drift_kept').length;
    const parts: string[] = [];
    if (changes > 0) {
      if (!this.autoApply) parts.push(`${changes} change(s) pending; serve runs without --auto-apply (GET /api/gitops/plan shows them)`);
      else if (!this.isLeader) parts.push(`${changes} change(s) pending; another replica leads the loop and applies them`);
      else parts.push(`${changes} change(s) pending`);
    }
    if (drifted > 0) parts.push(`${drifted} object(s) changed through the API are kept (Drifted); serve with --self-heal restores them`);
    return parts.join('; ') || null;
  }

  private async pass(triggers: string[], signal: AbortSignal): Promise<PassRecord | null> {
    if (this.suspendedBy) {
      this.missedWhileSuspended = true;
      return null;
    }
    const startedAt = new Date();
    this.comparedInPass = false;
    this.loadedInPass = false;
    this.timings = { read_ms: 0, load_ms: 0, plan_ms: 0, apply_ms: 0 };
    const finish = (result: PassResult, extra: { error?: string | null; applied?: PassRecord['applied'] } = {}): PassRecord => {
      const finishedAt = new Date();
      const record: PassRecord = {
        started_at: startedAt.toISOString(),
        finished_at: finishedAt.toISOString(),
        duration_ms: finishedAt.getTime() - startedAt.getTime(),
        triggers,
        result,
        revision: this.revision,
        applied: extra.applied ?? null,
        files: this.loadedInPass ? { ...this.cache.stats } : null,
        timings: { ...this.timings },
        error: extra.error ?? null,
      };
      this.lastPass = record;
      this.passCount++;
      for (const listener of this.passListeners) {
        try {
          listener(record);
        } catch {
          // observers never break a pass
        }
      }
      const failed = result === 'invalid' || result === 'refused' || result === 'unreachable' || result === 'error';
      this.problem = failed ? { result, message: extra.error ?? result } : null;
      const level = failed ? 'warn' : 'info';
      if (result !== 'no_changes' || triggers.some((t) => t !== 'timer')) {
        this.log(level, `reconcile pass: ${result}${extra.error ? `: ${extra.error}` : ''}`, {
          result,
          triggers,
          revision: this.revision,
          duration_ms: record.duration_ms,
          ...(record.applied ? { applied: record.applied } : {}),
          ...(record.files ? { files_parsed: record.files.parsed, files_reused: record.files.reused } : {}),
          ...record.timings,
        });
      }
      return record;
    };

    try {
      let repository: RepositorySource;
      try {
        // a pass of the watch alone may re-read just the reported paths; every other pass lists everything
        repository = await this.timed('read_ms', () => this.source.open(signal, { full: triggers.some((t) => t !== 'watch') }));
      } catch (error) {
        if (signal.aborted) throw error;
        this.comparisonCurrent = false;
        const remote = this.source.remote();
        if (remote && !remote.reachable) {
          return finish('unreachable', { error: `the git remote is unreachable: ${remote.error ?? messageOf(error)}; retrying on the next tick, the live store is unchanged` });
        }
        throw error;
      }
      let read = await this.read(repository, signal);
      if (this.source.settles && (read.type === 'empty' || (read.type === 'planned' && deletesManaged(read.plans.loop)))) {
        // A folder may be half-written (an editor's save, a checkout): confirm deletions with a second read.
        await sleep(this.settleMs, undefined, { signal });
        read = await this.read(await this.source.open(signal, { full: true }), signal);
      }
      if (read.type === 'invalid') return finish('invalid', { error: this.invalidMessage(read.desired) });
      if (read.type === 'empty') {
        return finish('refused', {
          error: `revision ${shortRevision(this.revision)} holds no objects while the live store holds ${read.managed} objects applied from git (an empty or broken checkout?); nothing was applied (dqctl apply --allow-mass-delete empties the store on purpose)`,
        });
      }
      const { desired } = read;
      let plan = read.plans.loop;
      this.compare(read.plans, desired);

      for (let attempt = 1; ; attempt++) {
        const blocking = blockingFindings(plan);
        if (blocking.length > 0) {
          return finish('refused', { error: `the plan of revision ${shortRevision(this.revision)} is refused, nothing was applied: ${blocking[0].message}` });
        }
        if (nothingToApply(plan)) return finish('no_changes');
        if (!this.autoApply || !this.isLeader || this.suspendedBy) return finish('out_of_sync');
        if (plan.environment.switching && !this.switchEnvironment) {
          return finish('refused', { error: `nothing was applied: ${environmentSwitch(plan.environment, plan.namespace).message} (serve --switch-env)` });
        }
        signal.throwIfAborted();
        try {
          const result = await this.timed('apply_ms', () =>
            applyPlan(plan, this.store, {
              holder: `${this.actor} (reconcile)`,
              appliedBy: this.actor,
              lockTimeoutMs: this.lockTimeoutMs,
              switchEnvironment: this.switchEnvironment,
            }),
          );
          if (result.record) this.lastApplied = lastAppliedOf(result.record);
          // What is left (drift kept without --self-heal) is the new pending plan.
          this.compare(await this.plan(desired, signal), desired);
          return finish('applied', { applied: result.applied });
        } catch (error) {
          if (!(isDqError(error) && error.code === 'STALE_PLAN' && attempt < MAX_APPLY_ATTEMPTS)) throw error;
          // the API wrote between plan and apply: plan again against the new revision of the store
          const plans = await this.plan(desired, signal);
          plan = plans.loop;
          this.compare(plans, desired);
        }
      }
    } catch (error) {
      if (signal.aborted) return finish('aborted', { error: 'the loop stopped during the pass' });
      if (!this.comparedInPass) this.comparisonCurrent = false;
      return finish('error', { error: `${messageOf(error)}; retrying on the next trigger` });
    }
  }

  /** Loads and validates a revision and plans it; an empty revision is not planned while git objects are live. */
  private async read(
    repository: RepositorySource,
    signal: AbortSignal,
  ): Promise<{ type: 'invalid'; desired: DesiredState } | { type: 'empty'; managed: number } | { type: 'planned'; desired: DesiredState; plans: LivePlans }> {
    const desired = await this.load(repository, signal);
    if (errorCount(desired) > 0) return { type: 'invalid', desired };
    if (desired.objects.length === 0) {
      // Every file gone (dqctl.yaml too, so not even the namespace is the store's): never applied, whatever
      // namespace the objects in the store belong to.
      const managed = (await this.store.listSummaries()).filter((s) => s.managedBy === 'git').length;
      if (managed > 0) {
        this.comparisonCurrent = false;
        return { type: 'empty', managed };
      }
    }
    return { type: 'planned', desired, plans: await this.plan(desired, signal) };
  }

  /** Adds the time `work` takes to the pass's timings. */
  private async timed<T>(phase: keyof PassRecord['timings'], work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.timings[phase] += Math.round(performance.now() - started);
    }
  }

  private async load(repository: RepositorySource, signal: AbortSignal): Promise<DesiredState> {
    signal.throwIfAborted();
    const desired = await this.timed('load_ms', () => loadRepository(repository, { cache: this.cache, environment: this.environment }));
    this.loadedInPass = true;
    this.onLoaded?.(desired.repository.commit);
    signal.throwIfAborted();
    this.revision = desired.repository.commit;
    this.diagnostics = desired.diagnostics;
    if (errorCount(desired) > 0) this.comparisonCurrent = false;
    return desired;
  }

  private async plan(desired: DesiredState, signal: AbortSignal): Promise<LivePlans> {
    signal.throwIfAborted();
    // read when the pass reaches the store, not at its start: the embedded store's one connection may be held
    // by someone's transaction, and loading the files must not wait for it
    this.revisionSeenByPass = await this.store.revision().catch(() => this.revisionSeenByPass);
    const plans = await this.timed('plan_ms', () => planLiveForBoth(desired, this.store, this.selfHeal));
    signal.throwIfAborted();
    return plans;
  }

  /** The store revision the last comparison read (null before one). */
  private get comparedRevision(): number | null {
    return this.comparison ? this.comparison.plans.apply.store.revision : null;
  }

  /** A write nobody announced (another process's apply or API write) moved the store: compare again. */
  private async watchStore(): Promise<void> {
    if (this.watching || this.suspendedBy || this.flight.busy || this.flight.pending || this.comparedRevision === null) return;
    this.watching = true; // one read at a time: on a held embedded store a read waits, and ticks must not pile up
    try {
      const passesBefore = this.passCount;
      const revision = await this.store.revision().catch(() => null);
      // a pass that ran while the read was on its way may have written after it: that read is stale, the next tick reads again
      if (revision !== null && this.passCount === passesBefore && this.storeMoved(revision) && !this.flight.busy) void this.trigger('store changed');
    } finally {
      this.watching = false;
    }
  }

  /** Whether the store is at a revision no pass has seen yet (a pass that failed to compare still saw it). */
  private storeMoved(revision: number): boolean {
    return revision !== this.comparedRevision && revision !== this.revisionSeenByPass;
  }

  /**
   * Before answering with the comparison (status, pending plan): when the store moved since it, wait (at most
   * FRESHEN_WAIT_MS) for the pass that compares again, so an answer given right after a write already shows it.
   */
  private async freshen(): Promise<void> {
    if (this.suspendedBy || !this.started || this.stopped) return;
    if (this.comparedRevision === null) {
      // the first pass has not compared yet: wait a little for it rather than answer with nothing
      const running = this.flight.current;
      if (running) await Promise.race([running, sleep(FRESHEN_WAIT_MS)]);
      return;
    }
    const revision = await this.store.revision();
    if (!this.storeMoved(revision)) return;
    await Promise.race([this.trigger('store changed'), sleep(FRESHEN_WAIT_MS)]);
  }

  private compare(plans: LivePlans, desired: DesiredState): void {
    this.comparison = { at: new Date().toISOString(), plans, desired: desired.objects };
    this.comparisonCurrent = true;
    this.comparedInPass = true;
  }

  private invalidMessage(desired: DesiredState): string {
    const errors = errorCount(desired);
    const first = desired.diagnostics.find((d) => d.severity === 'error');
    const where = first?.range ? `${first.range.filename}:${first.range.start.line}:${first.range.start.column}: ` : '';
    return `revision ${shortRevision(desired.repository.commit)} has ${errors} validation error${errors === 1 ? '' : 's'} (first: ${where}${first?.summary ?? ''}); it was not applied, the live store keeps the last good state`;
  }
}

function deletesManaged(plan: Plan): boolean {
  return plan.changes.some((c) => c.action === 'delete');
}

function lastAppliedOf(record: ApplyRecord): NonNullable<ReconcileStatus['last_applied']> {
  return { revision: record.commit, applied_at: record.appliedAt, applied_by: record.appliedBy, store_revision: record.storeRevision };
}

function shortRevision(commit: string | null): string {
  return commit ? commit.slice(0, 12) : '(working folder)';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
