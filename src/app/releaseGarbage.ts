import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this heap, a collection before the writes is not worth its pause (a repository of a few thousand tables). */
const LARGE_HEAP_BYTES = 384 * 1024 * 1024;

let collect: (() => void) | null | undefined;

/**
 * One full garbage collection between a large plan and its writes. V8 sizes the heap from the last collection, which
 * at 100,000 tables falls during the plan's load: the plan's and the rendering's garbage (hundreds of MB) then stays
 * in the heap through the writes, and the heap grows again on top of it (peak RSS of an apply into a new embedded
 * store: 1.58 GiB; with this collection 1.26 GiB, measured). `gc` is reached without a command-line flag (V8's
 * --expose-gc set at run time is seen by a new context); where that is refused, nothing is done. A pause of a
 * fraction of a second, only when the heap is large.
 */
export function releaseGarbageBeforeWrites(): void {
  if (getHeapStatistics().used_heap_size < LARGE_HEAP_BYTES) return;
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as unknown;
      collect = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collect = null;
    }
  }
  collect?.();
}
