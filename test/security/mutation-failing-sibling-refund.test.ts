/**
 * Attack: run a mutation beside a root mutation field that fails.
 *
 *   mutation { orderReport { id } x: book(id: "nope") { id } }
 *
 * Root mutation fields run one after another; `orderReport` (weight 50) runs and has its side
 * effect, then `book` (`Book!`) fails and nulls `data`. A limiter that refunds a response without
 * data gives the attacker every side effect for free.
 *
 * Guarantee: root mutation fields that ran are never refunded.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { isolatedStore, startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';
import { libraryResolvers, libraryTypeDefs, type LibraryCounters } from './library-schema.js';

const ATTACK = 'mutation { orderReport { id } x: book(id: "nope") { id } }';

let redis: Redis;
let server: BudgetServer;
const counters: LibraryCounters = { expensiveRuns: 0 };

beforeAll(async () => {
  redis = testRedis(inject('redisPort'));
  await whenReady(redis);
  server = await startBudgetServer(
    { store: isolatedStore(redis), policy: { capacity: 100, refillPerSecond: 0 }, tuning: { storeTimeoutMs: 1000 } },
    { schema: { typeDefs: libraryTypeDefs, resolvers: libraryResolvers(counters) } },
  );
});

afterAll(async () => {
  await server.stop();
  redis.disconnect();
});

it('charges every side effect that ran', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await server.post(ATTACK, { user: 'mallory' });
    statuses.push(reply.status);
    if (reply.status === 200) {
      expect(reply.body.data).toBeNull();
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 54, actualQueryCost: 54 });
    }
  }
  expect(counters.expensiveRuns).toBe(1);
  expect(statuses).toEqual([200, 429, 429, 429, 429]);
});

it('never refunds a root mutation field that ran, even when it returns less than its estimate', async () => {
  // Priced for 10 reports (Mutation 1 + 10 Reports + orderReports 50); the resolver returns 2.
  const reply = await server.post('mutation { orderReports(count: 10, returned: 2) { id } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 61, actualQueryCost: 61 });
});
