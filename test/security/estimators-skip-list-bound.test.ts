/**
 * Attack: a negative or huge slicing argument where the plugin prices with graphql-query-complexity
 * estimators instead of the directives.
 *
 *   { books(first: -1) { id } }       (estimators: [simpleEstimator({ defaultComplexity: 1 })])
 *
 * The estimators price lists their own way, and the bound on client-chosen list sizes was part of
 * the directive pricing alone: all 14 out-of-range forms tried (literal, variable, default, nested
 * input path, list length, 2^31−1) ran, `first: -1` running `slice(0, -1)` for 2 tokens.
 *
 * Guarantee: a client-chosen list size outside [0, maxListSize] is refused before anything runs,
 * whichever way the operation is priced.
 */
import { simpleEstimator } from 'graphql-query-complexity';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
input Page { first: Int }
type Book { id: ID! }
type Query {
  books(first: Int): [Book!]! @listSize(slicingArguments: ["first"])
  paged(page: Page): [Book!]! @listSize(slicingArguments: ["page.first"])
}
`;
let ran = 0;
const all = Array.from({ length: 50 }, (_, id) => ({ id }));
const resolvers = {
  Query: {
    books: (_: unknown, { first }: { first: number }) => {
      ran += 1;
      return all.slice(0, first);
    },
    paged: () => {
      ran += 1;
      return all;
    },
  },
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    {
      store: new MemoryBucketStore(),
      policy: { capacity: 1000, refillPerSecond: 0 },
      estimators: [simpleEstimator({ defaultComplexity: 1 })],
    },
    { schema: { typeDefs, resolvers } },
  );
});
afterAll(() => server.stop());

it.each([
  ['{ books(first: -1) { id } }', {}],
  ['query ($n: Int) { books(first: $n) { id } }', { n: 10_001 }],
  ['query ($n: Int = -5) { books(first: $n) { id } }', {}],
  ['{ paged(page: { first: -1 }) { id } }', {}],
])('refuses %s before it runs', async (query, variables) => {
  const reply = await server.post(query, { user: 'mallory', variables });
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_LIST_SIZE_OUT_OF_RANGE');
  expect(ran).toBe(0);
});

it('still prices with the estimators within the bound', async () => {
  const reply = await server.post('{ books(first: 3) { id } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(ran).toBe(1);
});
