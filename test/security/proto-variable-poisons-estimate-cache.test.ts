/**
 * Attack: make the estimate cache price an expensive request as a cheap one it saw before.
 *
 *   query ($n: Int!, $__proto__: Int!) { a: items(first: $n) { id } b: items(first: $__proto__) { id } }
 *   variables {"n": 1, "__proto__": 1}       once (5 tokens)
 *   variables {"n": 1, "__proto__": 4000}    then, again and again
 *
 * `__proto__` is an ordinary GraphQL variable name, and a JSON body parser makes it an own key of
 * the variables object. A cache key that copies the variables into a plain object drops that key
 * (the assignment sets the copy's prototype instead), so both requests got one key: the second was
 * charged the first one's 5 tokens and served 4,000 items each time, where its honest price (4,004)
 * exceeds the whole budget.
 *
 * Guarantee: two requests share a cached price only if the engine would price them the same: the
 * key holds the raw value of every variable the operation declares, whatever its name, and nothing
 * else.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! }
type Query { items(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
`;

let served = 0;
const items = (_: unknown, args: { first: number }) => {
  const page = Array.from({ length: Math.max(0, args.first) }, (_unused, index) => ({ id: String(index) }));
  served += page.length;
  return page;
};

const ATTACK = 'query ($n: Int!, $__proto__: Int!) { a: items(first: $n) { id } b: items(first: $__proto__) { id } }';

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 100, refillPerSecond: 0 } },
    { schema: { typeDefs, resolvers: { Query: { items } } } },
  );
});
afterAll(() => server.stop());

it('prices a request by its own __proto__ variable, not by a cached one', async () => {
  const cheap = await server.post(ATTACK, { user: 'mallory', variables: JSON.parse('{"n": 1, "__proto__": 1}') });
  expect(cheap.status).toBe(200);
  expect(costOf(cheap).requestedQueryCost).toBe(5);
  const before = served;
  for (let i = 0; i < 5; i++) {
    const reply = await server.post(ATTACK, { user: 'mallory', variables: JSON.parse('{"n": 1, "__proto__": 4000}') });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_ESTIMATED_TOO_EXPENSIVE',
      estimatedCost: 4004,
    });
  }
  expect(served).toBe(before);
});

it('still shares a price between requests whose variables price alike', async () => {
  const variables = JSON.parse('{"__proto__": 2, "n": 3}');
  const first = await server.post(ATTACK, { user: 'alice', variables });
  const second = await server.post(ATTACK, { user: 'bob', variables: JSON.parse('{"n": 3, "__proto__": 2}') });
  expect(costOf(first).requestedQueryCost).toBe(8);
  expect(costOf(second).requestedQueryCost).toBe(8);
});
