/**
 * The charge one bucket (or one Cluster slot) after another, with give-back: what a store without
 * an atomic consumeAll gets, and what a Redis Cluster does across slots. Run over a
 * MemoryBucketStore whose calls can be made to fail, so every failure path is exercised.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { consumeInOrder } from '../../src/bucket/multi-charge.js';
import type { BucketLimit, BucketStore } from '../../src/bucket/types.js';

const OWN = { capacity: 10, refillPerSecond: 0 };
const SHARED = { capacity: 4, refillPerSecond: 0 };
const limits: BucketLimit[] = [
  { key: 'own', policy: OWN },
  { key: 'own-hour', policy: OWN },
  { key: 'shared', policy: SHARED },
];

/** A memory store whose calls for the keys in `failing[op]` throw, counting every call. */
function faulty(failing: Partial<Record<'consume' | 'refund' | 'peek', string[]>> = {}) {
  const memory = new MemoryBucketStore();
  const calls: string[] = [];
  const fail = (op: 'consume' | 'refund' | 'peek', key: string) => {
    calls.push(`${op} ${key}`);
    if (failing[op]?.includes(key)) throw new Error(`${op} ${key} failed`);
  };
  const store: Pick<BucketStore, 'consume' | 'refund' | 'peek'> = {
    consume: async (key, cost, policy) => {
      fail('consume', key);
      return memory.consume(key, cost, policy);
    },
    refund: async (key, amount, policy) => {
      fail('refund', key);
      return memory.refund(key, amount, policy);
    },
    peek: async (key, policy) => {
      fail('peek', key);
      return memory.peek(key, policy);
    },
  };
  const left = async () => Promise.all(limits.map((limit) => memory.peek(limit.key, limit.policy)));
  return { store, memory, calls, left: async () => (await left()).map((r) => r.remaining) };
}

describe('consumeInOrder', () => {
  it('charges in the order given and answers as consumeAll does when every bucket pays', async () => {
    const { store, calls, left } = faulty();
    const result = await consumeInOrder(store, limits, 3);
    expect(result).toMatchObject({ allowed: true, retryAfterMs: 0, binding: 2 });
    expect(calls).toEqual(['consume own', 'consume own-hour', 'consume shared']);
    expect(await left()).toEqual([7, 7, 1]);
    const atomic = new MemoryBucketStore();
    expect(await atomic.consumeAll(limits, 3)).toEqual(result);
  });

  it('gives the earlier takes back when a later bucket denies, and reads the ones after it', async () => {
    const { store, calls, left } = faulty();
    const denied = await consumeInOrder(store, [limits[0], limits[2], limits[1]] as BucketLimit[], 5);
    expect(calls).toEqual(['consume own', 'consume shared', 'refund own', 'peek own-hour']);
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: -1, binding: 1 });
    expect(denied.results.map((r) => [r.allowed, r.cost, r.remaining])).toEqual([
      [true, 5, 10],
      [false, 5, 4],
      [true, 5, 10],
    ]);
    expect(await left()).toEqual([10, 10, 4]);
  });

  it('gives the earlier takes back and passes the failure on when a later charge fails', async () => {
    const { store, left } = faulty({ consume: ['shared'] });
    await expect(consumeInOrder(store, limits, 2)).rejects.toThrow('consume shared failed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await left()).toEqual([10, 10, 4]);
  });

  it('keeps a denial a denial when a give-back or a read fails', async () => {
    // The give-back of "own" fails: it stays charged (the caller pays; nothing is admitted).
    const { store, left } = faulty({ refund: ['own'], peek: ['own-hour'] });
    const denied = await consumeInOrder(store, [limits[0], limits[2], limits[1]] as BucketLimit[], 5);
    expect(denied).toMatchObject({ allowed: false, binding: 1, retryAfterMs: -1 });
    // "own" as its charge left it; "own-hour", which could not be read, reported full.
    expect(denied.results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 5],
      [false, 4],
      [true, 10],
    ]);
    expect(await left()).toEqual([5, 10, 4]);
  });
});
