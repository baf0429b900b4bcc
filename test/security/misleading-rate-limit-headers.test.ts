/**
 * Attack (on the client's trust): act on what the limiter says.
 *
 *   a client that waits exactly `Retry-After`, or `t`, or spends exactly `r`, before it sends again
 *
 * A 429 that says `Retry-After: 1` beside `RateLimit: …;t=17`, a `q` that counts requests when the
 * budget counts cost, a `q=0` for a small fractional budget, or an `r` one lower than the bucket
 * holds all teach a well-behaved client the wrong thing: it either hammers the server with requests
 * that will be refused or leaves tokens unused.
 *
 * Guarantee: on a 429, `Retry-After` is the whole seconds until the operation can be paid and the
 * RateLimit field's `t` is the same number (draft-ietf-httpapi-ratelimit-headers-10 §6); the quota
 * unit is named; no quota is stated that the bucket cannot hold; integer costs on integer policies
 * give integer answers in both stores.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  testRedis,
  whenReady,
  type BudgetServer,
  type PluginOptions,
} from '../plugin/budget-server.js';

let redis: Redis;
const servers: BudgetServer[] = [];
beforeAll(async () => {
  redis = testRedis(inject('redisPort'));
  await whenReady(redis);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});
afterAll(() => redis.disconnect());

async function start(options: PluginOptions): Promise<BudgetServer> {
  const server = await startBudgetServer({ storeTimeoutMs: 1000, ...options });
  servers.push(server);
  return server;
}

describe.each<[string, () => BucketStore]>([
  ['RedisBucketStore', () => isolatedStore(redis)],
  ['MemoryBucketStore', () => new MemoryBucketStore()],
])('%s', (_name, store) => {
  it('says on a 429 the same wait in Retry-After and in t', async () => {
    // 1,000 tokens refilling 50/s: after 990 are spent, a 40-token operation is 30 tokens short.
    const server = await start({ store: store(), policy: { capacity: 1000, refillPerSecond: 50 } });
    expect((await server.post(itemsQuery(988), { user: 'client' })).status).toBe(200);
    const refused = await server.post(itemsQuery(38), { user: 'client' });
    expect(refused.status).toBe(429);
    const retryAfter = refused.headers.get('retry-after');
    expect(retryAfter).toBe('1');
    // Before this fix: t was the time until the bucket is full (20 s).
    expect(refused.headers.get('ratelimit')).toMatch(new RegExp(`^"budget";r=1\\d;t=${retryAfter}$`));
  });

  it('tells the exact integer left after integer costs', async () => {
    const server = await start({ store: store(), policy: { capacity: 1000, refillPerSecond: 50 } });
    const reply = await server.post(itemsQuery(18), { user: 'exact' });
    expect(costOf(reply).throttleStatus?.currentlyAvailable).toBe(980);
    expect(reply.headers.get('ratelimit')).toMatch(/^"budget";r=980;t=1$/);
  });
});

it('names the quota unit with a vendor parameter, since cost tokens are not a registered unit', async () => {
  const server = await start({ store: new MemoryBucketStore(), policy: { capacity: 100, refillPerSecond: 5 } });
  const reply = await server.post(itemsQuery(1), { user: 'client' });
  expect(reply.headers.get('ratelimit-policy')).toBe('"budget";q=100;w=20;graphql-budget-unit="query-cost"');
  expect(reply.headers.get('ratelimit-policy')).not.toMatch(/;qu=/);
});

it('states no quota of 0 for a budget below one token', async () => {
  const server = await start({
    store: new MemoryBucketStore(),
    policy: { capacity: 0.5, refillPerSecond: 0.1 },
    cost: () => 0.25,
  });
  const reply = await server.post(itemsQuery(1), { user: 'client' });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('ratelimit-policy')).toBeNull();
  expect(reply.headers.get('ratelimit')).toBeNull();
  // The exact figures stay in extensions.cost.
  expect(costOf(reply).throttleStatus).toEqual({ maximumAvailable: 0.5, currentlyAvailable: 0, restoreRate: 0.1 });
});
