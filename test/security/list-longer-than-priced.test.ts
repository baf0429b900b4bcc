/**
 * Attack: select a list that the schema prices at fewer items than its resolver returns.
 *
 *   { everything { id } }
 *
 * `everything` has no `@listSize`, so it is priced at `defaultListSize` (10) items while its
 * resolver returns all 50. A settlement that caps the final charge at the estimate charged 12
 * tokens for work worth 52, so eight requests took 400 items from a budget of 100 tokens.
 *
 * The same for a mutation, whose root fields are never refunded below their estimate: a list it
 * returns beyond its price is charged too.
 *
 * And a list so long that walking it would pass the cost engine's work cap (`maxNodes`, 10,000):
 * a walk that stopped there, or gave up, would refund or forgive the rest.
 *
 * Guarantee: a list that comes back longer than its priced size is charged for the excess after
 * execution, even when that puts the bucket in debt (refusing until it has refilled); the response
 * walk counts every item, under no node limit.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! }
type Query { everything: [Item!]!, huge: [Item!]! }
type Mutation { addItems(count: Int!): [Item!]! @listSize(slicingArguments: ["count"]) }
`;

let served = 0;
const everything = () => {
  served += 50;
  return Array.from({ length: 50 }, (_, index) => ({ id: String(index) }));
};

const huge = () => Array.from({ length: 30_000 }, (_, index) => ({ id: String(index) }));

const store = new MemoryBucketStore();
const policy = { capacity: 100, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  const addItems = (_: unknown, { count }: { count: number }) => {
    served += count + 5;
    return Array.from({ length: count + 5 }, (_unused, index) => ({ id: String(index) }));
  };
  server = await startBudgetServer(
    { store, policy },
    { schema: { typeDefs, resolvers: { Query: { everything, huge }, Mutation: { addItems } } } },
  );
});
afterAll(() => server.stop());

it('charges what came back beyond the estimate, into debt', async () => {
  const first = await server.post('{ everything { id } }', { user: 'mallory' });
  expect(first.status).toBe(200);
  expect(costOf(first)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 52 });
  expect(costOf(first).throttleStatus?.currentlyAvailable).toBe(48);

  const second = await server.post('{ everything { id } }', { user: 'mallory' });
  expect(second.status).toBe(200);
  expect(costOf(second).throttleStatus?.currentlyAvailable).toBe(0);

  for (let i = 0; i < 6; i++) {
    const refused = await server.post('{ everything { id } }', { user: 'mallory' });
    expect(refused.status).toBe(429);
  }
  expect(served).toBe(100);
  // 104 tokens taken from 100: 4 owed, so even a 2-token operation waits for a refill that never comes.
  expect((await store.peek('mallory', policy)).remaining).toBe(0);
  expect((await server.post('{ __typename }', { user: 'mallory' })).status).toBe(429);
});

it('charges a mutation for the items it returned beyond its price', async () => {
  const reply = await server.post('mutation { addItems(count: 2) { id } }', { user: 'adder' });
  expect(reply.status).toBe(200);
  // Mutation 1 + addItems 1 + 7 items returned, where 2 were priced.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 4, actualQueryCost: 9 });
  expect((await store.peek('adder', policy)).remaining).toBe(91);
});

it('counts every item of a list past the work cap', async () => {
  const reply = await server.post('{ huge { id } }', { user: 'hoarder' });
  expect(reply.status).toBe(200);
  expect((reply.body.data as { huge: unknown[] }).huge).toHaveLength(30_000);
  // Query 1 + huge 1 + 30,000 items, where 10 were priced.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 30_002 });
  expect((await store.peek('hoarder', policy)).remaining).toBe(0);
});
