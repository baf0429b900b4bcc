/**
 * Attack: leave out the slicing argument of a list whose resolver then returns everything.
 *
 *   { books { id title } }        (no `first`)
 *
 * `books(first: Int)` is annotated `@listSize(slicingArguments: ["first"])`, and its resolver, like
 * many, returns the whole table when `first` is absent. A limiter that ignores
 * `requireOneSlicingArgument` prices the list at `defaultListSize` (10) and serves 500 rows: fifty
 * times the work for the price of ten.
 *
 * Guarantee: `requireOneSlicingArgument` (true by default, as the IBM spec says) is enforced: an
 * operation that passes no slicing argument where exactly one is required gets a 400
 * `COST_QUERY_PARSE_FAILURE` naming the field, and the resolver never runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Book { id: ID! title: String }
type Query { books(first: Int): [Book!]! @listSize(slicingArguments: ["first"]) }
`;

let rowsServed = 0;
const books = (_: unknown, args: { first?: number | null }) => {
  const all = Array.from({ length: 500 }, (_unused, index) => ({ id: String(index), title: `Book ${index}` }));
  const page = args.first === undefined || args.first === null ? all : all.slice(0, args.first);
  rowsServed += page.length;
  return page;
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 1000, refillPerSecond: 0 } },
    { schema: { typeDefs, resolvers: { Query: { books } } } },
  );
});
afterAll(() => server.stop());

it.each(['{ books { id title } }', '{ books(first: null) { id title } }'])(
  'refuses %s before it runs',
  async (query) => {
    const before = rowsServed;
    const reply = await server.post(query, { user: 'mallory' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_QUERY_PARSE_FAILURE');
    expect(reply.body.errors?.[0]?.message).toMatch(/Query\.books/);
    expect(rowsServed).toBe(before);
  },
);

it('prices the same list by its argument when it is given', async () => {
  const reply = await server.post('{ books(first: 5) { id title } }', { user: 'honest' });
  expect(reply.status).toBe(200);
  expect(costOf(reply).requestedQueryCost).toBe(7);
});
