/**
 * Attack: introspect below a field that returns the query type again.
 *
 *   { viewer { __schema { types { name fields { name args { name } } } } } }      (viewer: Query!)
 *
 * `__schema` and `__type` are fields of the query type wherever it appears, not only at the root.
 * A settlement that trusted an execution meter (which servers' field hooks never feed with
 * introspection) for any operation without introspection at its root refunded almost all of it:
 * work priced 127 was charged 3.
 *
 * Guarantee: every operation is settled from its response, so the introspection it returned is
 * paid for wherever it sits.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Book { title: String! query: Query! }
type Query { books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"]) viewer: Query! }
`;
const resolvers = { Query: { viewer: () => ({}), books: () => [{ title: 'A' }] }, Book: { query: () => ({}) } };

const store = new MemoryBucketStore();
const policy = { capacity: 100_000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it.each([
  ['viewer', '{ viewer { __schema { types { name fields { name args { name } } } } } }'],
  ['books', '{ books(first: 1) { query { __schema { types { name fields { name } } } } } }'],
  ['type', '{ viewer { t: __type(name: "Book") { fields { name type { name } } } } }'],
])('charges the introspection it returns (%s)', async (name, query) => {
  const caller = `mallory-${name}`;
  const reply = await server.post(query, { user: caller });
  expect(reply.status).toBe(200);
  const { requestedQueryCost, actualQueryCost } = costOf(reply);
  // The schema's introspection is priced exactly up front, and nothing of it comes back.
  expect(actualQueryCost).toBe(requestedQueryCost);
  expect(actualQueryCost).toBeGreaterThan(10);
  expect(policy.capacity - (await store.peek(caller, policy)).remaining).toBe(actualQueryCost);
});
