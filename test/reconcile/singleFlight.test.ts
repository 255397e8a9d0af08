import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/reconcile/singleFlight.js';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('SingleFlight: one pass at a time, triggers during a pass coalesce into one more', () => {
  it('many triggers during one slow pass cause exactly one more pass, which every one of them waits for', async () => {
    const passes: string[][] = [];
    const gates = [gate(), gate()];
    let running = 0;
    let maxRunning = 0;
    const flight = new SingleFlight(async (reasons) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      passes.push(reasons);
      const index = passes.length - 1;
      if (gates[index]) await gates[index].promise;
      running--;
      return index;
    });
    const first = flight.trigger('start');
    expect(flight.busy).toBe(true);
    const during = Array.from({ length: 50 }, (_, i) => flight.trigger(i % 2 === 0 ? 'watch' : 'webhook'));
    expect(flight.pending).toBe(true);
    gates[0].open();
    expect(await first).toBe(0);
    gates[1].open();
    expect(new Set(await Promise.all(during))).toEqual(new Set([1]));
    expect(passes).toEqual([['start'], ['watch', 'webhook']]);
    expect(maxRunning).toBe(1);
    expect(flight.busy).toBe(false);
    // after the burst, a new trigger is a new pass
    expect(await flight.trigger('timer')).toBe(2);
  });

  it('a pass that throws rejects its waiters and the loop goes on', async () => {
    let calls = 0;
    const flight = new SingleFlight(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return calls;
    });
    await expect(flight.trigger('a')).rejects.toThrow('boom');
    expect(await flight.trigger('b')).toBe(2);
  });

  it('stop aborts the running pass, waits for it, and resolves pending triggers with undefined', async () => {
    let sawAbort = false;
    const flight = new SingleFlight(async (_reasons, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      sawAbort = signal.aborted;
      return 'stopped';
    });
    const running = flight.trigger('start');
    const queued = flight.trigger('watch');
    await flight.stop();
    expect(sawAbort).toBe(true);
    expect(await running).toBe('stopped');
    expect(await queued).toBeUndefined();
    expect(await flight.trigger('late')).toBeUndefined();
  });
});
