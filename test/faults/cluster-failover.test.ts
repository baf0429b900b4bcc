/**
 * A Redis Cluster master is SIGKILLed while two app-server processes serve a bounded load through
 * the plugin: serving continues through the failover, the callers whose buckets live on the healthy
 * masters are still charged meanwhile (one circuit breaker per master) for as long as the cluster
 * serves them, and budgets are enforced afterwards, including the buckets that lived on the killed
 * master (now on its promoted replica). Run with Redis' default `cluster-require-full-coverage yes`
 * (every node answers CLUSTERDOWN from the moment the master is flagged failed until its replica is
 * promoted) and with `no` (the healthy masters keep serving throughout), over ioredis; and with `no`
 * over node-redis, whose slot map (read for the partitions) and recovery after a lost master are
 * its own.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import clusterSlot from 'cluster-key-slot';
import { bucketKey } from '../../src/index.js';
import { startRedisCluster, type ClusterNode, type RedisCluster } from '../support/redis-cluster.js';
import { APP_QUERY } from './app-queries.js';
import {
  CONTROL_WORKERS,
  expectHealthy,
  expectLatency,
  LOAD_CONCURRENCY,
  real,
  report,
  startFleet,
  STORE_TIMEOUT_MS,
} from './fleet.js';
import { send, sleep, startLoad } from './http-load.js';

const PREFIX = 'gb:';
const CAPACITY = 40;
/** How long after the cluster is healthy again the client may take to route every slot right (ms). */
const SETTLED_AFTER_MS = 2000;
/**
 * Share of the requests made during the failover by callers whose buckets live on the two healthy
 * masters, while the cluster still serves their slots, that must be charged (observed: 100 %; the
 * margin is for deadlines missed on a busy machine and for the 50 ms granularity of the cluster
 * state polling).
 */
const HEALTHY_SHARDS_CHARGED = 0.8;
/** Samples this close before the cluster was seen failing are not counted as served (ms). */
const STATE_POLL_MARGIN_MS = 100;

describe.each([
  { coverage: 'cluster-require-full-coverage yes (default)', requireFullCoverage: true, client: 'ioredis' },
  { coverage: 'cluster-require-full-coverage no', requireFullCoverage: false, client: 'ioredis' },
  { coverage: 'cluster-require-full-coverage no', requireFullCoverage: false, client: 'node-redis' },
] as const)(
  'a Redis Cluster master is killed mid-load, $coverage, over $client',
  ({ coverage, requireFullCoverage, client }) => {
    it('serving continues through the failover, the healthy masters charge, and budgets stay enforced afterwards', async () => {
      const cluster = await startRedisCluster({ requireFullCoverage });
      onTestFinished(() => cluster.stop());
      const fleet = await startFleet({
        REDIS_CLUSTER_NODES: cluster.startupNodes.map((n) => `${n.host}:${n.port}`).join(','),
        REDIS_CLIENT: client,
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
        for (let i = 0; i < count; i++)
          statuses.push((await send(fleet.urls[i % 2]!, { query: APP_QUERY }, user)).status);
        return statuses;
      };
      const exhausted = [...Array<number>(burst).fill(200), 429, 429];

      // Callers that used up their budget before the failover; the victim master holds the first one's bucket.
      const before = Array.from({ length: 6 }, (_, i) => `before-${i}`);
      for (const user of before) expect(await spend(user, burst + 2)).toEqual(exhausted);
      const victim = await cluster.masterFor(bucketKey(PREFIX, before[0]!));
      const victimSlots = await slotsOf(cluster, victim.port);
      expect(victimSlots.size).toBeGreaterThan(5000);
      const onVictim = (user: string): boolean => victimSlots.has(clusterSlot(bucketKey(PREFIX, user)));
      expect(onVictim(before[0]!)).toBe(true);

      // Callers of the load send one request each, so the load itself is never limited.
      const load = startLoad({
        urls: fleet.urls,
        concurrency: LOAD_CONCURRENCY,
        controlWorkers: CONTROL_WORKERS,
        query: APP_QUERY,
        user: (i) => `one-off-${i}`,
        maxRequests: 40_000,
        maxMs: 30_000,
      });
      await sleep(1000);
      const witness = (await cluster.masters()).find((node) => node.port !== victim.port)!;
      const state = watchClusterState(cluster, witness);
      const killAt = performance.now();
      const { failoverMs } = await cluster.killMaster(victim);
      const healthyAt = performance.now();
      const { downAt, downMs } = await state.stop();
      if (!requireFullCoverage) expect(downAt, 'cluster_state:fail without full coverage required').toBeUndefined();
      await sleep(SETTLED_AFTER_MS + 1000);
      const all = await load.stop();
      const samples = real(all);

      const bad = samples.filter((s) => s.failure !== null || s.status !== 200);
      expect(bad.length, JSON.stringify(bad.slice(0, 3))).toBe(0);
      const latencyFigures = expectLatency(all, killAt, healthyAt);
      const during = samples.filter((s) => s.start > killAt && s.end < healthyAt);
      expect(during.length).toBeGreaterThan(100);
      // One breaker per master: the dead master's timeouts do not stop the calls to the healthy ones,
      // which are charged for as long as the cluster serves them (the whole failover without full
      // coverage; until the master is flagged failed with it).
      const duringHealthy = during.filter((s) => !onVictim(s.user));
      const duringVictim = during.filter((s) => onVictim(s.user));
      const servedUntil = downAt === undefined ? healthyAt : downAt - STATE_POLL_MARGIN_MS;
      const served = duringHealthy.filter((s) => s.end < servedUntil);
      expect(served.length).toBeGreaterThan(50);
      expect(duringVictim.length).toBeGreaterThan(20);
      const chargedServed = served.filter((s) => s.storeAnswered).length;
      expect(
        chargedServed,
        `charged on the healthy masters while the cluster served them, of ${served.length}`,
      ).toBeGreaterThanOrEqual(served.length * HEALTHY_SHARDS_CHARGED);
      const percent = (part: number, whole: number): number => Math.round((100 * part) / Math.max(whole, 1));
      const chargedHealthy = duringHealthy.filter((s) => s.storeAnswered).length;
      // Charging resumes once the client has the new slot map (ioredis refreshes it when the dead
      // node's connection ends, node-redis after its reconnection attempts fail) and the breaker closes. From SETTLED_AFTER_MS after the cluster is
      // healthy again most requests are charged: on a busy machine a run of missed deadlines may still
      // open a process's breaker for a cool-down (500 ms of uncharged requests on that process).
      const uncharged = (from: number, to: number) => {
        const window = samples.filter((s) => s.start >= from && s.start < to);
        return { requests: window.length, uncharged: window.filter((s) => !s.storeAnswered).length };
      };
      const settling = uncharged(healthyAt, healthyAt + SETTLED_AFTER_MS);
      const settled = uncharged(healthyAt + SETTLED_AFTER_MS, Number.POSITIVE_INFINITY);
      expect(settled.requests).toBeGreaterThan(30);
      expect(settled.uncharged, 'requests not charged after the cluster settled').toBeLessThanOrEqual(
        settled.requests * 0.4,
      );
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
      report(`cluster master killed, ${coverage}, ${client}`, samples, {
        failoverMs,
        duringFailover: during.length,
        unchargedDuringFailover: during.filter((s) => !s.storeAnswered).length,
        unchargedPercentDuringFailover: percent(during.filter((s) => !s.storeAnswered).length, during.length),
        clusterDownMs: downMs,
        healthyShardsServed: served.length,
        healthyShardsServedChargedPercent: percent(chargedServed, served.length),
        healthyShardsDuringFailover: duringHealthy.length,
        healthyShardsChargedPercent: percent(chargedHealthy, duringHealthy.length),
        victimShardDuringFailover: duringVictim.length,
        victimShardChargedPercent: percent(duringVictim.filter((s) => s.storeAnswered).length, duringVictim.length),
        resumedMs: Math.round(firstCharged - healthyAt),
        unchargedWhileSettling: settling,
        unchargedAfterSettling: settled,
        ...latencyFigures,
        ...health,
      });
    }, 90_000);
  },
);

/** The slots `port` serves, from `CLUSTER SLOTS`. */
async function slotsOf(cluster: RedisCluster, port: number): Promise<Set<number>> {
  const node = cluster.nodes.find((n) => n.port === port)!;
  const ranges = (await cluster.command(node, 'CLUSTER', 'SLOTS')) as [
    number,
    number,
    [string, number, ...unknown[]],
    ...unknown[],
  ][];
  const slots = new Set<number>();
  for (const [from, to, master] of ranges) {
    if (Number(master[1]) !== port) continue;
    for (let slot = Number(from); slot <= Number(to); slot++) slots.add(slot);
  }
  return slots;
}

/**
 * Polls `node`'s `cluster_state` every 50 ms until stopped: when it first reported `fail` (the
 * node answers CLUSTERDOWN to everything), and for how long it did.
 */
function watchClusterState(
  cluster: RedisCluster,
  node: ClusterNode,
): { stop(): Promise<{ downAt: number | undefined; downMs: number }> } {
  let stopped = false;
  let downAt: number | undefined;
  let lastDownAt: number | undefined;
  const polling = (async () => {
    while (!stopped) {
      const info = String(await cluster.command(node, 'CLUSTER', 'INFO').catch(() => ''));
      const now = performance.now();
      if (info.includes('cluster_state:fail')) {
        downAt ??= now;
        lastDownAt = now;
      }
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await polling;
      return { downAt, downMs: downAt === undefined ? 0 : Math.round((lastDownAt ?? downAt) - downAt) };
    },
  };
}
