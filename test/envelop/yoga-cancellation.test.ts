/**
 * Attack (GraphQL Yoga with its `useExecutionCancellation`): disconnect while the operation runs.
 *
 *   { items { id } slow }        (`items` without @listSize: priced 10; its resolver returns 5,000)
 *
 * The client aborts at 100 ms; Yoga aborts the execution, which rejects, so the plugin's
 * `onExecuteDone` never ran: neither the settlement (the 4,990 items beyond the estimate) nor the
 * meter's late charges happened. 12 tokens were taken for work worth 5,002.
 *
 * Guarantee: an execution that ends in a rejection is settled too, at least at what its resolvers
 * were seen doing.
 */
import { createSchema, createYoga, useExecutionCancellation } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { listen } from '../support/listen.js';

const typeDefs = `${costDirectivesTypeDefs}
  type Item { id: ID! }
  type Query { items: [Item!]!, slow: Int }
`;
let produced = 0;
const resolvers = {
  Query: {
    items: () => {
      produced += 5000;
      return Array.from({ length: 5000 }, (_, id) => ({ id }));
    },
    slow: () => new Promise((resolve) => setTimeout(() => resolve(1), 300)),
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 10_000, refillPerSecond: 0 };
let url: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const yoga = createYoga({
    schema: createSchema({ typeDefs, resolvers }),
    logging: false,
    plugins: [useExecutionCancellation(), useQueryBudget({ store, policy, identify: () => 'mallory' })],
  });
  ({ url, stop } = await listen(yoga));
});
afterAll(() => stop());

it('settles an execution its client aborted: the items beyond the estimate are charged', async () => {
  const controller = new AbortController();
  const sent = fetch(url, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ items { id } slow }' }),
  }).catch((error: Error) => error.name);
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort();
  expect(await sent).toBe('AbortError');
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(produced).toBe(5000);
  // Query 1, items 1, 5,000 Items.
  expect(policy.capacity - (await store.peek('mallory', policy)).remaining).toBeGreaterThanOrEqual(5002);
});
