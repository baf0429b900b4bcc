import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  type BudgetServer,
  type PluginOptions,
  fileRedis,
  serversStoppedAfterEach,
} from '../plugin/budget-server.js';

const redis = fileRedis();
const servers = serversStoppedAfterEach();

async function start(options: PluginOptions): Promise<BudgetServer> {
  const server = await startBudgetServer({ tuning: { storeTimeoutMs: 1000 }, ...options });
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
