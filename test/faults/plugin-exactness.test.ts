/**
 * Exactness through the plugin: one caller, two app-server processes sharing one Redis, 64 HTTP
 * requests in flight. The budget admits exactly what the bucket allows, whichever process serves.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startRedisServer } from '../support/redis-server.js';
import { APP_QUERY } from './app-queries.js';
import { expectHealthy, report, startFleet } from './fleet.js';
import { startLoad } from './http-load.js';
import { tokensTaken } from './redis-admin.js';

const PREFIX = 'gb:';
const IN_FLIGHT = 64;

async function setUp(capacity: number, refillPerSecond: number) {
  const redis = await startRedisServer();
  onTestFinished(() => redis.stop());
  const fleet = await startFleet({
    REDIS_URL: redis.url,
    CAPACITY: capacity,
    REFILL_PER_SECOND: refillPerSecond,
    ON_STORE_ERROR: 'allow',
    KEY_PREFIX: PREFIX,
    // A generous deadline: this test is about exactness, not about a loaded machine's latency.
    STORE_TIMEOUT_MS: 1000,
  });
  onTestFinished(() => fleet.stop());
  return { redis, fleet };
}

describe(`exactness through the plugin: two processes, ${IN_FLIGHT} requests in flight, one caller`, () => {
  it('without refill admits exactly floor(capacity / cost) requests', async () => {
    const capacity = 250;
    const { redis, fleet } = await setUp(capacity, 0);
    const admissible = Math.floor(capacity / fleet.queryCost);
    const load = startLoad({
      urls: fleet.urls,
      concurrency: IN_FLIGHT,
      query: APP_QUERY,
      user: () => 'shared',
      maxRequests: admissible * 3,
      maxMs: 30_000,
    });
    const samples = await load.done();

    expect(samples.filter((s) => s.failure !== null)).toEqual([]);
    expect(samples.filter((s) => !s.storeAnswered)).toEqual([]);
    expect(samples.filter((s) => s.status === 200)).toHaveLength(admissible);
    expect(samples.filter((s) => s.status === 429)).toHaveLength(admissible * 2);
    // Both processes admitted some: the budget really was shared.
    for (const server of [0, 1]) expect(samples.some((s) => s.server === server && s.status === 200)).toBe(true);
    const taken = await tokensTaken(redis.url, PREFIX, ['shared'], { capacity, refillPerSecond: 0 });
    expect(taken.get('shared')).toBe(admissible * fleet.queryCost);
    const health = await expectHealthy(fleet);
    report('exactness no refill (HTTP)', samples, { admissible, ...health });
  }, 60_000);

  it('with refill admits capacity + refill × elapsed (±1 token)', async () => {
    const capacity = 60;
    const refillPerSecond = 20;
    const { redis, fleet } = await setUp(capacity, refillPerSecond);
    const cost = fleet.queryCost;
    const load = startLoad({
      urls: fleet.urls,
      concurrency: IN_FLIGHT,
      query: APP_QUERY,
      user: () => 'refilled',
      maxRequests: 20_000,
      maxMs: 3000,
    });
    const samples = await load.done();
    const peekFrom = performance.now();
    const taken = (await tokensTaken(redis.url, PREFIX, ['refilled'], { capacity, refillPerSecond })).get('refilled')!;
    const peekTo = performance.now();

    expect(samples.filter((s) => s.failure !== null || (s.status !== 200 && s.status !== 429))).toEqual([]);
    const admitted = samples.filter((s) => s.status === 200);
    expect(samples.length - admitted.length).toBeGreaterThan(admitted.length); // demand far above refill
    // The first charge happened after the first request was sent and before the first admitted
    // request's answer arrived; from then on the bucket never filled up again.
    const firstFrom = Math.min(...samples.map((s) => s.start));
    const firstTo = Math.min(...admitted.map((s) => s.end));
    const accounted = admitted.length * cost + (capacity - taken);
    const low = capacity + (refillPerSecond * (peekFrom - firstTo)) / 1000;
    const high = capacity + (refillPerSecond * (peekTo - firstFrom)) / 1000;
    console.log(
      `HTTP refill exactness: admitted ${admitted.length} × ${cost} + remaining ${(capacity - taken).toFixed(3)} = ` +
        `${accounted.toFixed(3)} tokens; capacity + refill × elapsed ∈ [${low.toFixed(3)}, ${high.toFixed(3)}]`,
    );
    expect(accounted).toBeGreaterThanOrEqual(low - 1);
    expect(accounted).toBeLessThanOrEqual(high + 1);
    const health = await expectHealthy(fleet);
    report('exactness with refill (HTTP)', samples, { admitted: admitted.length, ...health });
  }, 60_000);
});
