import type { JsonValue } from './json.js';

/**
 * A signed 64-bit integer read from the store exactly: a JS number while it is a safe integer (|n| < 2^53),
 * a bigint beyond. DQOps's hashes (check, table, column, data group, incident) use all 64 bits; a number would
 * round them. Both forms compare with `===` against themselves (a value is always in the same form), work as Map
 * keys, and the API's response serializer writes both as JSON integers without quotes, as DQOps serves them.
 */
export type Int64 = number | bigint;

/** The canonical form of a 64-bit integer from its decimal text (or a number or bigint). */
export function toInt64(value: string | number | bigint): Int64 {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  if (big > 9223372036854775807n || big < -9223372036854775808n) throw new RangeError(`${value} is not a signed 64-bit integer`);
  const small = Number(big);
  return Number.isSafeInteger(small) ? small : big;
}

/**
 * JSON text of a value whose numbers may be 64-bit integers: bigints are written as JSON integers, digit for
 * digit (JSON.stringify throws on them). For JSON that a database parses (PostgreSQL's jsonb keeps them exact).
 */
export function int64Json(value: unknown, space?: number): string {
  let marked = false;
  const text = JSON.stringify(
    value,
    (_key, v: unknown) => {
      if (typeof v !== 'bigint') return v;
      marked = true;
      return `\u0000int64:${v.toString()}\u0000`;
    },
    space,
  );
  return marked ? text.replace(/"\\u0000int64:(-?\d+)\\u0000"/g, '$1') : text;
}

/**
 * A 64-bit integer placed in a JSON model the API answers: the response serializer (fast-json-stringify, an
 * `integer` in the model's schema) writes a bigint as its digits. Never JSON.stringify such a model; see int64Json.
 */
export function int64InJson(value: Int64): JsonValue {
  return value as unknown as JsonValue;
}
