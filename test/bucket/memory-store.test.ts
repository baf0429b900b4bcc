import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';

const policy = { capacity: 10, refillPerSecond: 10 };

describe('MemoryBucketStore', () => {
  it('refills continuously on the injected clock and answers like the Redis store', async () => {
    let now = 5_000;
    const store = new MemoryBucketStore({ now: () => now });
    expect(await store.consume('a', 10, policy)).toEqual({
      allowed: true,
      cost: 10,
      remaining: 0,
      capacity: 10,
      retryAfterMs: 0,
      resetAfterMs: 1000,
    });
    now += 50;
    expect(await store.consume('a', 1, policy)).toEqual({
      allowed: false,
      cost: 1,
      remaining: 0.5,
      capacity: 10,
      retryAfterMs: 50,
      resetAfterMs: 950,
    });
    expect(await store.consume('a', 11, policy)).toMatchObject({ allowed: false, retryAfterMs: -1, remaining: 0.5 });
    now += 50;
    expect(await store.consume('a', 1, policy)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await store.refund('a', 25, policy)).toMatchObject({
      allowed: true,
      cost: 25,
      remaining: 10,
      resetAfterMs: 0,
    });
    expect(store.size).toBe(0);
  });

  it('drops full buckets: 100k callers leave no key once they have refilled', async () => {
    let now = 0;
    const store = new MemoryBucketStore({ now: () => now, sweepIntervalMs: 20 });
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < 100_000; i++) batch.push(store.consume(`caller-${i}`, 3, policy));
    await Promise.all(batch);
    expect(store.size).toBe(100_000);
    now += 299;
    await new Promise((r) => setTimeout(r, 60));
    expect(store.size).toBe(100_000);
    now += 1;
    const deadline = Date.now() + 2000;
    while (store.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(store.size).toBe(0);
  });

  it('holds maxKeys buckets and remembers what an evicted one owes', async () => {
    let now = 0;
    const store = new MemoryBucketStore({ now: () => now, maxKeys: 3 });
    await store.consume('a', 5, policy); // full again in 500 ms
    await store.consume('b', 2, policy); // 200 ms: owes least
    await store.consume('c', 8, policy); // 800 ms
    await store.peek('a', policy);
    await store.consume('d', 6, policy); // one too many: b leaves the table, its debt is remembered
    expect(store.size).toBe(3);
    expect((await store.peek('b', policy)).remaining).toBe(8);
    expect((await store.peek('a', policy)).remaining).toBe(5);
    expect((await store.peek('c', policy)).remaining).toBe(2);
    expect((await store.peek('d', policy)).remaining).toBe(4);
    // b spends again: back in the table, where a (owing least now) makes room for it.
    expect(await store.consume('b', 1, policy)).toMatchObject({ allowed: true, remaining: 7 });
    expect(store.size).toBe(3);
    expect((await store.peek('a', policy)).remaining).toBe(5);
    // An evicted debt refills as a held one does, and is forgotten once refilled.
    now += 500;
    expect((await store.peek('a', policy)).remaining).toBe(10);
    expect((await store.peek('b', policy)).remaining).toBe(10);
    expect(await store.consume('e', 1, policy)).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('keeps an emptied bucket through a flood of 2 × maxKeys fresh identities', async () => {
    let now = 1000;
    const maxKeys = 1000;
    const store = new MemoryBucketStore({ now: () => now, maxKeys });
    const slow = { capacity: 100, refillPerSecond: 1 };
    expect(await store.consume('victim', 100, slow)).toMatchObject({ allowed: true, remaining: 0 });
    for (let i = 0; i < 2 * maxKeys; i++) {
      now += 1;
      expect((await store.consume(`flood-${i}`, 3, slow)).allowed).toBe(true);
    }
    expect(store.size).toBe(maxKeys);
    // 2 s later: 2 tokens back, not 100.
    expect(await store.consume('victim', 10, slow)).toMatchObject({ allowed: false, remaining: 2 });
    // The oldest identities left the table first (they owed least), and are remembered until refilled.
    expect((await store.peek('flood-0', slow)).remaining).toBeCloseTo(99, 2);
    expect((await store.peek(`flood-${2 * maxKeys - 1}`, slow)).remaining).toBe(97);
    now += 3000;
    expect((await store.peek('flood-0', slow)).remaining).toBe(100);
  });

  it('reads its clock in whole µs, as Redis does: integer costs leave integer tokens', async () => {
    let now = 1234.5678913;
    const store = new MemoryBucketStore({ now: () => now });
    const big = { capacity: 1000, refillPerSecond: 1 };
    expect((await store.consume('a', 10, big)).remaining).toBe(990);
    now += 0.0003; // 0.3 µs: the same µs
    expect((await store.consume('a', 10, big)).remaining).toBe(980);
    now += 0.0004; // into the next µs: 1 µs of refill
    expect((await store.peek('a', big)).remaining).toBe(980.000001);
  });

  it('keeps buckets that never refill until refunded', async () => {
    const now = 0;
    const store = new MemoryBucketStore({ now: () => now, sweepIntervalMs: 10 });
    const noRefill = { capacity: 3, refillPerSecond: 0 };
    await store.consume('z', 2, noRefill);
    await new Promise((r) => setTimeout(r, 40));
    expect(await store.consume('z', 2, noRefill)).toMatchObject({
      allowed: false,
      remaining: 1,
      retryAfterMs: -1,
      resetAfterMs: -1,
    });
    expect(store.size).toBe(1);
    await store.refund('z', 2, noRefill);
    expect(store.size).toBe(0);
  });

  it('meets any deadline and validates options and arguments', async () => {
    const store = new MemoryBucketStore();
    expect((await store.consume('a', 1, policy, { timeoutMs: 1 })).allowed).toBe(true);
    await expect(store.consume('a', 1, policy, { timeoutMs: -5 })).rejects.toThrow(
      new RangeError('options.timeoutMs must be a finite number > 0, got -5'),
    );
    await expect(store.consume('a', 1, policy, { timeoutMs: 2 ** 31 })).rejects.toThrow(
      new RangeError('options.timeoutMs must be at most 2147483647 (about 24.8 days), got 2147483648'),
    );
    await expect(store.consume('a', 1, { capacity: -1, refillPerSecond: 1 })).rejects.toThrow(
      new RangeError('policy.capacity must be a finite number > 0, got -1'),
    );
    await expect(store.consume('a', 1, null as unknown as typeof policy)).rejects.toThrow(TypeError);
    expect(() => new MemoryBucketStore({ maxKeys: 0 })).toThrow(
      new RangeError('options.maxKeys must be an integer >= 1, got 0'),
    );
    expect(() => new MemoryBucketStore({ maxKeys: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryBucketStore({ now: 5 as unknown as () => number })).toThrow(/options\.now/);
    expect(() => new MemoryBucketStore({ sweepIntervalMs: Number.NaN })).toThrow(/options\.sweepIntervalMs/);
  });
});
