/**
 * Attack (on the caller's behalf): ask for a dry run below the root.
 *
 *   { books(first: 20) { id } me { rateLimit(dryRun: true) { cost remaining } } }     (me: Query!)
 *
 * Execution reads `dryRun: true` under `me`, so the caller asked to see the price without paying. A
 * dry-run check that looks at the root alone ran everything and charged it.
 *
 * Guarantee: a dry run, wherever execution would read it, takes no tokens and runs nothing else:
 * one the plugin cannot answer (below the root) is refused with a 400 before anything runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../src/plugin/rate-limit-field.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Book { id: ID! }
type Query { books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"]) me: Query! }
${rateLimitTypeDefs}`;
let booksRuns = 0;
const resolvers = {
  Query: {
    ...rateLimitResolvers.Query,
    me: () => ({}),
    books: (_: unknown, { first }: { first: number }) => {
      booksRuns += 1;
      return Array.from({ length: first }, (_unused, id) => ({ id }));
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

it.each([
  '{ books(first: 20) { id } me { rateLimit(dryRun: true) { cost remaining } } }',
  'query ($d: Boolean = true) { books(first: 20) { id } me { me { ...R } } } fragment R on Query { rateLimit(dryRun: $d) { cost } }',
])('refuses a dry run below the root, running nothing and taking nothing: %s', async (query) => {
  const reply = await server.post(query, { user: 'carol' });
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.extensions?.code).toBe('DRY_RUN_NOT_AT_ROOT');
  expect(booksRuns).toBe(0);
  expect((await store.peek('carol', policy)).remaining).toBe(100);
});

it('runs a nested rateLimit without a dry run as any field', async () => {
  const reply = await server.post('{ books(first: 2) { id } me { rateLimit { cost } } }', { user: 'dave' });
  expect(reply.status).toBe(200);
  expect(booksRuns).toBe(1);
});
