/**
 * A Redis Cluster master is SIGKILLed while two app-server processes serve a bounded load through
 * the plugin: serving continues through the failover, and budgets are enforced afterwards,
 * including the buckets that lived on the killed master (now on its promoted replica).
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bucketKey } from '../../src/index.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { APP_QUERY } from './app-queries.js';
import {
  CONTROL_WORKERS, expectHealthy, expectLatency, LOAD_CONCURRENCY, real, report, startFleet, STORE_TIMEOUT_MS,
} from './fleet.js';
import { send, sleep, startLoad } from './http-load.js';

const PREFIX = 'gb:';
const CAPACITY = 40;
/** How long after the cluster is healthy again the client may take to route every slot right (ms). */
const SETTLED_AFTER_MS = 2000;

describe('a Redis Cluster master is killed mid-load', () => {
  it('serving continues through the failover and budgets stay enforced afterwards', async () => {
    const cluster = await startRedisCluster();
    onTestFinished(() => cluster.stop());
    const fleet = await startFleet({
      REDIS_CLUSTER_NODES: cluster.startupNodes.map((n) => `${n.host}:${n.port}`).join(','),
      CAPACITY,
      REFILL_PER_SECOND: 0,
      ON_STORE_ERROR: 'allow',
      STORE_TIMEOUT_MS,
      KEY_PREFIX: PREFIX,
    });
    onTestFinished(() => fleet.stop());
    const cost = fleet.queryCost;
    const burst = Math.floor(CAPACITY / cost);
    expect(burst).toBeGreaterThanOrEqual(3);

    /** Sends requests for `user`, alternating between the two processes, and returns the statuses. */
    const spend = async (user: string, count: number): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) statuses.push((await send(fleet.urls[i % 2]!, { query: APP_QUERY }, user)).status);
      return statuses;
    };
    const exhausted = [...Array<number>(burst).fill(200), 429, 429];

    // Callers that used up their budget before the failover; the victim master holds the first one's bucket.
    const before = Array.from({ length: 6 }, (_, i) => `before-${i}`);
    for (const user of before) expect(await spend(user, burst + 2)).toEqual(exhausted);
    const victim = await cluster.masterFor(bucketKey(PREFIX, before[0]!));

    // Callers of the load send one request each, so the load itself is never limited.
    const load = startLoad({
      urls: fleet.urls, concurrency: LOAD_CONCURRENCY, controlWorkers: CONTROL_WORKERS, query: APP_QUERY,
      user: (i) => `one-off-${i}`, maxRequests: 40_000, maxMs: 30_000,
    });
    await sleep(1000);
    const killAt = performance.now();
    const { failoverMs } = await cluster.killMaster(victim);
    const healthyAt = performance.now();
    await sleep(SETTLED_AFTER_MS + 1000);
    const all = await load.stop();
    const samples = real(all);

    const bad = samples.filter((s) => s.failure !== null || s.status !== 200);
    expect(bad.length, JSON.stringify(bad.slice(0, 3))).toBe(0);
    const latencyFigures = expectLatency(all, killAt, healthyAt);
    const during = samples.filter((s) => s.start > killAt && s.end < healthyAt);
    expect(during.length).toBeGreaterThan(100);
    // Charging resumes once the client has the new slot map (ioredis refreshes it when the dead
    // node's connection ends) and the breaker closes. From SETTLED_AFTER_MS after the cluster is
    // healthy again most requests are charged: on a busy machine a run of missed deadlines may still
    // open a process's breaker for a cool-down (500 ms of uncharged requests on that process).
    const uncharged = (from: number, to: number) => {
      const window = samples.filter((s) => s.start >= from && s.start < to);
      return { requests: window.length, uncharged: window.filter((s) => !s.storeAnswered).length };
    };
    const settling = uncharged(healthyAt, healthyAt + SETTLED_AFTER_MS);
    const settled = uncharged(healthyAt + SETTLED_AFTER_MS, Number.POSITIVE_INFINITY);
    expect(settled.requests).toBeGreaterThan(30);
    expect(settled.uncharged, 'requests not charged after the cluster settled').toBeLessThanOrEqual(settled.requests * 0.4);
    const firstCharged = Math.min(...samples.filter((s) => s.storeAnswered && s.end > healthyAt).map((s) => s.end));
    expect(firstCharged - healthyAt).toBeLessThanOrEqual(SETTLED_AFTER_MS);

    // Budgets spent before the failover are still spent (the replica had them), and fresh callers
    // on every shard get exactly their burst.
    for (const user of before) expect(await spend(user, 2)).toEqual([429, 429]);
    const fresh = new Map<number, string>(); // master port → a caller whose bucket it holds
    for (let i = 0; fresh.size < 3 && i < 100; i++) {
      const master = await cluster.masterFor(bucketKey(PREFIX, `after-${i}`));
      if (!fresh.has(master.port)) fresh.set(master.port, `after-${i}`);
    }
    expect(fresh.size).toBe(3);
    for (const user of fresh.values()) expect(await spend(user, burst + 2)).toEqual(exhausted);

    const health = await expectHealthy(fleet);
    report('cluster master killed', samples, {
      failoverMs,
      duringFailover: during.length,
      unchargedDuringFailover: during.filter((s) => !s.storeAnswered).length,
      resumedMs: Math.round(firstCharged - healthyAt),
      unchargedWhileSettling: settling,
      unchargedAfterSettling: settled,
      ...latencyFigures,
      ...health,
    });
  }, 90_000);
});
