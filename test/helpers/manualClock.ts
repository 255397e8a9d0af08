import type { Clock } from '../../src/model/index.js';

/**
 * A clock that moves only when the test advances it. `advance` fires what falls due, in time order (what falls
 * due at the same instant fires together, as two servers' timers would), and resolves once the work each firing
 * returned has ended, so the test asserts on what that time caused rather than sleeping and hoping.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly pending = new Set<{ when: number; fire: () => void | Promise<void> }>();
  private readonly onArm: Array<() => void> = [];

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  at(when: Date, fire: () => void | Promise<void>): () => void {
    const timer = { when: when.getTime(), fire };
    this.pending.add(timer);
    for (const armed of this.onArm.splice(0)) armed();
    return () => this.pending.delete(timer);
  }

  /** Resolves when the code under test next waits on this clock (arms a timer): it is waiting now. */
  nextWait(): Promise<void> {
    return new Promise((resolve) => this.onArm.push(resolve));
  }

  /** Moves the clock `ms` forward, firing what falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const due = [...this.pending].filter((t) => t.when <= target);
      if (due.length === 0) break;
      const when = Math.min(...due.map((t) => t.when));
      const firing = due.filter((t) => t.when === when);
      this.current = Math.max(this.current, when);
      for (const timer of firing) this.pending.delete(timer);
      await Promise.all(firing.map((timer) => timer.fire()));
    }
    this.current = target;
  }
}
