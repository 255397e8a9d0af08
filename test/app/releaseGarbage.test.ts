/**
 * The collections a large load asks for as its heap grows (src/app/releaseGarbage.ts): garbage is freed once the
 * heap has grown by the step since the last collection, and never while the heap is below the size that is worth it.
 */
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { garbageReleaser } from '../../src/app/releaseGarbage.js';

const MB = 1024 * 1024;

/** About 40 MB of strings, dropped: garbage until the next collection. */
function makeGarbage(): void {
  let garbage: string[] | null = Array.from({ length: 160_000 }, (_, i) => `${i} ${'x'.repeat(240)}`);
  expect(garbage.length).toBe(160_000);
  garbage = null;
}

describe('garbageReleaser', () => {
  it('collects the garbage once the heap has grown by its step since its last collection', () => {
    const release = garbageReleaser(8 * MB, 0);
    makeGarbage();
    const before = getHeapStatistics().used_heap_size;
    release();
    expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 20 * MB);
  });

  it('leaves a heap below its size, or grown by less than its step, to V8', () => {
    const small = garbageReleaser(8 * MB, Number.MAX_SAFE_INTEGER);
    makeGarbage();
    const before = getHeapStatistics().used_heap_size;
    small();
    expect(getHeapStatistics().used_heap_size).toBeGreaterThan(before - 20 * MB);

    const release = garbageReleaser(1024 * MB, 0);
    release(); // below 1 GB: nothing collected
    makeGarbage();
    const grown = getHeapStatistics().used_heap_size;
    release();
    expect(getHeapStatistics().used_heap_size).toBeGreaterThan(grown - 20 * MB);
  });
});
