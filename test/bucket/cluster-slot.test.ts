import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusterSlot } from '../../src/bucket/cluster-slot.js';

/** The Redis Cluster specification's algorithm, literally, over the UTF-8 bytes ioredis sends. */
function referenceSlot(key: string): number {
  let bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) bytes = bytes.subarray(open + 1, close);
  }
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('clusterSlot', () => {
  it("matches the Redis Cluster specification's examples", () => {
    // CRC16 check value of the spec ("123456789" → 0x31C3) and hash tags.
    expect(clusterSlot('123456789')).toBe(0x31c3 % 16384);
    expect(clusterSlot('{user1000}.following')).toBe(clusterSlot('user1000'));
    expect(clusterSlot('{user1000}.followers')).toBe(clusterSlot('user1000'));
    expect(clusterSlot('foo{}{bar}')).toBe(referenceSlot('foo{}{bar}'));
    expect(clusterSlot('foo{}{bar}')).not.toBe(clusterSlot('bar'));
    expect(clusterSlot('foo{{bar}}zap')).toBe(clusterSlot('{bar'));
    expect(clusterSlot('foo{bar}{zap}')).toBe(clusterSlot('bar'));
    expect(clusterSlot('gb:k:alice')).toBe(11609);
  });

  it('agrees with the reference for any string, non-ASCII and lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.constantFrom('{', '}', 'a', 'é', '😀', '\ud800', '\udc00') }),
        ),
        (key) => {
          expect(clusterSlot(key)).toBe(referenceSlot(key));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
