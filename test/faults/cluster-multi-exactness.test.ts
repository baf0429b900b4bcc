/**
 * Several buckets per operation on a 3-master/3-replica Redis Cluster: 8 processes × 64 consumes in
 * flight, 32 callers sharing one app bucket. A caller's own buckets share its hash tag (one slot,
 * one atomic call) and are charged first; the app bucket lives in another slot and is charged last,
 * and its denial gives the caller's tokens back. No bucket ever pays more than its capacity or
 * loses a token; the test reports how far below its capacity the shared bucket ends (the cost of
 * the spurious denials this order allows).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBucketStore } from '../../src/index.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { callerLimits, runWorkers, type WorkerConfig, type WorkerTally } from './worker-pool.js';

const PROCESSES = 8;
const IN_FLIGHT = 64;
const CALLERS_PER_PROCESS = 4;

describe(`several buckets per operation: ${PROCESSES} processes × ${IN_FLIGHT} in flight on a Redis Cluster`, () => {
  let cluster: RedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.startupNodes]);
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  /** Runs the workers; checks that every bucket paid exactly what was admitted; returns the app's tokens left. */
  const hammer = async (
    name: string,
    shared: WorkerConfig['policy'],
    own: WorkerConfig['policy'][],
    costs: number[],
  ) => {
    const prefix = `${name}:`;
    const store = new RedisBucketStore(client, { prefix });
    const job: WorkerConfig = {
      clusterNodes: [...cluster.startupNodes],
      prefix,
      key: 'caller',
      cost: 1,
      costs,
      policy: own[0] as WorkerConfig['policy'],
      inFlight: IN_FLIGHT,
      maxCalls: 300,
      durationMs: 25_000,
      multi: { callers: CALLERS_PER_PROCESS, own, ownTag: true, shared: { key: 'app', policy: shared } },
    };
    const tallies: WorkerTally[] = await runWorkers(PROCESSES, job);
    expect(tallies.flatMap((t) => t.errors)).toEqual([]);
    const admitted = tallies.reduce((sum, t) => sum + t.admittedCost, 0);
    const app = await store.peek('app', shared);
    // The app bucket is charged last: it pays only for admitted operations, never beyond its capacity.
    expect(admitted).toBeLessThanOrEqual(shared.capacity);
    expect(admitted + app.remaining).toBe(shared.capacity);
    // A caller's own buckets were given back whatever the app bucket refused.
    const callers = tallies.flatMap((t) => Object.entries(t.perCaller));
    expect(callers).toHaveLength(PROCESSES * CALLERS_PER_PROCESS);
    for (const [caller, tokens] of callers) {
      const buckets = await store.peekAll(callerLimits(job, caller).slice(0, own.length));
      expect(buckets.map((bucket) => tokens + bucket.remaining)).toEqual(own.map((policy) => policy.capacity));
    }
    const denied = tallies.reduce((sum, t) => sum + t.denied, 0);
    console.log(
      `multi-bucket exactness (Cluster, ${name}): the shared bucket admitted ${admitted} of ${shared.capacity} tokens ` +
        `and ends ${app.remaining} below its capacity in use (${((app.remaining / shared.capacity) * 100).toFixed(1)} %); ` +
        `${denied} of ${PROCESSES * 300} operations denied`,
    );
    return app.remaining;
  };

  it('no bucket pays beyond its capacity with one own bucket per caller and cost 1', async () => {
    // 32 callers of 40 tokens (1,280) against an app bucket of 1,000; 2,400 asked.
    const left = await hammer(
      'one-own',
      { capacity: 1000, refillPerSecond: 0 },
      [{ capacity: 40, refillPerSecond: 0 }],
      [1],
    );
    expect(left).toBeLessThan(1000);
  }, 60_000);

  it('no bucket pays beyond its capacity or loses a token with two own buckets per caller and mixed costs', async () => {
    const own = [
      { capacity: 45, refillPerSecond: 0 },
      { capacity: 60, refillPerSecond: 0 },
    ];
    const left = await hammer('two-own', { capacity: 900, refillPerSecond: 0 }, own, [3, 1, 5, 2, 4]);
    expect(left).toBeLessThan(900);
  }, 60_000);
});
