/**
 * Attack: get the plugin to count a misconfigured tier as a store outage.
 *
 *   three requests on a tier whose policy is { capacity: 1000, refillPerSecond: 1e-7 }
 *   (refilling from empty would take 1e10 s; the stores refuse it)
 *
 * If the store's refusal fed the circuit breaker, three such requests would open it and every
 * other caller would run uncharged (`onStoreError: 'allow'`) or be refused with 503 (`'deny'`): one
 * tier's mistake would switch limiting off for everyone.
 *
 * The same with a list of limits the stores refuse: more than 64 buckets, one shared key twice, a
 * shared key equal to one of the caller's own buckets (a key computed from data the caller controls).
 *
 * Guarantee: one validation, shared by the plugin and the stores; a policy error fails that request
 * alone (500, generic message, logged in full) and never counts as a store failure.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StoreErrorPolicy } from '../../src/plugin/guarded-store.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  testRedis,
  whenReady,
  type BudgetServer,
} from '../plugin/budget-server.js';

const BROKEN = { capacity: 1000, refillPerSecond: 1e-7 };
const GOOD = { capacity: 100, refillPerSecond: 0 };
const window = (name: string, key?: string) => ({ name, capacity: 100, refillPerSecond: 1, ...(key && { key }) });
/** Lists of limits the stores refuse, by tier. */
const BROKEN_LISTS: Record<string, (user: string) => unknown> = {
  many: () => Array.from({ length: 65 }, (_, i) => window(`w${i}`)),
  twice: () => [window('own'), window('org', 'acme'), window('team', 'acme')],
  own: (user) => [window('own'), window('org', `${user}\u0000own`)],
};

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

describe.each<StoreErrorPolicy>(['allow', 'deny', 'local'])('onStoreError %s', (onStoreError) => {
  it('fails the broken tier alone and keeps charging everyone else in Redis', async () => {
    const server = await startBudgetServer({
      store: isolatedStore(redis),
      onStoreError,
      storeTimeoutMs: 1000,
      policy: ({ contextValue }) => (contextValue.tier === 'broken' ? BROKEN : GOOD),
    });
    servers.push(server);

    for (let i = 0; i < 5; i++) {
      const reply = await server.post(itemsQuery(3), { user: `broken-${i}`, tier: 'broken' });
      expect(reply.status).toBe(500);
      expect(reply.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      // The client learns nothing about the configuration.
      expect(JSON.stringify(reply.body)).not.toMatch(/refillPerSecond|capacity|1e-7|1e\+?10/);
    }
    expect(server.logs.some((log) => log.level === 'error' && /refillPerSecond/.test(log.message))).toBe(true);

    const reply = await server.post(itemsQuery(8), { user: 'bystander' });
    expect(reply.status).toBe(200);
    // Charged by the shared store: 100 − (8 + 2) left.
    expect(costOf(reply).throttleStatus).toEqual({ maximumAvailable: 100, currentlyAvailable: 90, restoreRate: 0 });
    expect(server.logs.filter((log) => /bucket store failed/.test(log.message))).toEqual([]);
  });
});

describe.each<StoreErrorPolicy>(['allow', 'deny', 'local'])('lists of limits, onStoreError %s', (onStoreError) => {
  it('fails each broken list alone and keeps charging everyone else in Redis', async () => {
    const server = await startBudgetServer({
      store: isolatedStore(redis),
      onStoreError,
      storeTimeoutMs: 1000,
      policy: ({ contextValue }) => {
        const broken = BROKEN_LISTS[contextValue.tier ?? ''];
        return (broken === undefined ? GOOD : broken(contextValue.user ?? '')) as typeof GOOD;
      },
    });
    servers.push(server);

    for (const tier of Object.keys(BROKEN_LISTS)) {
      for (let i = 0; i < 3; i++) {
        const reply = await server.post(itemsQuery(3), { user: `${tier}-${i}`, tier });
        expect(reply.status).toBe(500);
        expect(reply.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
      }
    }
    const reply = await server.post(itemsQuery(8), { user: 'bystander' });
    expect(reply.status).toBe(200);
    expect(costOf(reply).throttleStatus).toEqual({ maximumAvailable: 100, currentlyAvailable: 90, restoreRate: 0 });
    expect(server.logs.filter((log) => /bucket store failed/.test(log.message))).toEqual([]);
  });
});
