/**
 * Attack: hide a list longer than its price under a null an error makes.
 *
 *   { everything { id check } }
 *
 * `everything` has no `@listSize`, so it is priced at 10 items; its resolver returns 50, and
 * `check` (a `String!`) fails on the last one. The failure nulls the item, the non-null item nulls
 * the list and the list nulls `data`: the response shows nothing of the 50 items, and a settlement
 * that prices a nulled response at its estimate charged 12 tokens for work worth 52.
 * The same with a slower sibling: `{ a: slowEverything { id } b: failing }` answers `data: null`
 * as soon as `failing` throws, and the 50 items of `slowEverything` are produced after the response.
 *
 * Guarantee: where an error hides work, the charge is at least what the resolvers were seen doing
 * (each call and each value they returned, metered as execution goes); work that finishes after
 * the response is charged when it finishes.
 */
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! check: String! }
type Query { everything: [Item!]!, slowEverything: [Item!]!, failing: String! }
`;

let produced = 0;
const items = () => {
  produced += 50;
  return Array.from({ length: 50 }, (_, index) => ({ id: String(index) }));
};
const resolvers = {
  Item: {
    check: (item: { id: string }) => {
      if (item.id === '49') throw new GraphQLError('check failed');
      return 'ok';
    },
  },
  Query: {
    everything: items,
    slowEverything: () => new Promise((resolve) => setTimeout(() => resolve(items()), 50)),
    failing: () => {
      throw new GraphQLError('failed');
    },
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 100, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it('charges the items an error nulled at what the resolvers returned', async () => {
  const reply = await server.post('{ everything { id check } }', { user: 'mallory' });
  expect(reply.body.data).toBeNull();
  // Query 1 + everything 1 + 50 items (check is a scalar: 0).
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 52 });
  expect((await store.peek('mallory', policy)).remaining).toBe(48);
  await server.post('{ everything { id check } }', { user: 'mallory' });
  expect((await server.post('{ everything { id check } }', { user: 'mallory' })).status).toBe(429);
  expect(produced).toBe(100);
});

it('charges work that finishes after the response when it finishes', async () => {
  const reply = await server.post('{ a: slowEverything { id } b: failing }', { user: 'patient' });
  expect(reply.body.data).toBeNull();
  // The estimate: Query 1, slowEverything 1 + 10 items, failing 0.
  expect(costOf(reply).requestedQueryCost).toBe(12);
  await new Promise((resolve) => setTimeout(resolve, 150));
  // Query 1 + slowEverything 1 + its 50 items, charged once they were produced.
  expect((await store.peek('patient', policy)).remaining).toBe(100 - 52);
});
