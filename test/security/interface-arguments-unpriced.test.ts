/**
 * Attack: pass a priced argument by variable on a field selected through an interface, where the
 * implementation's field carries the `@cost` or `@listSize` the interface field does not.
 *
 *   query ($c: Int) { shelves { tags(count: $c) } }          (shelves: [Shelf!]!, Shelf an interface)
 *
 * Pricing read which variables matter from the interface field, so the implementation's slicing
 * and weighted arguments were never read: `count: 200000` and `count: -1` ran for 3 tokens past
 * `maxListSize`, and a weight of 100 per call went uncharged.
 *
 * Guarantee: a variable prices if it reaches an argument that prices on any possible type's field.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
interface Shelf { tags(count: Int, deep: Boolean): [String!]! }
type Library implements Shelf {
  tags(count: Int, deep: Boolean @cost(weight: "100")): [String!]! @listSize(slicingArguments: ["count"]) @cost(weight: "1")
}
type Query { shelves: [Shelf!]! @listSize(assumedSize: 10) }
`;
let returned = 0;
const resolvers = {
  Shelf: { __resolveType: () => 'Library' },
  Library: {
    tags: (_: unknown, { count }: { count?: number }) => {
      const tags = Array.from({ length: 10 }, (_unused, index) => `tag${index}`).slice(0, count ?? 10);
      returned += tags.length;
      return tags;
    },
  },
  Query: { shelves: () => Array.from({ length: 10 }, () => ({})) },
};

const store = new MemoryBucketStore();
const policy = { capacity: 100_000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

const QUERY = 'query ($c: Int, $d: Boolean) { shelves { tags(count: $c, deep: $d) } }';

it("refuses a size outside [0, maxListSize] sent by variable to an implementation's slicing argument", async () => {
  for (const count of [200_000, -1]) {
    returned = 0;
    const reply = await server.post(QUERY, { user: `sizer${count}`, variables: { c: count } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_LIST_SIZE_OUT_OF_RANGE');
    expect(returned).toBe(0);
  }
});

it("charges an implementation's weighted argument sent by variable", async () => {
  const reply = await server.post(QUERY, { user: 'weigher', variables: { c: 0, d: true } });
  expect(reply.status).toBe(200);
  // The operation 1, shelves 1, 10 Libraries at 1, each tags call 1 and its deep argument 100.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 1022, actualQueryCost: 1022 });
});
