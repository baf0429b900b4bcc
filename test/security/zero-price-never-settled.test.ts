/**
 * Attack: ask for zero items from a resolver that returns them anyway.
 *
 *   { books(first: 0) { id similar(first: 3) { id } } }      (the resolvers ignore `first`)
 *
 * The operation is priced 0 under Apollo Router's formula (the root weighs nothing, and zero books
 * are asked for), or under a `cost` option that rounds small estimates down to 0. A settlement that
 * skips operations priced 0 never looks at what they returned: 500 books and 500 `similar` calls
 * (weight 5) for nothing.
 *
 * Guarantee: every executed operation is settled, whatever it was priced up front: what its
 * resolvers returned beyond its price is charged. Only an operation free by decision (introspection
 * alone, outside production) is not.
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, serversStoppedAfterEach, startBudgetServer, type PluginOptions } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Book { id: ID! similar(first: Int): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"]) }
type Query { books(first: Int): [Book!]! @listSize(slicingArguments: ["first"]) }
`;
const all = Array.from({ length: 500 }, (_, index) => ({ id: String(index) }));
let similarCalls = 0;
const resolvers = {
  Query: { books: () => all },
  Book: {
    similar: () => {
      similarCalls += 1;
      return all.slice(0, 3);
    },
  },
};
const servers = serversStoppedAfterEach();
afterEach(() => {
  similarCalls = 0;
});
const policy = { capacity: 100_000, refillPerSecond: 0 };

async function attack(options: PluginOptions): Promise<{ taken: number; actual: number | null }> {
  const store = new MemoryBucketStore();
  const server = await startBudgetServer({ store, policy, ...options }, { schema: { typeDefs, resolvers } });
  servers.push(server);
  const reply = await server.post('{ books(first: 0) { id similar(first: 3) { id } } }', { user: 'mallory' });
  expect(reply.status).toBe(200);
  expect(costOf(reply).requestedQueryCost).toBe(0);
  return {
    taken: policy.capacity - (await store.peek('mallory', policy)).remaining,
    actual: costOf(reply).actualQueryCost,
  };
}

it("charges what a zero-priced operation returned, under Apollo Router's formula", async () => {
  const { taken } = await attack({ costModel: 'apollo' });
  expect(similarCalls).toBe(500);
  // 500 books (1 each) and, for each, similar: 3 books × its weight 5 (the router's formula).
  expect(taken).toBe(500 * (1 + 3 * 5));
});

it('charges it under a cost option that rounds small estimates down to 0', async () => {
  const { taken, actual } = await attack({
    cost: (estimate) => Math.floor((estimate.typeCost + estimate.fieldCost) / 10),
  });
  expect(similarCalls).toBe(500);
  // Query 1 + 500 books + 1,500 similar books, the fields books 1 + 500 × similar 5: 4,502, tenths rounded down.
  expect(actual).toBe(450);
  expect(taken).toBe(actual);
});
