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
  CONTROL_WORKERS, expectHealthy, expectLatency, LOAD_CONCURRENCY, real, report, RESUME_WITHIN_MS, startFleet, STORE_TIMEOUT_MS,
} from './fleet.js';
import { send, sleep, startLoad } from './http-load.js';

const PREFIX = 'gb:';
const CAPACITY = 40;

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
    await sleep(RESUME_WITHIN_MS + 1000);
    const all = await load.stop();
    const samples = real(all);

    const bad = samples.filter((s) => s.failure !== null || s.status !== 200);
    expect(bad.length, JSON.stringify(bad.slice(0, 3))).toBe(0);
    const latencyFigures = expectLatency(all, killAt, healthyAt);
    const during = samples.filter((s) => s.start > killAt && s.end < healthyAt);
    expect(during.length).toBeGreaterThan(100);
    // Charging resumed: a second after the cluster is healthy again at least 90% of requests are
    // charged (a busy machine may miss an occasional deadline).
    const late = samples.filter((s) => s.start >= healthyAt + RESUME_WITHIN_MS);
    expect(late.length).toBeGreaterThan(30);
    const unchargedLate = late.filter((s) => !s.storeAnswered).length;
    expect(unchargedLate, 'requests not charged a second after the cluster was healthy again').toBeLessThanOrEqual(late.length / 10);

    // Budgets spent before the failover are still spent (the replica had them), and fresh callers
    // on every shard get exactly their burst.
    for (const user of before) expect(await spend(user, 2)).toEqual([429, 429]);
    for (let i = 0; i < 6; i++) expect(await spend(`after-${i}`, burst + 2)).toEqual(exhausted);

    const health = await expectHealthy(fleet);
    report('cluster master killed', samples, {
      failoverMs,
      duringFailover: during.length,
      unchargedDuringFailover: during.filter((s) => !s.storeAnswered).length,
      unchargedAfterResume: unchargedLate,
      ...latencyFigures,
      ...health,
    });
  }, 90_000);
});
