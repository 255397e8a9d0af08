/**
 * A FIFO counting semaphore: at most `limit` holders at once, the rest wait in arrival order. Waiting has no
 * time limit (a job queued behind long scans waits for them, it does not fail) but can be aborted.
 */
export class Slots {
  private used = 0;
  private readonly waiting: Array<{ grant: () => void }> = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.used < this.limit && this.waiting.length === 0) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.used++;
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(entry);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Takes a slot only if one is free now and nobody waits for one; never waits. */
  tryAcquire(): boolean {
    if (this.used >= this.limit || this.waiting.length > 0) return false;
    this.used++;
    return true;
  }

  release(): void {
    this.used--;
    const next = this.waiting.shift();
    if (next) next.grant();
  }
}
