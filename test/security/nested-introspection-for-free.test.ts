/**
 * Attack: make the server walk its own schema, many lists deep, at no charge.
 *
 *   { __schema { types { fields { args { type { name } } type { name } } inputFields { name } } } }
 *
 * Each list level multiplies the work by the number of types, fields or arguments (graphql-js's
 * MaxIntrospectionDepthRule caps only the nesting of `fields`, `interfaces` and `possibleTypes`
 * at three, not the breadth below them). Where introspection fields cost nothing, a caller with an
 * empty bucket can still send this as often as they like.
 *
 * Guarantee: only `__typename` is free by default; introspection is priced like any other
 * selection, by the schema's real sizes (`introspection: 'free'` opts out, documented as unsafe
 * where introspection is on). Outside production (`introspection: 'free-when-alone'`, the default there),
 * an operation of nothing but introspection is free, so that schema tools work; this file runs as
 * production does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costOf, itemsQuery, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const ATTACK = '{ __schema { types { fields { args { type { name } } type { name } } inputFields { name } } } }';

let server: BudgetServer;
beforeAll(async () => {
  // As in production (NODE_ENV=production), where not even introspection-only operations are free.
  server = await startBudgetServer({
    store: new MemoryBucketStore(),
    policy: { capacity: 200, refillPerSecond: 0 },
    introspection: 'priced',
  });
});
afterAll(() => server.stop());

it('prices nested introspection, so it cannot be sent for free', async () => {
  const reply = await server.post(ATTACK, { user: 'mallory' });
  // Priced by what the schema answers (its types, the fields of each, their arguments): 252 tokens,
  // beyond a 200-token bucket.
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
  expect(reply.body.errors?.[0]?.extensions?.estimatedCost).toBe(252);
});

it('refuses introspection to a caller whose bucket is empty', async () => {
  expect((await server.post(itemsQuery(198), { user: 'empty' })).status).toBe(200);
  const reply = await server.post('{ __schema { queryType { name } } }', { user: 'empty' });
  expect(reply.status).toBe(429);
});

it('keeps __typename free', async () => {
  const reply = await server.post('{ __typename }', { user: 'someone' });
  expect(reply.status).toBe(200);
  // Only the Query object itself (IBM spec: the root type's weight).
  expect(costOf(reply).requestedQueryCost).toBe(1);
});
