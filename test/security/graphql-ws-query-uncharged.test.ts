/**
 * Attack: send queries and mutations over the WebSocket that carries subscriptions.
 *
 *   {"type":"subscribe","payload":{"query":"{ items(first: 60) { id } }"}}      (×20, priced 302 each)
 *
 * graphql-ws runs every operation that is not a subscription through its `execute` option; a
 * server set up as the subscriptions page said (`subscribe: budgetedSubscribe(…)`) charged the
 * subscriptions and nothing else. 20 queries priced 302 each, above the caller's whole capacity of
 * 60, all ran, and 20 mutations of `@cost(weight: "50")` too, for 0 tokens.
 *
 * Guarantee: over graphql-ws every operation is charged (`graphqlWsBudget` gives graphql-ws both
 * its `execute` and its `subscribe`), from the same budgets as over HTTP.
 */
import { buildSchema, type ExecutionArgs, type GraphQLObjectType } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGraphqlWsServer } from '../support/graphql-ws-server.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { graphqlWsBudget } from '../../src/graphql-ws/graphql-ws-budget.js';

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Item @cost(weight: "5") { id: ID! }
  type Query { items(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
  type Mutation { spend(n: Int!): Int! @cost(weight: "10") }
  type Subscription { tick: Int! }
`);
let items = 0;
let spent = 0;
(schema.getType('Query') as GraphQLObjectType).getFields().items!.resolve = (
  _: unknown,
  { first }: { first: number },
) => {
  items += first;
  return Array.from({ length: first }, (_, id) => ({ id }));
};
(schema.getType('Mutation') as GraphQLObjectType).getFields().spend!.resolve = (_: unknown, { n }: { n: number }) => {
  spent += 1;
  return n;
};

const store = new MemoryBucketStore();
const policy = { capacity: 60, refillPerSecond: 0 };
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ url, close } = await startGraphqlWsServer({
    schema,
    context: () => ({ caller: 'mallory' }),
    ...graphqlWsBudget({
      store,
      policy,
      identify: ({ contextValue }: ExecutionArgs) => (contextValue as { caller: string }).caller,
    }),
  }));
});
afterAll(() => close());

async function run(query: string): Promise<{ data?: unknown; errors?: { extensions?: { code?: string } }[] }> {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    return await new Promise((resolve, reject) => {
      let last: unknown;
      client.subscribe(
        { query },
        { next: (value) => (last = value), error: reject, complete: () => resolve(last as never) },
      );
    });
  } finally {
    await client.dispose();
  }
}

it('charges queries and mutations sent over the socket', async () => {
  const tooBig = await run('{ items(first: 60) { id } }');
  expect(tooBig.errors?.[0]?.extensions?.code).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
  expect(items).toBe(0);
  const small = await run('{ items(first: 5) { id } }');
  expect((small.data as { items: unknown[] }).items).toHaveLength(5);
  // Query 1, items 1, 5 Items at 5.
  expect((await store.peek('mallory', policy)).remaining).toBe(60 - 27);
  const mutation = await run('mutation { spend(n: 1) }');
  expect(mutation.data).toEqual({ spend: 1 });
  // Mutation 1, spend 10.
  expect((await store.peek('mallory', policy)).remaining).toBe(60 - 27 - 11);
  // 22 left: the next mutation (11) fits twice, then is refused, nothing run.
  await run('mutation { spend(n: 1) }');
  await run('mutation { spend(n: 1) }');
  const refused = await run('mutation { spend(n: 1) }');
  expect(refused.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  expect(spent).toBe(3);
});
