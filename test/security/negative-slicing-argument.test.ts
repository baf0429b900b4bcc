/**
 * Attack: ask for a negative number of items from a resolver that slices.
 *
 *   { books(first: -1) { similar(first: -1) { title } } }
 *
 * The resolvers of the README's install example call `books.slice(0, first)`, and `slice(0, -1)`
 * returns every item but the last. The IBM rule prices a negative slicing value as 0 items, so with
 * 200 books this ran `similar` (weight 5) 199 times and returned 39,601 books for 2 tokens; its
 * honest price is 40,598.
 *
 * Guarantee: a client-chosen list size outside [0, maxListSize] (10,000 by default) is refused
 * with a 400 naming the argument and the bound, before anything runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

/** The README install example's schema. */
const typeDefs = `${costDirectivesTypeDefs}
type Query { books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"]) }
type Book {
  title: String!
  similar(first: Int = 3): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"])
}
`;

interface Book {
  title: string;
}
const books: Book[] = Array.from({ length: 200 }, (_, index) => ({ title: `Book ${index}` }));
let similarCalls = 0;
let booksReturned = 0;
const resolvers = {
  Query: {
    books: (_: unknown, { first }: { first: number }) => {
      const page = books.slice(0, first);
      booksReturned += page.length;
      return page;
    },
  },
  Book: {
    similar: (book: Book, { first }: { first: number }) => {
      similarCalls += 1;
      const page = books.filter((other) => other !== book).slice(0, first);
      booksReturned += page.length;
      return page;
    },
  },
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 100, refillPerSecond: 5 } },
    { schema: { typeDefs, resolvers } },
  );
});
afterAll(() => server.stop());

it('refuses a negative slicing argument before anything runs, naming the argument and the bound', async () => {
  const reply = await server.post('{ books(first: -1) { similar(first: -1) { title } } }', { user: 'mallory' });
  expect(reply.status).toBe(400);
  const [error] = reply.body.errors ?? [];
  expect(error?.extensions?.code).toBe('COST_LIST_SIZE_OUT_OF_RANGE');
  expect(error?.message).toMatch(/Query\.books.*-1.*first.*between 0 and 10000/);
  expect(similarCalls).toBe(0);
  expect(booksReturned).toBe(0);
});

it('refuses a negative size given through a variable as well', async () => {
  const reply = await server.post('query ($n: Int) { books(first: 2) { similar(first: $n) { title } } }', {
    user: 'mallory',
    variables: { n: -3 },
  });
  expect(reply.status).toBe(400);
  expect(reply.body.errors?.[0]?.message).toMatch(/Book\.similar/);
  expect(similarCalls).toBe(0);
});

it('prices and serves a size inside the bound as before', async () => {
  const reply = await server.post('{ books(first: 2) { similar(first: 2) { title } } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(costOf(reply).requestedQueryCost).toBe(18);
  expect(similarCalls).toBe(2);
});
