import { fingerprint64 } from 'farmhash-modern';
import { toInt64, type Int64 } from './int64.js';

/**
 * DQOps's 64-bit hashes, computed as DQOps computes them (facts read in its source, no code copied): each part
 * hashed with FarmHash's Fingerprint64 of its UTF-8 bytes (Guava's `farmHashFingerprint64`), the parts combined
 * in order as Guava's `Hashing.combineOrdered` does (over the little-endian bytes of each hash: every result
 * byte times 37, xor the part's byte), the result read back little-endian and made non-negative as Java's
 * `Math.abs` does (so -2^63 stays itself). FarmHash's Fingerprint64 is a fixed, published function: the same
 * text gives the same hash on every platform, which is why DQOps can key rows by it.
 */

const MASK = (1n << 64n) - 1n;

/** Fingerprint64 of a text's UTF-8 bytes, as a signed 64-bit integer (Java's long). */
export function fingerprintText(text: string): bigint {
  return BigInt.asIntN(64, fingerprint64(Buffer.from(text, 'utf8')));
}

/** Fingerprint64 of a long's 8 little-endian bytes (Guava's `hashLong`). */
export function fingerprintLong(value: bigint): bigint {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(BigInt.asIntN(64, value));
  return BigInt.asIntN(64, fingerprint64(bytes));
}

/** Guava's `combineOrdered` of 64-bit hash codes, as a signed 64-bit integer. */
export function combineOrdered(hashes: readonly bigint[]): bigint {
  if (hashes.length === 0) throw new RangeError('combineOrdered needs at least one hash');
  const result = new Uint8Array(8);
  const bytes = Buffer.alloc(8);
  for (const hash of hashes) {
    bytes.writeBigUInt64LE(hash & MASK);
    for (let i = 0; i < 8; i++) result[i] = ((result[i] * 37) ^ bytes[i]) & 0xff;
  }
  return Buffer.from(result).readBigInt64LE();
}

/** Java's `Math.abs` of a long: -2^63 stays negative. */
function javaAbs(value: bigint): bigint {
  return value < 0n && value !== -(1n << 63n) ? -value : value;
}

/** The hash of the texts in order (nulls left out), non-negative as DQOps keeps its hashes; null when no text is left. */
export function dqopsHashOf(parts: ReadonlyArray<string | null | undefined>): Int64 | null {
  const present = parts.filter((part): part is string => part !== null && part !== undefined);
  if (present.length === 0) return null;
  return toInt64(javaAbs(combineOrdered(present.map(fingerprintText))));
}

/**
 * A UUID as Java's `new UUID(mostSignificantBits, leastSignificantBits).toString()` writes it: the two longs as
 * 16 hex digits each, grouped 8-4-4-4-12. DQOps's row and incident ids are such UUIDs made of hashes.
 */
export function uuidOfLongs(most: bigint, least: bigint): string {
  const hex = (v: bigint) => BigInt.asUintN(64, v).toString(16).padStart(16, '0');
  const all = hex(most) + hex(least);
  return `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20)}`;
}

/**
 * The hash of a node of DQOps's metadata tree from the path of names that reaches it (its hierarchy id, e.g.
 * `connections/<name>/spec`), as DQOps's connection, table, column and check hashes are made: each name
 * fingerprinted, combined in order, non-negative, and never Long.MAX_VALUE (DQOps moves that one down by one).
 */
export function hierarchyHash(path: readonly string[]): bigint {
  const hash = javaAbs(combineOrdered(path.map(fingerprintText)));
  return hash === (1n << 63n) - 1n ? hash - 1n : hash;
}

/**
 * A local date-time as the 64-bit value DQOps hashes into a row's id (its table library's packed form): the date
 * as year << 16 | month << 8 | day in the high 32 bits, the time as hour << 24 | minute << 16 | millisecond of
 * the minute in the low 32 bits. `localIso` is `YYYY-MM-DDTHH:MM:SS[.fff…]` (wall time, no zone).
 */
export function packedLocalDateTime(localIso: string): bigint {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/.exec(localIso);
  if (!m) throw new RangeError(`not a local date-time: ${localIso}`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const date = (year << 16) | (month << 8) | day;
  const time = (hour << 24) | (minute << 16) | (second * 1000 + millis);
  return (BigInt(date) << 32n) | BigInt(time >>> 0);
}
