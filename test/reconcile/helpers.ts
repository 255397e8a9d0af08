import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '../../src/model/index.js';
import type { PassRecord } from '../../src/reconcile/status.js';
import type { Store } from '../../src/store/store.js';
import { EXAMPLE } from '../helpers/cli.js';

/** Shared pieces of the reconcile tests: a copy of examples/shop, edits of one table, reads of the live store. */
export const ORDERS_FILE = 'sources/shop_oltp/public.orders.dqotable.yaml';
export const ORDERS = { kind: 'table' as const, name: 'shop_oltp/public.orders' };

export async function exampleCopy(prefix = 'dqctl-reconcile-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await cp(EXAMPLE, dir, { recursive: true });
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Sets `spec.priority` of the orders table in its file. */
export async function setOrdersPriority(dir: string, priority: number): Promise<void> {
  const file = join(dir, ORDERS_FILE);
  const text = await readFile(file, 'utf8');
  const next = text.replace(/^ {2}priority: \d+$/m, `  priority: ${priority}`);
  if (next === text && !text.includes(`  priority: ${priority}\n`)) throw new Error('no priority line in the orders file');
  await writeFile(file, next);
}

export async function livePriority(store: Store): Promise<JsonValue | undefined> {
  const [orders] = await store.getObjects([ORDERS]);
  return orders?.spec.priority;
}

/** Polls `check` until it returns true (or throws after `timeoutMs`), returning the time it took. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = 'the condition'): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until no pass runs or waits (a write reaches the store a moment before its pass is recorded). */
export async function idle(loop: { status(): Promise<{ pass_running: boolean; pass_queued: boolean; last_pass: unknown }> }, timeoutMs = 10_000): Promise<void> {
  await waitFor(async () => {
    const status = await loop.status();
    return status.last_pass !== null && !status.pass_running && !status.pass_queued;
  }, timeoutMs, 'the loop to be idle');
}

export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A reconcile loop's triggers as they arrive (pass `onTrigger` in its options): `next(reason)` resolves at the
 * next trigger of that reason, with the promise of the pass that covers it.
 */
export function triggersOf(): {
  onTrigger(reason: string, covered: Promise<PassRecord | null | undefined>): void;
  next(reason: string): Promise<{ covered: Promise<PassRecord | null | undefined> }>;
} {
  let waiting: Array<{ reason: string; resolve(value: { covered: Promise<PassRecord | null | undefined> }): void }> = [];
  return {
    onTrigger(reason, covered) {
      for (const waiter of waiting.filter((w) => w.reason === reason)) waiter.resolve({ covered });
      waiting = waiting.filter((w) => w.reason !== reason);
    },
    next(reason) {
      return new Promise((resolve) => waiting.push({ reason, resolve }));
    },
  };
}
