import type { Leadership, Store } from '../store/store.js';

/**
 * Which `serve` replica reconciles: the one holding the store's reconcile leadership (a PostgreSQL session
 * advisory lock, store.tryLeadership). The others try again every interval, so when the leader dies (its
 * session ends with it) one of them takes over within one interval. On PGlite there is one process: it leads.
 * Every replica keeps serving the API; only the leader applies.
 */
export interface LeaderElectionOptions {
  store: Store;
  /** How often a follower tries to take over (the reconcile interval). */
  retryMs: number;
  /** How often the leader's session is probed to notice that it died (default min(retryMs, 2 s)). */
  probeMs?: number;
  /** Called when this replica becomes the leader (true) or stops being it (false). */
  onChange: (leader: boolean) => void;
  /** While leading: a request another replica handed to the leader (Store.requestLeader), e.g. a webhook it got. */
  onRequest?: (payload: string) => void;
  onError?: (error: unknown) => void;
}

export class LeaderElection {
  private leadership: Leadership | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private attempt: Promise<void> | null = null;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leadership !== null;
  }

  /** Tries at once, then every retryMs while not the leader. */
  async start(): Promise<void> {
    await this.tryNow();
    this.timer = setInterval(() => void this.tryNow(), this.options.retryMs);
  }

  /** One attempt (no-op while leading or while an attempt runs). */
  tryNow(): Promise<void> {
    if (this.stopped || this.leadership) return Promise.resolve();
    this.attempt ??= this.attemptOnce().finally(() => {
      this.attempt = null;
    });
    return this.attempt;
  }

  private async attemptOnce(): Promise<void> {
    let leadership: Leadership | null;
    try {
      leadership = await this.options.store.tryLeadership('reconcile', {
        probeMs: this.options.probeMs ?? Math.min(this.options.retryMs, 2_000),
        ...(this.options.onRequest ? { onRequest: this.options.onRequest } : {}),
      });
    } catch (error) {
      this.options.onError?.(error); // the store is unreachable: try again on the next interval
      return;
    }
    if (!leadership) return;
    if (this.stopped) {
      await leadership.release();
      return;
    }
    this.leadership = leadership;
    void leadership.lost.then(() => {
      if (this.leadership !== leadership) return;
      this.leadership = null;
      this.options.onChange(false);
    });
    this.options.onChange(true);
  }

  /** Gives leadership up (another replica takes over on its next try). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.attempt;
    const held = this.leadership;
    this.leadership = null;
    await held?.release();
  }
}
