/**
 * Attack: slow the shared store down until the limiter stops asking it.
 *
 *   a flood of requests (or one slow shard) while Redis stalls, here a SIGSTOP
 *
 * Three missed deadlines open the circuit breaker. Under `onStoreError: 'allow'` every request then
 * runs uncharged, so whoever can slow Redis down switches the limiter off exactly when it is needed.
 *
 * And under `'local'`, a stand-in bucket that started full gave a caller who had spent most of
 * their budget a fresh one for the length of the stall.
 *
 * Guarantee: the default is `'local'`: while the store is unavailable each process charges an
 * in-process bucket with the same policy, which starts where the store last left the caller's
 * bucket (refilled since), with no added latency; limiting on the shared store resumes when Redis
 * returns.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisBucketStore } from '../../src/bucket/redis-store.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  testRedis,
  warmUp,
  whenReady,
  type BudgetServer,
  type Reply,
} from '../plugin/budget-server.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const POLICY = { capacity: 100, refillPerSecond: 0 };

let redisServer: RedisServer;
let redis: Redis;
let store: RedisBucketStore;
let server: BudgetServer;

beforeAll(async () => {
  redisServer = await startRedisServer();
  redis = testRedis(redisServer.port);
  await whenReady(redis);
  store = isolatedStore(redis);
  // Default options but for the store and the policy: onStoreError, deadline, breaker as shipped.
  server = await startBudgetServer({ store, policy: POLICY });
  await warmUp(server);
});

afterAll(async () => {
  await server.stop();
  redis.disconnect();
  await redisServer.stop();
});

/** `count` requests costing 10 each, `concurrency` at a time. */
async function flood(user: string, count: number, concurrency: number): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let sent = 0; sent < count; sent += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - sent) }, () =>
      server.post(itemsQuery(8), { user }),
    );
    replies.push(...(await Promise.all(batch)));
  }
  return replies;
}

it('keeps refusing a caller while Redis is stalled, and Redis governs again once it returns', async () => {
  // Healthy: 40 of mallory's 100 tokens are spent in Redis.
  for (const reply of await flood('mallory', 4, 1)) expect(reply.status).toBe(200);
  expect((await store.peek('mallory', POLICY)).remaining).toBe(60);

  redisServer.pause();
  let during: Reply[];
  try {
    during = await flood('mallory', 30, 5);
  } finally {
    redisServer.resume();
  }
  for (const reply of during) expect(reply.status === 200 || reply.status === 429).toBe(true);
  const served = during.filter((reply) => reply.status === 200);
  // This process's stand-in starts from the 60 tokens Redis last said mallory had: six operations of
  // 10, then 429, never uncharged.
  expect(served.length).toBe(6);
  expect(during.filter((reply) => reply.status === 429).length).toBe(24);
  for (const reply of served) expect(costOf(reply).throttleStatus).not.toBeNull();
  // Deciding locally adds no wait beyond the deadlines of the first calls.
  const slowest = Math.max(...during.map((reply) => reply.ms));
  expect(slowest).toBeLessThan(50 + 250);

  // Redis is back: after the breaker's cool-down a probe closes it and the shared bucket decides.
  const deadline = performance.now() + 5000;
  let backInRedis = false;
  while (!backInRedis && performance.now() < deadline) {
    await server.post(itemsQuery(0), { user: 'probe' });
    backInRedis = (await store.peek('probe', POLICY)).remaining < POLICY.capacity;
    if (!backInRedis) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(backInRedis).toBe(true);
  // Redis still holds what mallory spent before the stall: 60 left, so six more, then 429.
  const after = await flood('mallory', 7, 1);
  expect(after.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
  expect(costOf(after[6] as Reply).throttleStatus?.currentlyAvailable).toBe(0);
});
