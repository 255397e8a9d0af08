import { describe, expect, it } from 'vitest';
import { combineOrdered, dqopsHashOf, fingerprintLong, fingerprintText, uuidOfLongs } from '../../src/model/index.js';

/**
 * DQOps's hashes: FarmHash Fingerprint64 (published test vectors of the function, the same in Guava's and
 * FarmHash's own tests), Guava's combineOrdered (computed by hand on small values), Java's UUID text.
 */
describe('DQOps hashes', () => {
  it('fingerprints text as FarmHash Fingerprint64 does (published vectors), as a signed long', () => {
    expect(BigInt.asUintN(64, fingerprintText(''))).toBe(0x9ae16a3b2f90404fn);
    expect(BigInt.asUintN(64, fingerprintText('a'))).toBe(0xb3454265b6df75e3n);
    expect(BigInt.asUintN(64, fingerprintText('abc'))).toBe(0x24a5b3a074e7f369n);
    expect(BigInt.asUintN(64, fingerprintText('0123456789'))).toBe(0xad052244b781c4ebn);
    // the signed form Java's long holds: 0x9ae1… has its top bit set
    expect(fingerprintText('')).toBe(0x9ae16a3b2f90404fn - (1n << 64n));
    // UTF-8 bytes of the text: 'é' is two bytes, not the one of Latin-1
    expect(fingerprintText('é')).not.toBe(fingerprintText('\u00e9'.normalize('NFD')));
  });

  it('fingerprints a long through its 8 little-endian bytes', () => {
    // the long 0x61 ('a' and 7 zero bytes) is not the text 'a' (one byte)
    expect(fingerprintLong(0x61n)).not.toBe(fingerprintText('a'));
    expect(fingerprintLong(0x61n)).toBe(fingerprintLong(0x61n));
  });

  it('combines hashes in order as Guava does, byte by byte (times 37, xor)', () => {
    // one hash: 0 * 37 ^ b = b, the hash itself
    expect(combineOrdered([123456789n])).toBe(123456789n);
    // [1, 2]: lowest byte (0*37 ^ 1) * 37 ^ 2 = 37 ^ 2 = 39; the other bytes stay 0
    expect(combineOrdered([1n, 2n])).toBe(39n);
    // [2, 1]: 2 * 37 ^ 1 = 74 ^ 1 = 75: the order matters
    expect(combineOrdered([2n, 1n])).toBe(75n);
    // [0x100, 0x100]: the second byte: (1*37) ^ 1 = 36, so 36 << 8
    expect(combineOrdered([0x100n, 0x100n])).toBe(36n << 8n);
    // every byte 0xff, twice: (0xff*37 mod 256) ^ 0xff = 0xdb ^ 0xff = 0x24 in every byte
    expect(combineOrdered([-1n, -1n])).toBe(0x2424242424242424n);
  });

  it('keeps non-null parts, and answers the absolute value (Java Math.abs)', () => {
    const [a, b] = [fingerprintText('shop'), fingerprintText('public')];
    const combined = combineOrdered([a, b]);
    const expected = combined < 0n ? -combined : combined;
    expect(BigInt(dqopsHashOf(['shop', null, 'public', undefined])!)).toBe(expected);
    expect(dqopsHashOf([null])).toBeNull();
  });

  it("writes two longs as Java's UUID text", () => {
    expect(uuidOfLongs(0x0123456789abcdefn, -1n)).toBe('01234567-89ab-cdef-ffff-ffffffffffff');
    expect(uuidOfLongs(0n, 1n)).toBe('00000000-0000-0000-0000-000000000001');
  });
});
