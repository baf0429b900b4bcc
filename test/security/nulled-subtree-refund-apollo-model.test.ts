/**
 * Attack (costModel: 'apollo'): hide the expensive field in an object a failing non-null child nulls.
 *
 *   { shelf { report { id } book(id: "nope") { id } } }
 *
 * `Shelf.book` returns `Book!` and throws, so graphql-js answers `{ shelf: null }`. Apollo Router's
 * actual cost reads no errors and charges a null its `@cost` weight or 0: `shelf` costs 0 there,
 * and a limiter on those rules would refund the whole estimate while `Shelf.report` (weight 50)
 * ran.
 *
 * Guarantee: under costModel 'apollo' as under 'ibm', a subtree an error nulled is charged at its
 * estimate, never at 0.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { isolatedStore, startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';
import { libraryResolvers, libraryTypeDefs, type LibraryCounters } from './library-schema.js';

const ATTACK = '{ shelf { report { id } book(id: "nope") { id } } }';

let redis: Redis;
let server: BudgetServer;
const counters: LibraryCounters = { expensiveRuns: 0 };

beforeAll(async () => {
  redis = testRedis(inject('redisPort'));
  await whenReady(redis);
  server = await startBudgetServer(
    {
      store: isolatedStore(redis),
      policy: { capacity: 100, refillPerSecond: 0 },
      tuning: { storeTimeoutMs: 1000 },
      costModel: 'apollo',
    },
    { schema: { typeDefs: libraryTypeDefs, resolvers: libraryResolvers(counters) } },
  );
});

afterAll(async () => {
  await server.stop();
  redis.disconnect();
});

it('charges the nulled shelf at its estimate', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await server.post(ATTACK, { user: 'mallory' });
    statuses.push(reply.status);
    if (reply.status === 200) {
      expect(reply.body.data).toEqual({ shelf: null });
      // shelf 1 × (Shelf 1 + report's own 50 + book 1 × (Book 1 + id 0)) = 52, all of it charged.
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 52, actualQueryCost: 52 });
    }
  }
  expect(counters.expensiveRuns).toBe(1);
  expect(statuses).toEqual([200, 429, 429, 429, 429]);
});

it('still refunds a legitimate null', async () => {
  // shelf 1 × (Shelf 1 + book 1 × (Book 1)) = 2, returned in full: 2.
  const reply = await server.post('{ shelf { id book(id: "known") { id } } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 2, actualQueryCost: 2 });
});
