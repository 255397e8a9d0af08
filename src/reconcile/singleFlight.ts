/**
 * One pass at a time. A trigger that arrives while a pass runs never starts a second one: every trigger that
 * arrives during a pass is folded into ONE more pass, started when the running one ends. So a burst of file
 * events, webhooks and ticks costs at most the running pass plus one, and the last change is always seen by
 * a pass that started after it.
 */
export class SingleFlight<R> {
  private running: Promise<void> | null = null;
  private controller: AbortController | null = null;
  private waiting: { reasons: string[]; waiters: Array<{ resolve(result: R | undefined): void; reject(error: unknown): void }> } = {
    reasons: [],
    waiters: [],
  };
  private stopped = false;

  /** `run` gets the reasons of the triggers it covers (in arrival order, duplicates removed) and a signal. */
  constructor(private readonly run: (reasons: string[], signal: AbortSignal) => Promise<R>) {}

  /**
   * Asks for a pass. Resolves with the result of the pass that covers this trigger (one that started after it),
   * or undefined when the loop stopped first; rejects if that pass threw.
   */
  trigger(reason: string): Promise<R | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    const promise = new Promise<R | undefined>((resolve, reject) => this.waiting.waiters.push({ resolve, reject }));
    if (!this.waiting.reasons.includes(reason)) this.waiting.reasons.push(reason);
    if (!this.running) this.startNext();
    return promise;
  }

  /** Whether a pass runs now. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** The running pass (settles when it ends, never rejects), or null. */
  get current(): Promise<void> | null {
    return this.running;
  }

  /** Whether triggers wait for the pass after the running one. */
  get pending(): boolean {
    return this.waiting.waiters.length > 0;
  }

  /** Aborts the running pass, waits for it to end and starts no other; pending triggers resolve with undefined. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.controller?.abort(new Error('the reconcile loop is stopping'));
    await this.running;
    const { waiters } = this.waiting;
    this.waiting = { reasons: [], waiters: [] };
    for (const waiter of waiters) waiter.resolve(undefined);
  }

  private startNext(): void {
    const batch = this.waiting;
    this.waiting = { reasons: [], waiters: [] };
    const controller = new AbortController();
    this.controller = controller;
    this.running = (async () => {
      try {
        const result = await this.run(batch.reasons, controller.signal);
        for (const waiter of batch.waiters) waiter.resolve(result);
      } catch (error) {
        for (const waiter of batch.waiters) waiter.reject(error);
      } finally {
        this.running = null;
        this.controller = null;
        if (!this.stopped && this.waiting.waiters.length > 0) this.startNext();
      }
    })();
  }
}
