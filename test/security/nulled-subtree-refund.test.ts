/**
 * Attack: hide the expensive field in an object that a failing non-null child nulls.
 *
 *   { shelf { report { id } book(id: "nope") { id } } }
 *
 * `Shelf.book` returns `Book!` and throws, so graphql-js answers `{ shelf: null }`. A limiter that
 * prices the returned data counts `shelf` as one empty object and refunds the rest, so
 * `Shelf.report` (weight 50) runs for almost nothing.
 *
 * Guarantee: a subtree nulled by an error is charged at its estimate, never at 0.
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
    { store: isolatedStore(redis), policy: { capacity: 100, refillPerSecond: 0 }, tuning: { storeTimeoutMs: 1000 } },
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
      // Query, Shelf, Report, Book (4) and the fields shelf 1 + report 50 + book 1.
      expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 56, actualQueryCost: 56 });
    }
  }
  expect(counters.expensiveRuns).toBe(1);
  expect(statuses).toEqual([200, 429, 429, 429, 429]);
});

it('still refunds a legitimate null and a healthy sibling', async () => {
  // No error: `shelf.book(id: "known")` answers, so the actual cost is the data's own cost.
  const reply = await server.post('{ shelf { id book(id: "known") { id } } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 5, actualQueryCost: 5 });
});
