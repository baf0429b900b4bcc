import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisBucketStore } from '../../src/index.js';
import { runWorkers } from './worker-pool.js';

const PROCESSES = 8;
const IN_FLIGHT = 64;

// The store batches the consumes of each process (its default): every script call carries many of them.
describe(`RedisBucketStore exactness: ${PROCESSES} processes × ${IN_FLIGHT} consumes in flight on one key`, () => {
  const url = `redis://127.0.0.1:${inject('redisPort')}`;
  const prefix = `exact-${randomUUID().slice(0, 8)}:`;
  let admin: Redis;
  let store: RedisBucketStore;

  beforeAll(() => {
    admin = new Redis(url);
    store = new RedisBucketStore(admin, { prefix });
  });
  afterAll(() => admin.disconnect());

  /** Redis server time in seconds (µs resolution). */
  const redisTime = async (): Promise<number> => {
    const [seconds, micros] = await admin.time();
    return Number(seconds) + Number(micros) / 1e6;
  };

  it('without refill admits exactly floor(capacity / cost) and takes nothing from denied calls', async () => {
    const policy = { capacity: 1000, refillPerSecond: 0 };
    const key = 'no-refill';
    const tallies = await runWorkers(PROCESSES, {
      url,
      prefix,
      key,
      cost: 3,
      policy,
      inFlight: IN_FLIGHT,
      maxCalls: 150,
      durationMs: 20_000,
    });
    const admitted = tallies.reduce((sum, t) => sum + t.admitted, 0);
    const denied = tallies.reduce((sum, t) => sum + t.denied, 0);
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    expect(admitted).toBe(333);
    expect(admitted + denied).toBe(PROCESSES * 150);
    const after = await store.peek(key, policy);
    expect(after.remaining).toBeCloseTo(1, 6);
  }, 60_000);

  it('with mixed costs never loses or invents a token', async () => {
    const policy = { capacity: 2003, refillPerSecond: 0 };
    const key = 'mixed';
    const tallies = await runWorkers(PROCESSES, {
      url,
      prefix,
      key,
      cost: 1,
      costs: [3, 1, 5, 2, 4],
      policy,
      inFlight: IN_FLIGHT,
      maxCalls: 150,
      durationMs: 20_000,
    });
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    const admittedCost = tallies.reduce((sum, t) => sum + t.admittedCost, 0);
    const after = await store.peek(key, policy);
    expect(admittedCost + after.remaining).toBe(2003);
    expect(after.remaining).toBeLessThan(1); // 3,600 tokens asked: the cost-1 calls took the last ones
  }, 60_000);

  it('with refill admits capacity + refill × elapsed (±1 token)', async () => {
    const policy = { capacity: 300, refillPerSecond: 200 };
    const key = 'refill';
    let firstFrom = 0;
    let firstTo = 0;
    const tallies = await runWorkers(
      PROCESSES,
      { url, prefix, key, cost: 1, policy, inFlight: IN_FLIGHT, maxCalls: 50_000, durationMs: 1500 },
      async () => {
        // The first consume takes the whole burst at a known instant; from then on the bucket is
        // drained faster than it refills, so it never reaches capacity and no refill is lost.
        firstFrom = await redisTime();
        const first = await store.consume(key, policy.capacity, policy);
        firstTo = await redisTime();
        expect(first.allowed).toBe(true);
      },
    );
    const peekFrom = await redisTime();
    const after = await store.peek(key, policy);
    const peekTo = await redisTime();

    const admitted = policy.capacity + tallies.reduce((sum, t) => sum + t.admitted, 0);
    const denied = tallies.reduce((sum, t) => sum + t.denied, 0);
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    expect(denied).toBeGreaterThan(admitted); // demand far above the refill rate: the bucket stayed drained
    expect(after.remaining).toBeLessThan(policy.capacity);

    // Every token either went to a caller or is still in the bucket:
    // admitted + remaining = capacity + refill × (peek instant − first instant).
    const low = policy.capacity + policy.refillPerSecond * (peekFrom - firstTo);
    const high = policy.capacity + policy.refillPerSecond * (peekTo - firstFrom);
    const accounted = admitted + after.remaining;
    console.log(
      `refill exactness: admitted ${admitted} + remaining ${after.remaining.toFixed(3)} = ${accounted.toFixed(3)}; ` +
        `capacity + refill × elapsed ∈ [${low.toFixed(3)}, ${high.toFixed(3)}]`,
    );
    expect(accounted).toBeGreaterThanOrEqual(low - 1);
    expect(accounted).toBeLessThanOrEqual(high + 1);
  }, 60_000);
});
