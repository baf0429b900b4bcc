/**
 * Fault injection against a single Redis shared by two app-server processes, under a bounded
 * closed-loop load of concurrent HTTP requests: Redis is killed and restarted, paused with SIGSTOP,
 * has its script cache flushed and its client connections killed. See docs/operations.md, "When Redis fails".
 *
 * The scenarios where the Redis client matters (how it reconnects, whether it queues or resends
 * commands, how it recovers from NOSCRIPT: the kill and the SCRIPT FLUSH / CLIENT KILL ones) run
 * over ioredis and over node-redis, each set up as docs/operations.md recommends. The others run
 * over ioredis: the store error policies ('deny', 'local') do not depend on the client, and a
 * paused Redis holds either client's commands alike (the store-level pause tests,
 * batch-faults.test.ts and test/bucket/deadline.test.ts, run over both).
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it, onTestFinished } from 'vitest';
import { redisCommand, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { APP_QUERY } from './app-queries.js';
import {
  breakerOpenings,
  CONTROL_WORKERS,
  expectHealthy,
  expectLatency,
  HANG_BOUND_MS,
  LOAD_CONCURRENCY,
  real,
  report,
  RESUME_WITHIN_MS,
  startFleet,
  STORE_TIMEOUT_MS,
  type Fleet,
} from './fleet.js';
import { send, sleep, startLoad, type Sample } from './http-load.js';
import { scriptCalls, tokensTaken } from './redis-admin.js';
import type { AppEnv } from './app-process.js';
import { CLIENTS, type ClientName } from '../support/redis-clients.js';

const USERS = Array.from({ length: 8 }, (_, i) => `user-${i}`);
const PREFIX = 'gb:';
/** Large enough that the load is never rate limited: every request should be a 200. */
const CAPACITY = 1_000_000;

async function setUp(
  onStoreError: AppEnv['ON_STORE_ERROR'],
  capacity = CAPACITY,
  refillPerSecond = 0,
  client: ClientName = 'ioredis',
): Promise<{ redis: RedisServer; fleet: Fleet }> {
  const redis = await startRedisServer();
  onTestFinished(() => redis.stop());
  const fleet = await startFleet({
    REDIS_URL: redis.url,
    REDIS_CLIENT: client,
    CAPACITY: capacity,
    REFILL_PER_SECOND: refillPerSecond,
    ON_STORE_ERROR: onStoreError,
    STORE_TIMEOUT_MS,
    KEY_PREFIX: PREFIX,
  });
  onTestFinished(() => fleet.stop());
  return { redis, fleet };
}

function loadOn(fleet: Fleet, user: (i: number) => string = (i) => USERS[i % USERS.length]!) {
  return startLoad({
    urls: fleet.urls,
    concurrency: LOAD_CONCURRENCY,
    controlWorkers: CONTROL_WORKERS,
    query: APP_QUERY,
    user,
    maxRequests: 40_000,
    maxMs: 20_000,
  });
}

/** Samples that are not a clean HTTP answer with one of `statuses`. */
function unexpected(samples: Sample[], statuses: number[]): Sample[] {
  return samples.filter((s) => s.failure !== null || !statuses.includes(s.status));
}

function expectNone(samples: Sample[], what: string): void {
  expect(samples.length, `${what}: ${JSON.stringify(samples.slice(0, 3))}`).toBe(0);
}

/**
 * Redis charged requests again within `RESUME_WITHIN_MS` of `backAt`, and from `RESUME_WITHIN_MS`
 * on it charged at least 80% of them (on a busy machine a run of missed deadlines can open the
 * breaker again for one cool-down; on an idle one every request is charged). Returns ms until the
 * first charge and the requests left uncharged after `RESUME_WITHIN_MS`.
 */
function expectResumed(samples: Sample[], backAt: number): { resumedMs: number; unchargedAfterResume: number } {
  const firstAnswered = samples.filter((s) => s.storeAnswered && s.end >= backAt).map((s) => s.end);
  const resumedMs = Math.round(Math.min(...firstAnswered) - backAt);
  expect(resumedMs).toBeLessThanOrEqual(RESUME_WITHIN_MS);
  const late = samples.filter((s) => s.start >= backAt + RESUME_WITHIN_MS);
  expect(late.length).toBeGreaterThan(30);
  const uncharged = late.filter((s) => !s.storeAnswered).length;
  expect(uncharged, `requests not charged ${RESUME_WITHIN_MS} ms after Redis returned`).toBeLessThanOrEqual(
    late.length / 5,
  );
  return { resumedMs, unchargedAfterResume: uncharged };
}

/**
 * Redis holds exactly the tokens of the requests whose response said the store charged them
 * (`throttleStatus` present): nothing charged twice, nothing charged after the request was decided.
 */
async function expectChargesMatch(redis: RedisServer, cost: number, charged: Sample[]): Promise<void> {
  const taken = await tokensTaken(redis.url, PREFIX, USERS, { capacity: CAPACITY, refillPerSecond: 0 });
  const decided = new Map(USERS.map((user) => [user, 0]));
  for (const s of charged) decided.set(s.user, decided.get(s.user)! + cost);
  expect(Object.fromEntries(taken)).toEqual(Object.fromEntries(decided));
}

/**
 * Runs the load for 1 s, kills Redis for 2 s (sampling the app heaps while it is down, where a queue
 * of commands for the dead Redis would be longest), restarts it and keeps the load for 2.5 s more.
 */
async function killAndRestartUnderLoad(
  redis: RedisServer,
  fleet: Fleet,
): Promise<{ all: Sample[]; killAt: number; restartAt: number; backAt: number }> {
  const load = loadOn(fleet);
  await sleep(1000);
  const killAt = performance.now();
  await redis.kill();
  await sleep(2000);
  await fleet.sampleHeaps();
  const restartAt = performance.now();
  await redis.restart();
  const backAt = performance.now();
  await sleep(2500);
  return { all: await load.stop(), killAt, restartAt, backAt };
}

describe.each(CLIENTS)('Redis is killed mid-load, then restarted, over %s', (client) => {
  it("onStoreError 'allow': no request fails or waits past the deadline; nothing is charged late; limiting resumes", async () => {
    const { redis, fleet } = await setUp('allow', CAPACITY, 0, client);
    const { all, killAt, restartAt, backAt } = await killAndRestartUnderLoad(redis, fleet);
    const samples = real(all);

    expectNone(unexpected(samples, [200]), 'requests that did not get a 200');
    const latencyFigures = expectLatency(all, killAt, backAt + 250);
    const outage = samples.filter((s) => s.start > killAt && s.end < restartAt);
    expect(outage.length).toBeGreaterThan(100);
    expectNone(
      outage.filter((s) => s.storeAnswered),
      'requests charged while Redis was dead',
    );
    const resumed = expectResumed(samples, backAt);
    // The restarted Redis is empty: it holds the charges of the requests it answered, no others
    // (in particular no command queued while it was down and sent on reconnect).
    await expectChargesMatch(
      redis,
      fleet.queryCost,
      samples.filter((s) => s.storeAnswered && s.end > restartAt),
    );
    // The breaker opened (and said so once per process) instead of calling the dead store per request.
    for (const app of fleet.apps) expect(app.logs.join('\n')).toMatch(/not calling it for [\d.]+ ms/);
    const health = await expectHealthy(fleet);
    report(`kill/restart allow (${client})`, samples, {
      outageRequests: outage.length,
      breakerOpenings: breakerOpenings(fleet),
      ...resumed,
      ...latencyFigures,
      ...health,
    });
  }, 60_000);
});

describe('Redis is killed mid-load, then restarted: the store error policies', () => {
  it("onStoreError 'deny': requests get a quick 503 while Redis is down, 200 again once it is back", async () => {
    const { redis, fleet } = await setUp('deny');
    const { all, killAt, restartAt, backAt } = await killAndRestartUnderLoad(redis, fleet);
    const samples = real(all);

    expectNone(unexpected(samples, [200, 503]), 'requests answered with neither 200 nor 503');
    const latencyFigures = expectLatency(all, killAt, backAt + 250);
    expectNone(
      samples.filter((s) => s.end < killAt && s.status !== 200),
      'failures before the kill',
    );
    const outage = samples.filter((s) => s.start > killAt + 5 && s.end < restartAt);
    expect(outage.length).toBeGreaterThan(100);
    expectNone(
      outage.filter((s) => s.status !== 503),
      'requests served while Redis was dead',
    );
    expect(new Set(outage.map((s) => s.code))).toEqual(new Set(['BUDGET_UNAVAILABLE']));
    const resumed = expectResumed(samples, backAt);
    const deniedAfterResume = samples.filter((s) => s.start >= backAt + RESUME_WITHIN_MS && s.status !== 200).length;
    expect(deniedAfterResume).toBe(resumed.unchargedAfterResume);

    // One 503 in detail: Retry-After and a GraphQL error body, no stack trace.
    redis.pause();
    onTestFinished(() => redis.resume());
    await sleep(STORE_TIMEOUT_MS * 4);
    let denied = await send(fleet.urls[0]!, { query: APP_QUERY }, 'detail');
    for (let i = 0; i < 5 && denied.status !== 503; i++)
      denied = await send(fleet.urls[0]!, { query: APP_QUERY }, 'detail');
    redis.resume();
    expect(denied.status).toBe(503);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(denied.body?.errors?.[0]?.extensions?.code).toBe('BUDGET_UNAVAILABLE');
    expect(denied.text).not.toMatch(/stacktrace|\bat .*\.ts:\d+/);

    const health = await expectHealthy(fleet);
    report('kill/restart deny', samples, { outageRequests: outage.length, ...resumed, ...latencyFigures, ...health });
  }, 60_000);

  it("onStoreError 'local': each process enforces the budget with its in-process bucket meanwhile", async () => {
    const capacity = 12;
    // A slow refill (one token per 10 s) so that a 429 carries a Retry-After.
    const { redis, fleet } = await setUp('local', capacity, 0.1);
    const cost = fleet.queryCost;
    const allowedPerBucket = Math.floor(capacity / cost);
    expect(allowedPerBucket).toBeGreaterThanOrEqual(2);
    // Background load by callers that each send one request: never limited.
    const load = loadOn(fleet, (i) => `one-off-${i}`);
    await sleep(1000);
    const killAt = performance.now();
    await redis.kill();
    await sleep(300);

    // While Redis is dead, a caller on each process gets exactly the policy's burst, then a 429.
    const exhaust = async (url: string): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < allowedPerBucket + 3; i++) {
        const reply = await send(url, { query: APP_QUERY }, 'local-probe');
        expect(reply.ms).toBeLessThanOrEqual(HANG_BOUND_MS);
        if (reply.status === 429) expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        statuses.push(reply.status);
      }
      return statuses;
    };
    const expected = [...Array<number>(allowedPerBucket).fill(200), 429, 429, 429];
    expect(await exhaust(fleet.urls[0]!)).toEqual(expected);
    expect(await exhaust(fleet.urls[1]!)).toEqual(expected); // in-process: each process has its own bucket
    await fleet.sampleHeaps();
    const restartAt = performance.now();
    await redis.restart();
    const backAt = performance.now();
    await sleep(2000);
    const all = await load.stop();
    const samples = real(all);

    expectNone(unexpected(samples, [200]), 'load requests that did not get a 200');
    const latencyFigures = expectLatency(all, killAt, backAt + 250);
    const outage = samples.filter((s) => s.start > killAt && s.end < restartAt);
    expect(outage.length).toBeGreaterThan(50);
    // Decided by the local bucket: a throttle status is reported, and the restarted Redis holds none of it.
    expectNone(
      outage.filter((s) => !s.storeAnswered),
      'outage requests without a throttle status',
    );
    // Back on Redis, the probe caller has the Redis bucket, untouched by the local charges
    // (its local bucket is empty: a 200 with this balance can only come from Redis).
    const back = await send(fleet.urls[0]!, { query: APP_QUERY }, 'local-probe');
    expect(back.status).toBe(200);
    expect(back.body?.extensions?.cost?.throttleStatus?.currentlyAvailable).toBe(capacity - cost);

    const health = await expectHealthy(fleet);
    report('kill/restart local', samples, { outageRequests: outage.length, ...latencyFigures, ...health });
  }, 60_000);
});

describe('Redis is paused (SIGSTOP) for 3 s mid-load, then continued', () => {
  it("onStoreError 'allow': timeouts, not hangs; the breaker stops calls; nothing charged twice or late", async () => {
    const { redis, fleet } = await setUp('allow');
    const load = loadOn(fleet);
    await sleep(1000);
    const callsBefore = await scriptCalls(redis.port);
    const stopAt = performance.now();
    redis.pause();
    onTestFinished(() => redis.resume());
    await sleep(3000);
    await fleet.sampleHeaps(); // where a queue of commands for the paused Redis would be longest
    redis.resume();
    const continueAt = performance.now();
    // Script calls Redis received while it was stopped (it runs them first once continued).
    const callsDuringPause = (await scriptCalls(redis.port)) - callsBefore;
    await sleep(2500);
    const all = await load.stop();
    const samples = real(all);

    expectNone(unexpected(samples, [200]), 'requests that did not get a 200');
    const latencyFigures = expectLatency(all, stopAt, continueAt + 250);
    const paused = samples.filter((s) => s.start > stopAt && s.end < continueAt);
    expect(paused.length).toBeGreaterThan(200);
    // With the breaker open only its probes (one per cool-down per process) and the calls in flight
    // when it opened reach Redis; without it every one of these requests would.
    expect(callsDuringPause).toBeLessThanOrEqual(Math.max(60, paused.length / 10));
    const resumed = expectResumed(samples, continueAt);
    // The calls that waited in Redis' socket during the pause ran after their deadline: no effect.
    await expectChargesMatch(
      redis,
      fleet.queryCost,
      samples.filter((s) => s.storeAnswered),
    );
    const health = await expectHealthy(fleet);
    report('SIGSTOP 3 s allow', samples, {
      pausedRequests: paused.length,
      callsDuringPause,
      breakerOpenings: breakerOpenings(fleet),
      ...resumed,
      ...latencyFigures,
      ...health,
    });
  }, 60_000);
});

describe.each(CLIENTS)('SCRIPT FLUSH and CLIENT KILL mid-load, over %s', (client) => {
  it('every request is served (200) and no request is charged twice', async () => {
    const { redis, fleet } = await setUp('allow', CAPACITY, 0, client);
    const load = loadOn(fleet);
    await sleep(500);
    const firstFaultAt = performance.now();
    let kills = 0;
    for (let round = 0; round < 10; round++) {
      await sleep(250);
      if (round % 2 === 0) {
        expect(await redisCommand(redis.port, 'SCRIPT', 'FLUSH')).toBe('OK');
      } else {
        kills += Number(await redisCommand(redis.port, 'CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
      }
    }
    const lastFaultAt = performance.now();
    await sleep(RESUME_WITHIN_MS + 500);
    const all = await load.stop();
    const samples = real(all);

    expectNone(unexpected(samples, [200]), 'requests that did not get a 200');
    const latencyFigures = expectLatency(all, firstFaultAt, lastFaultAt + 250);
    expect(kills).toBeGreaterThanOrEqual(10); // 5 rounds × 2 app connections at least
    // A killed connection may lose the reply of a command Redis ran: that request was served
    // uncharged while Redis took its tokens. Never the reverse, and never twice.
    const taken = await tokensTaken(redis.url, PREFIX, USERS, { capacity: CAPACITY, refillPerSecond: 0 });
    const decided = samples.filter((s) => s.storeAnswered).length * fleet.queryCost;
    const inRedis = [...taken.values()].reduce((a, b) => a + b, 0);
    expect(inRedis).toBeGreaterThanOrEqual(decided);
    expect(inRedis - decided).toBeLessThanOrEqual(kills * LOAD_CONCURRENCY * fleet.queryCost);
    const resumed = expectResumed(samples, lastFaultAt);
    const health = await expectHealthy(fleet);
    report(`SCRIPT FLUSH + CLIENT KILL (${client})`, samples, {
      kills,
      lostReplyTokens: inRedis - decided,
      ...resumed,
      ...latencyFigures,
      ...health,
    });
  }, 60_000);
});
