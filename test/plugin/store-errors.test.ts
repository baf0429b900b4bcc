import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketCallOptions, BucketPolicy, BucketResult, BucketStore } from '../../src/bucket/types.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  testRedis,
  whenReady,
  type BudgetServer,
  type Reply,
  warmUp,
} from './budget-server.js';

/**
 * onStoreError with a Redis that is killed, restarted and paused (SIGSTOP) under the plugin:
 * every response within the store deadline plus a margin, never a 500, the configured policy
 * applied, nothing charged late, and limiting back within about a second of Redis returning.
 */
const POLICY = { capacity: 100, refillPerSecond: 0 };
const TIMEOUT_MS = 50;
/** Allowed on top of the deadline for the typical (median) response: HTTP and JSON. */
const MARGIN_MS = 30;
/**
 * No response may take longer than this: far below what waiting for a paused Redis would take,
 * with room for a scheduling stall on a busy shared 2-core machine (the whole suite runs two files
 * at a time beside the Redis servers and load of the others).
 */
const HANG_BOUND_MS = TIMEOUT_MS + 700;
/** How soon limiting must resume once Redis is back (breaker cool-down 500 ms + reconnect). */
const RESUME_WITHIN_MS = 1500;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

let redisServer: RedisServer;
let redis: Redis;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  redisServer = await startRedisServer();
  redis = testRedis(redisServer.port);
  await whenReady(redis);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  redis.disconnect();
  await redisServer.stop();
});

async function sequence(server: BudgetServer, user: string, count: number, first = 8): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i++) replies.push(await server.post(itemsQuery(first), { user }));
  return replies;
}

function expectPrompt(replies: Reply[]): void {
  const times = replies.map((reply) => reply.ms).sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const slowest = times[times.length - 1]!;
  expect(median, `median response ${median.toFixed(1)} ms`).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  expect(slowest, `slowest response ${slowest.toFixed(1)} ms`).toBeLessThan(HANG_BOUND_MS);
  for (const reply of replies) {
    expect(reply.status).not.toBe(500);
    expect(JSON.stringify(reply.body)).not.toMatch(/stacktrace|INTERNAL_SERVER_ERROR/);
  }
}

/**
 * Charges `first + 2` tokens through the plugin while Redis is healthy and checks they are in Redis.
 * On a busy machine one answer may miss the 50 ms deadline (then `onStoreError` applied and Redis
 * was not charged), so it tries up to 5 times.
 */
async function chargeInRedis(
  server: BudgetServer,
  store: RedisBucketStore,
  user: string,
  first: number,
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await server.post(itemsQuery(first), { user });
    if ((await store.peek(user, POLICY)).remaining === POLICY.capacity - first - 2) return;
  }
  expect.fail(`the plugin did not charge ${user} in Redis in 5 attempts`);
}

/** True once Redis' bucket refuses an operation too large for what is left (up to 5 tries, as above). */
async function refusedByRedis(server: BudgetServer, user: string, first: number): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const reply = await server.post(itemsQuery(first), { user });
    if (reply.status === 429 && costOf(reply).throttleStatus !== null) return true;
  }
  return false;
}

/** Polls until a request is charged in Redis again; returns how long that took (ms). */
async function untilRedisCharges(server: BudgetServer, store: RedisBucketStore, user: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 5000) {
    const reply = await server.post(itemsQuery(0), { user });
    expect(reply.status).not.toBe(500);
    const inRedis = await store.peek(user, POLICY).catch(() => undefined);
    if (inRedis && inRedis.remaining < POLICY.capacity) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('limiting did not resume within 5 s');
}

/** Counts the calls that reach the real store. */
class CountingStore implements BucketStore {
  calls = 0;
  constructor(private readonly inner: BucketStore) {}
  consume(key: string, cost: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls++;
    return this.inner.consume(key, cost, policy, options);
  }
  refund(key: string, amount: number, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls++;
    return this.inner.refund(key, amount, policy, options);
  }
  peek(key: string, policy: BucketPolicy, options?: BucketCallOptions): Promise<BucketResult> {
    this.calls++;
    return this.inner.peek(key, policy, options);
  }
}

describe.each(['allow', 'deny', 'local'] as const)("onStoreError: '%s'", (onStoreError) => {
  let server: BudgetServer;
  let store: RedisBucketStore;
  let counting: CountingStore;

  beforeAll(async () => {
    store = isolatedStore(redis);
    counting = new CountingStore(store);
    server = await startBudgetServer(
      { store: counting, policy: POLICY, onStoreError, tuning: { storeTimeoutMs: TIMEOUT_MS } },
      { includeStacktraceInErrorResponses: true },
    );
    await warmUp(server);
  });
  afterAll(() => server.stop());

  function expectPolicyApplied(replies: Reply[]): void {
    for (const [index, reply] of replies.entries()) {
      if (onStoreError === 'allow') {
        expect(reply.status).toBe(200);
        expect(reply.body.data?.items).toHaveLength(8);
        expect(costOf(reply).throttleStatus).toBeNull();
        expect(reply.headers.get('ratelimit')).toBeNull();
      } else if (onStoreError === 'deny') {
        expect(reply.status).toBe(503);
        expect(reply.body.errors?.[0]?.extensions?.code).toBe('BUDGET_UNAVAILABLE');
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(reply.body.data).toBeUndefined();
      } else {
        // An in-process bucket with the same policy, starting where Redis left the caller's (50 of
        // 100 tokens): 5 operations of 10 tokens, then 429.
        expect(reply.status).toBe(index < 5 ? 200 : 429);
      }
    }
  }

  it('Redis killed: the policy applies promptly; restarted: limiting resumes within ~1 s', async () => {
    await chargeInRedis(server, store, 'killed', 48);

    await redisServer.kill();
    const during = await sequence(server, 'killed', 12);
    expectPrompt(during);
    expectPolicyApplied(during);
    if (onStoreError === 'local') {
      expect(costOf(during[4]!).throttleStatus?.currentlyAvailable).toBe(0);
      expect(during[5]!.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    }

    await redisServer.restart();
    const resumedAfter = await untilRedisCharges(server, store, 'killed-after');
    expect(resumedAfter).toBeLessThan(RESUME_WITHIN_MS);
    // Enforcement is back: an operation larger than what is left is refused by Redis' bucket.
    expect(await refusedByRedis(server, 'killed-after', 98)).toBe(true);
  });

  it('Redis paused (SIGSTOP): timeouts, not hangs; nothing is charged late; limiting resumes after SIGCONT', async () => {
    await redisServer.restart();
    await whenReady(redis);
    await chargeInRedis(server, store, 'paused', 48);

    redisServer.pause();
    const callsBefore = counting.calls;
    let during: Reply[];
    try {
      during = await sequence(server, 'paused', 12);
    } finally {
      redisServer.resume();
    }
    expectPrompt(during);
    expectPolicyApplied(during);
    // The circuit opened after 3 missed deadlines: the other requests did not call the store,
    // except one probe per 500 ms cool-down.
    const probes = Math.ceil(during.reduce((sum, reply) => sum + reply.ms, 0) / 500);
    expect(counting.calls - callsBefore).toBeLessThanOrEqual(3 + probes);

    const resumedAfter = await untilRedisCharges(server, store, 'paused-after');
    expect(resumedAfter).toBeLessThan(RESUME_WITHIN_MS);
    // The consumes that reached Redis after their deadline had no effect.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await store.peek('paused', POLICY)).remaining).toBe(50);
    expect(unhandled).toEqual([]);
  });
});

/** A custom store that ignores `timeoutMs` and never answers a consume. */
class SilentStore implements BucketStore {
  consumes = 0;
  consume(): Promise<BucketResult> {
    this.consumes++;
    return new Promise<BucketResult>(() => undefined);
  }
  refund(): Promise<BucketResult> {
    return new Promise<BucketResult>(() => undefined);
  }
  peek(): Promise<BucketResult> {
    return new Promise<BucketResult>(() => undefined);
  }
}

describe('a custom store that ignores timeoutMs', () => {
  it('is cut off shortly after the deadline, so no request hangs and the breaker still opens', async () => {
    const silent = new SilentStore();
    const server = await startBudgetServer({
      store: silent,
      policy: POLICY,
      onStoreError: 'allow',
      tuning: { storeTimeoutMs: TIMEOUT_MS },
    });
    try {
      const replies = await sequence(server, 'silent', 5);
      expectPrompt(replies);
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        expect(costOf(reply).throttleStatus).toBeNull();
      }
      // Three missed deadlines open the circuit: the next requests do not call the store at all.
      expect(silent.consumes).toBe(3);
      expect(server.logs.some((log) => log.level === 'warn' && /did not answer within 70 ms/.test(log.message))).toBe(
        true,
      );
    } finally {
      await server.stop();
    }
  });
});
