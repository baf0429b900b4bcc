import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketPolicy, BucketStore } from '../../src/bucket/types.js';
import {
  type BudgetServer,
  costOf,
  isolatedStore,
  itemsQuery,
  type Reply,
  startBudgetServer,
  fileRedis,
  serversStoppedAfterEach,
} from '../plugin/budget-server.js';

const TIERS: Record<string, BucketPolicy> = {
  pro: { capacity: 1000, refillPerSecond: 10 },
  basic: { capacity: 100, refillPerSecond: 1 },
  slow: { capacity: 1000, refillPerSecond: 1 },
  fast: { capacity: 1000, refillPerSecond: 100 },
  frozen: { capacity: 1000, refillPerSecond: 0 },
};

const redis = fileRedis();
const servers = serversStoppedAfterEach();

const available = (reply: Reply): number | undefined => costOf(reply).throttleStatus?.currentlyAvailable;

describe.each([
  ['RedisBucketStore', (): BucketStore => isolatedStore(redis)],
  ['MemoryBucketStore', (): BucketStore => new MemoryBucketStore()],
])('tier switches on %s', (_name, makeStore) => {
  async function start(): Promise<BudgetServer> {
    const server = await startBudgetServer({
      store: makeStore(),
      policy: ({ contextValue }) => TIERS[contextValue.tier ?? 'basic'] as BucketPolicy,
      tuning: { storeTimeoutMs: 1000 },
    });
    servers.push(server);
    return server;
  }

  it('a downgrade and an upgrade give no spent token back', async () => {
    const server = await start();
    const spent = await server.post(itemsQuery(898), { user: 'ann', tier: 'pro' }); // costs 900
    expect(spent.status).toBe(200);
    expect(available(spent)).toBe(100);

    // Down to 100 tokens: the 900 missing tokens are still missing, so nothing is left.
    const down = await server.post(itemsQuery(0), { user: 'ann', tier: 'basic' }); // costs 2
    expect(down.status).toBe(429);
    expect(available(down)).toBe(0);
    // 800 of them must refill first (at 10/s until now, at 1/s from the next write): minutes, not 0.
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(700);

    // Back up: the same 100 tokens (plus the little refilled meanwhile), not a fresh 1000.
    const up = await server.post(itemsQuery(0), { user: 'ann', tier: 'pro' }); // costs 2
    expect(up.status).toBe(200);
    expect(available(up)).toBeGreaterThanOrEqual(98);
    expect(available(up)).toBeLessThan(98 + 20);
  });

  it('an upgrade keeps what was left: 10 used at 1/s, then 100/s, leaves 990', async () => {
    const server = await start();
    const used = await server.post(itemsQuery(8), { user: 'bob', tier: 'slow' }); // costs 10
    expect(available(used)).toBe(990);
    const faster = await server.post(itemsQuery(0), { user: 'bob', tier: 'fast' }); // costs 2
    expect(faster.status).toBe(200);
    expect(available(faster)).toBeGreaterThanOrEqual(988);
    expect(available(faster)).toBeLessThanOrEqual(990);
  });

  it('a switch to refill 0 reads the bucket with its real debt, and a refund there gives back only what it should', async () => {
    const server = await start();
    const used = await server.post(itemsQuery(8), { user: 'cat', tier: 'slow' }); // costs 10
    expect(available(used)).toBe(990);
    const frozen = await server.post(itemsQuery(0), { user: 'cat', tier: 'frozen' }); // costs 2
    expect(frozen.status).toBe(200);
    const left = available(frozen) as number;
    expect(left).toBeGreaterThanOrEqual(988);
    expect(left).toBeLessThanOrEqual(990);
    // Estimated 12, actual 4: 8 given back. Without refill nothing else changes the count.
    const refunded = await server.post(itemsQuery(10, 2), { user: 'cat', tier: 'frozen' });
    expect(refunded.status).toBe(200);
    expect(available(refunded)).toBe(left - 4);
    const still = await server.post(itemsQuery(0), { user: 'cat', tier: 'frozen' });
    expect(available(still)).toBe(left - 6);
  });
});
