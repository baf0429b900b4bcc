/**
 * Attack: a list resolver that returns an async iterable (a streaming database cursor).
 *
 *   { items(first: 1000) { id } }        (Item @cost(weight: "5"), priced 5,002)
 *
 * GraphQL Yoga's executor completes an async iterable as a list: 1,000 items came back, and an
 * execution meter that read only synchronous iterables counted none of them; no error touched the
 * response, so its count was the charge: 2 tokens for work worth 5,002 (graphql-js 16, under Apollo
 * Server, refuses an async iterable for a list: "Expected Iterable").
 *
 * Guarantee: every item the response holds is counted, async iterables included.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { serverKind, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item @cost(weight: "5") { id: ID! }
type Query { items(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
`;
let produced = 0;
const resolvers = {
  Query: {
    items: async function* items(_: unknown, { first }: { first: number }) {
      for (let index = 0; index < first; index++) {
        produced += 1;
        yield { id: String(index) };
      }
    },
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 100_000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it('charges every item of a list its resolver streams', async () => {
  produced = 0;
  const reply = await server.post('{ items(first: 1000) { id } }', { user: 'mallory' });
  const taken = policy.capacity - (await store.peek('mallory', policy)).remaining;
  if (serverKind() === 'yoga') {
    expect((reply.body.data as { items: unknown[] }).items).toHaveLength(1000);
    expect(produced).toBe(1000);
  } else {
    // graphql-js 16 refuses it; what was priced stays charged.
    expect(reply.body.errors?.[0]?.message).toMatch(/Expected Iterable/);
  }
  // Query 1, items 1, 1,000 Items at 5.
  expect(taken).toBe(5002);
});
