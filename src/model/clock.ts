/**
 * The time that time-driven code reads and waits on, passed in through options so that tests drive it instead
 * of sleeping. Production code uses `systemClock`; a test passes a clock it advances by hand.
 */
export interface Clock {
  now(): Date;
  /**
   * Calls `fire` once the clock reaches `when` (at once when it has passed); returns the function that cancels
   * it. `fire` may return a promise: a test clock awaits it, so an advance ends when the work it caused ended.
   * `background: true` does not keep the process alive for it (a heartbeat, a periodic refresh).
   */
  at(when: Date, fire: () => void | Promise<void>, options?: { background?: boolean }): () => void;
}

/**
 * Node's timers wait 24.8 days at most, and a sleeping laptop stretches a long timeout: wait in short steps
 * and compare with the wall clock each time.
 */
const LONGEST_STEP_MS = 30_000;

export const systemClock: Clock = {
  now: () => new Date(),
  at(when, fire, options) {
    let timer: NodeJS.Timeout | undefined;
    const wait = () => {
      timer = setTimeout(step, Math.min(Math.max(0, when.getTime() - Date.now()), LONGEST_STEP_MS));
      if (options?.background) timer.unref();
    };
    // `fire` never runs inside `at` itself, even for a time already passed: callers may arm from their callback
    const step = () => (Date.now() >= when.getTime() ? void fire() : wait());
    wait();
    return () => clearTimeout(timer);
  },
};
