/**
 * Attack: ask for a huge list of scalars, which the spec's default weights make free.
 *
 *   { book { tags(first: 2000000) } }
 *
 * Scalars weigh 0 by the IBM defaults, so `@listSize` alone prices a list of 2 million strings at
 * the same 1 token as an empty one: it returned 26.9 MB and took about 1.4 s of server CPU for 1
 * token, and nested under 40 books, 2 million strings each cost 42.
 *
 * Guarantee: the work one token buys is bounded for every list whose size the client picks: a size
 * above `maxListSize` (10,000 by default) is refused with a 400 before anything runs. A scalar or
 * enum list that a client sizes but that has no `@cost` is named in a warning when the schema loads.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
enum Shade { LIGHT DARK }
type Book {
  tags(first: Int!): [String!]! @listSize(slicingArguments: ["first"])
  shades(first: Int!): [Shade!]! @listSize(slicingArguments: ["first"])
  words(first: Int!): [String!]! @cost(weight: "1") @listSize(slicingArguments: ["first"])
}
type Query { book: Book, books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"]) }
`;

let stringsServed = 0;
const strings = (_: unknown, { first }: { first: number }) => {
  stringsServed += first;
  return Array.from({ length: first }, (_unused, index) => `tag-${index}`);
};
const resolvers = {
  Query: {
    book: () => ({}),
    books: (_: unknown, { first }: { first: number }) => Array.from({ length: first }, () => ({})),
  },
  Book: { tags: strings, shades: () => [], words: strings },
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 100, refillPerSecond: 5 } },
    { schema: { typeDefs, resolvers } },
  );
});
afterAll(() => server.stop());

it.each([
  '{ book { tags(first: 2000000) } }',
  '{ books(first: 40) { tags(first: 2000000) } }',
  '{ book { tags(first: 10001) } }',
])('refuses %s before it runs', async (query) => {
  const reply = await server.post(query, { user: 'mallory' });
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_LIST_SIZE_OUT_OF_RANGE');
  expect(reply.body.errors?.[0]?.message).toMatch(/Book\.tags.*first.*between 0 and 10000 \(maxListSize\)/);
  expect(stringsServed).toBe(0);
});

it('serves a scalar list within the bound', async () => {
  const reply = await server.post('{ book { tags(first: 10000) } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(stringsServed).toBe(10_000);
});

it('warns once at schema load about client-sized scalar and enum lists without a @cost', () => {
  const warnings = server.logs.filter((log) => log.level === 'warn' && /without a @cost/.test(log.message));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.message).toMatch(/Book\.tags/);
  expect(warnings[0]?.message).toMatch(/Book\.shades/);
  expect(warnings[0]?.message).not.toMatch(/Book\.words/);
});
