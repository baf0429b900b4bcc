/**
 * Attack: a list resolver that returns an iterable other than an array.
 *
 *   { everything { id } }
 *
 * `everything` has no `@listSize`, so it is priced at 10 items. Its resolver returns
 * `Map.values()` over 50 items (graphql-js completes any iterable as a list). An execution meter
 * that counted the items of arrays only was the charge where no error touched the response: 2
 * tokens were taken for work worth 52. The same with a `Set`, a generator, and the inner lists of a
 * list of lists.
 *
 * Guarantee: every item the response holds is counted, whatever iterable a resolver returned; the
 * response is the same as without the budget.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! }
type Query { everything(as: String!): [Item!]!, shelves(as: String!): [[Item!]!]! }
`;

const items = () => Array.from({ length: 50 }, (_, index) => ({ id: String(index) }));
function shaped(list: { id: string }[], as: string): Iterable<unknown> {
  if (as === 'set') return new Set(list);
  if (as === 'generator')
    return (function* generate() {
      yield* list;
    })();
  if (as === 'map-values') return new Map(list.map((item, index) => [index, item])).values();
  return list;
}
const resolvers = {
  Query: {
    everything: (_: unknown, { as }: { as: string }) => shaped(items(), as),
    shelves: (_: unknown, { as }: { as: string }) => [shaped(items(), as), shaped(items(), as)],
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 1000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it.each(['array', 'set', 'generator', 'map-values'])('charges the 50 items of a list returned as %s', async (as) => {
  const user = `mallory-${as}`;
  const reply = await server.post(`{ everything(as: "${as}") { id } }`, { user });
  expect((reply.body.data as { everything: unknown[] }).everything).toHaveLength(50);
  // Query 1 + everything 1 + 50 items.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 52 });
  expect((await store.peek(user, policy)).remaining).toBe(1000 - 52);
});

it.each(['array', 'set', 'generator'])('charges the items of inner lists returned as %s', async (as) => {
  const user = `shelves-${as}`;
  const reply = await server.post(`{ shelves(as: "${as}") { id } }`, { user });
  expect((reply.body.data as { shelves: unknown[][] }).shelves.map((shelf) => shelf.length)).toEqual([50, 50]);
  // Query 1 + shelves 1 + 100 items (priced at 10 × 10).
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 102, actualQueryCost: 102 });
  expect((await store.peek(user, policy)).remaining).toBe(1000 - 102);
});
