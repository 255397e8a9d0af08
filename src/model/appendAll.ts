/**
 * `target.push(...items)` without the spread: a spread passes every item as an argument on the call stack, and
 * throws "Maximum call stack size exceeded" past about 100,000 items (a document of 200,000 keys planned).
 */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** Math.max over any number of values (Math.max(...values) has the same stack limit); -Infinity when empty. */
export function maxOf(values: Iterable<number>): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max;
}

/** Math.min over any number of values; Infinity when empty. */
export function minOf(values: Iterable<number>): number {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min;
}
