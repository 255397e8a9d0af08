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
  collector()?.();
}

/** The heap a load may add, garbage included, between two collections of garbageReleaser. */
const GROWTH_BYTES = 128 * 1024 * 1024;

/**
 * A function that collects the garbage whenever the heap has grown by GROWTH_BYTES since its last collection (and is
 * large), for a load that parses a large repository without a parse cache: it calls it after each spec shard it
 * writes (LoadOptions.collectGarbage). V8 otherwise lets such a heap grow to several times what it holds before it
 * collects (the parse's garbage, the specs' texts written to their shards): a first `apply` of 100,000 tables into
 * a new embedded store peaked during its load at 1.33 GiB, 1.22 GiB with these collections (a few, of 0.1-0.3 s
 * each, while the parse workers go on; measured by hand). Nothing is done below `largeHeapBytes`.
 */
export function garbageReleaser(growthBytes = GROWTH_BYTES, largeHeapBytes = LARGE_HEAP_BYTES): () => void {
  let after = 0;
  return () => {
    const used = getHeapStatistics().used_heap_size;
    if (used < largeHeapBytes || used < after + growthBytes) return;
    const gc = collector();
    if (!gc) return;
    gc();
    after = getHeapStatistics().used_heap_size;
  };
}

/** V8's `gc`, reached without a command-line flag (see releaseGarbageBeforeWrites); null where that is refused. */
function collector(): (() => void) | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as unknown;
      collect = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collect = null;
    }
  }
  return collect;
}
