import { describe, expect, it } from 'vitest';
import type { StoreErrorPolicy } from '../../src/core/outcomes.js';
import {
  costOf,
  isolatedStore,
  itemsQuery,
  startBudgetServer,
  fileRedis,
  serversStoppedAfterEach,
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

const redis = fileRedis();
const servers = serversStoppedAfterEach();

describe.each<StoreErrorPolicy>(['allow', 'deny', 'local'])('onStoreError %s', (onStoreError) => {
  it('fails the broken tier alone and keeps charging everyone else in Redis', async () => {
    const server = await startBudgetServer({
      store: isolatedStore(redis),
      onStoreError,
      tuning: { storeTimeoutMs: 1000 },
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
      tuning: { storeTimeoutMs: 1000 },
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
