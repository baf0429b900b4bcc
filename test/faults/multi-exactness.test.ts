/**
 * Several buckets per operation on one Redis node: 8 processes × 64 consumes in flight, 32 callers
 * sharing one app bucket; each operation charges the caller's own buckets and the app bucket, all
 * or nothing, in one script call. The app bucket admits exactly what fits in its capacity, every
 * own bucket exactly what it paid, and a denied operation leaves every bucket as it was.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bucketKey, RedisBucketStore } from '../../src/index.js';
import { callerLimits, runWorkers, type WorkerConfig, type WorkerTally } from './worker-pool.js';

const PROCESSES = 8;
const IN_FLIGHT = 64;
const CALLERS_PER_PROCESS = 4;

/** The tokens each caller got, from every process's tally. */
const perCaller = (tallies: WorkerTally[]): [string, number][] => tallies.flatMap((t) => Object.entries(t.perCaller));

describe(`several buckets per operation: ${PROCESSES} processes × ${IN_FLIGHT} in flight on one Redis node`, () => {
  const url = `redis://127.0.0.1:${inject('redisPort')}`;
  let admin: Redis;
  let store: RedisBucketStore;
  let prefix: string;

  beforeAll(() => {
    admin = new Redis(url);
  });
  afterAll(() => admin.disconnect());

  const config = (shared: WorkerConfig['policy'], own: WorkerConfig['policy'][], costs: number[]): WorkerConfig => {
    prefix = `multi-exact-${randomUUID().slice(0, 8)}:`;
    store = new RedisBucketStore(admin, { prefix });
    return {
      url,
      prefix,
      key: 'caller',
      cost: 1,
      costs,
      policy: own[0] as WorkerConfig['policy'],
      inFlight: IN_FLIGHT,
      maxCalls: 300,
      durationMs: 20_000,
      multi: { callers: CALLERS_PER_PROCESS, own, ownTag: false, shared: { key: 'app', policy: shared } },
    };
  };

  it('the shared bucket admits exactly its capacity, and each bucket pays exactly what was admitted', async () => {
    // 32 callers of 40 tokens each (1,280) against an app bucket of 1,000; 2,400 tokens asked.
    const shared = { capacity: 1000, refillPerSecond: 0 };
    const own = [{ capacity: 40, refillPerSecond: 0 }];
    const job = config(shared, own, [1]);
    const tallies = await runWorkers(PROCESSES, job);
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    const admitted = tallies.reduce((sum, t) => sum + t.admittedCost, 0);
    const denied = tallies.reduce((sum, t) => sum + t.denied, 0);
    expect(admitted).toBe(1000);
    expect(denied).toBe(PROCESSES * 300 - 1000);
    expect((await store.peek('app', shared)).remaining).toBe(0);
    const callers = perCaller(tallies);
    expect(callers).toHaveLength(PROCESSES * CALLERS_PER_PROCESS);
    for (const [caller, tokens] of callers) {
      expect(tokens).toBeLessThanOrEqual(40);
      expect((await store.peek(`${caller}:0`, own[0] as WorkerConfig['policy'])).remaining).toBe(40 - tokens);
    }
  }, 60_000);

  it('with mixed costs and two own buckets per caller: no token lost, none taken by a denial', async () => {
    // Own buckets bind too (a minute and an hour bucket): every token either went to an admitted
    // operation or is still in its bucket.
    const shared = { capacity: 900, refillPerSecond: 0 };
    const own = [
      { capacity: 45, refillPerSecond: 0 },
      { capacity: 60, refillPerSecond: 0 },
    ];
    const job = config(shared, own, [3, 1, 5, 2, 4]);
    const tallies = await runWorkers(PROCESSES, job);
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    const admitted = tallies.reduce((sum, t) => sum + t.admittedCost, 0);
    const app = await store.peek('app', shared);
    expect(admitted + app.remaining).toBe(900);
    expect(app.remaining).toBeLessThan(5); // demand outlasted the app bucket
    let ownLimited = 0;
    for (const [caller, tokens] of perCaller(tallies)) {
      const [minute, hour] = await store.peekAll(callerLimits(job, caller).slice(0, 2));
      expect(tokens + (minute?.remaining as number)).toBe(45);
      expect(tokens + (hour?.remaining as number)).toBe(60);
      if ((minute?.remaining as number) < 5) ownLimited++;
    }
    console.log(
      `multi-bucket exactness (one node): ${admitted} of 900 app tokens admitted, ${app.remaining} left; ` +
        `${ownLimited} of ${PROCESSES * CALLERS_PER_PROCESS} callers ran out of their own tokens`,
    );

    // A denied operation leaves every bucket as it was: the raw values of its keys, and their TTLs.
    const [caller] = perCaller(tallies)[0] as [string, number];
    const limits = callerLimits(job, caller);
    const keys = limits.map((limit) => bucketKey(prefix, limit.key, limit.hashTag));
    const before = await admin.mget(...keys);
    const denied = await store.consumeAll(limits, 5);
    expect(denied.allowed).toBe(false);
    expect(await admin.mget(...keys)).toEqual(before);
  }, 60_000);
});
