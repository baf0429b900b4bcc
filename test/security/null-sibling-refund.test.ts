/**
 * Attack: select the expensive field beside a non-null field that fails.
 *
 *   { report { id } x: book(id: "nope") { id } }
 *
 * `book` returns `Book!` and throws, so graphql-js nulls the whole `data`. A limiter that refunds a
 * response without data would run `report` (weight 50) at no charge, forever.
 *
 * Guarantee: once execution started, a subtree nulled by an error is charged at its estimate; only
 * an operation that never executed is refunded in full.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { isolatedStore, startBudgetServer, testRedis, whenReady, type BudgetServer } from '../plugin/budget-server.js';
import { libraryResolvers, libraryTypeDefs, type LibraryCounters } from './library-schema.js';

const ATTACK = '{ report { id } x: book(id: "nope") { id } }';

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

it('runs the expensive resolver once per budget, not forever', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const reply = await server.post(ATTACK, { user: 'mallory' });
    statuses.push(reply.status);
    if (reply.status === 200) {
      expect(reply.body.data).toBeNull();
      // Query 1 + Report 1 + Book 1, and the fields: report 50 + book 1. Nothing comes back.
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 54, actualQueryCost: 54 });
    }
  }
  expect(counters.expensiveRuns).toBe(1);
  expect(statuses).toEqual([200, 429, 429, 429, 429]);
});
