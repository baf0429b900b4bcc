import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { listen } from '../support/listen.js';

/**
 * GraphQL Yoga's other ways to send an operation, each priced and charged as a POST is: a GET
 * with the query in the URL, and a persisted operation sent by its hash alone.
 */

const typeDefs = `${costDirectivesTypeDefs}
  type Item { id: ID! }
  type Query { items(first: Int!): [Item!]! @listSize(slicingArguments: ["first"]) }
`;
const resolvers = {
  Query: { items: (_: unknown, { first }: { first: number }) => Array.from({ length: first }, (_, id) => ({ id })) },
};
const PERSISTED: Record<string, string> = { 'items-5': '{ items(first: 5) { id } }' };

const store = new MemoryBucketStore();
const policy = { capacity: 100, refillPerSecond: 0 };
let url: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const yoga = createYoga<Record<string, unknown>, { caller: string }>({
    schema: createSchema({ typeDefs, resolvers }),
    logging: false,
    context: ({ request }) => ({ caller: request.headers.get('x-caller') ?? 'anonymous' }),
    plugins: [
      usePersistedOperations({
        getPersistedOperation: (hash) => PERSISTED[hash] ?? null,
        allowArbitraryOperations: true,
      }),
      useQueryBudget<{ caller: string }>({ store, policy, identify: ({ context }) => context.caller }),
    ],
  });
  ({ url, stop } = await listen(yoga));
});
afterAll(() => stop());

const remaining = async (caller: string): Promise<number> => (await store.peek(caller, policy)).remaining;

it('charges a GET as a POST: the same price, headers and extensions.cost', async () => {
  const response = await fetch(`${url}?query=${encodeURIComponent('{ items(first: 5) { id } }')}`, {
    headers: { 'x-caller': 'getter', accept: 'application/json' },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { extensions: { cost: { requestedQueryCost: number } } };
  // Query 1, items 1, 5 Items.
  expect(body.extensions.cost.requestedQueryCost).toBe(7);
  expect(response.headers.get('ratelimit')).toBe('"budget";r=93');
  expect(await remaining('getter')).toBe(93);
});

it('charges a persisted operation sent by its hash alone', async () => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-caller': 'persisted' },
    body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'items-5' } } }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { items: unknown[] }; extensions: { cost: unknown } };
  expect(body.data.items).toHaveLength(5);
  expect(body.extensions.cost).toMatchObject({ requestedQueryCost: 7, actualQueryCost: 7 });
  expect(await remaining('persisted')).toBe(93);
  // And refused, running nothing, once the budget cannot pay it.
  for (let request = 0; request < 13; request++) {
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-caller': 'persisted' },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'items-5' } } }),
    });
  }
  const refused = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-caller': 'persisted' },
    body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'items-5' } } }),
  });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBeNull(); // a bucket that never refills: no retry time
});
