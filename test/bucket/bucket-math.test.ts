import { describe, expect, it } from 'vitest';
import { bucketStep, snapMissing } from '../../src/bucket/bucket-math.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';

// The arithmetic both stores share (src/bucket/bucket-math.ts), where the stores' answers alone
// cannot tell: the rounding bound, the statuses the Redis reply decoding shares, and what the
// in-process store keeps.

describe('snapMissing', () => {
  it('takes missing tokens up to half a µs of refill (at most 0.001 token) from a whole number as that number, bound included', () => {
    // At 2000/s half a µs refills exactly 0.001 token: 2 ticks of 0.25 µs short of full reads as full.
    expect(snapMissing((2 * 2000) / 4_000_000, 2000)).toBe(0);
    expect(snapMissing(0.001, 2000)).toBe(0);
    expect(snapMissing(7.0004, 2000)).toBe(7);
    expect(snapMissing(6.9996, 2000)).toBe(7);
    expect(snapMissing(7.002, 2000)).toBe(7.002);
    // At 1/s the radius is 5e-7 token.
    expect(snapMissing(3 + 4e-7, 1)).toBe(3);
    expect(snapMissing(3 + 6e-7, 1)).toBe(3 + 6e-7);
    // Above 2000/s the radius stays 0.001 token.
    expect(snapMissing(1.0015, 1e6)).toBe(1.0015);
  });
});

describe('bucketStep', () => {
  const policy = { capacity: 10, refillPerSecond: 1 };

  it("answers a cost above the capacity with the script's 'never' status, and one that must wait with 'denied'", () => {
    expect(bucketStep(undefined, 'consume', 11, policy, 1_000_000).reply).toMatchObject({
      status: 'never',
      retryUs: -1,
    });
    const empty = bucketStep(undefined, 'consume', 10, policy, 1_000_000).state;
    expect(bucketStep(empty, 'consume', 2, policy, 1_000_000).reply).toMatchObject({
      status: 'denied',
      retryUs: 2_000_000,
    });
    expect(bucketStep(empty, 'consume', 2, policy, 1_000_000).write).toBe(false);
  });
});

describe('what MemoryBucketStore keeps', () => {
  const policy = { capacity: 10, refillPerSecond: 10 };

  it('drops a bucket that a read finds refilled, and one a refund fills', async () => {
    let now = 1_000;
    const store = new MemoryBucketStore({ now: () => now });
    await store.consume('read', 5, policy);
    await store.consume('refunded', 5, policy);
    expect(store.size).toBe(2);
    // 'refunded' gets its 5 back at once: full, not kept.
    expect(await store.refund('refunded', 5, policy)).toMatchObject({ remaining: 10, resetAfterMs: 0 });
    expect(store.size).toBe(1);
    // 'read' is full again 500 ms later: a peek then, or a refused consume, finds it full and drops it.
    now += 500;
    expect(await store.peek('read', policy)).toMatchObject({ remaining: 10, resetAfterMs: 0 });
    expect(store.size).toBe(0);
    await store.consume('read', 5, policy);
    now += 500;
    expect(await store.consume('read', 11, policy)).toMatchObject({ allowed: false, remaining: 10 });
    expect(store.size).toBe(0);
  });

  it('keeps a refused bucket as it was', async () => {
    let now = 1_000;
    const store = new MemoryBucketStore({ now: () => now });
    await store.consume('k', 9, policy);
    now += 100;
    expect(await store.consume('k', 5, policy)).toMatchObject({ allowed: false, remaining: 2, retryAfterMs: 300 });
    expect(store.size).toBe(1);
    now += 300;
    expect(await store.consume('k', 5, policy)).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
  });
});
