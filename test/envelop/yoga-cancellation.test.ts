/**
 * Attack (GraphQL Yoga with its `useExecutionCancellation`): disconnect while the operation runs.
 *
 *   { items { id } slow }        (`items` without @listSize: priced 10; its resolver returns 5,000)
 *
 * The client aborts at 100 ms; Yoga aborts the execution, which rejects, so the plugin's
 * `onExecuteDone` never runs: the operation was neither settled nor reported.
 *
 * Guarantee: an execution that ends in a rejection is settled too, as cut short: what it did is
 * not in any response, so it is charged its estimate, never refunded below it, and reported once.
 * (A list longer than its priced size that no response shows is charged at its priced size: a
 * schema with `strictListSizes` gives every list a size its resolver is asked for.)
 */
import { createSchema, createYoga, useExecutionCancellation } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import type { BudgetDecision } from '../../src/core/decision-event.js';
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
const decisions: BudgetDecision[] = [];
const policy = { capacity: 10_000, refillPerSecond: 0 };
let url: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  const yoga = createYoga({
    schema: createSchema({ typeDefs, resolvers }),
    logging: false,
    plugins: [
      useExecutionCancellation(),
      useQueryBudget({
        store,
        policy,
        identify: () => 'mallory',
        onDecision: (decision) => void decisions.push(decision),
      }),
    ],
  });
  ({ url, stop } = await listen(yoga));
});
afterAll(() => stop());

it('settles an execution its client aborted at its estimate, and reports it once', async () => {
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
  // Query 1, items 1, 10 Items (defaultListSize): nothing refunded, as nothing was shown.
  expect(policy.capacity - (await store.peek('mallory', policy)).remaining).toBe(12);
  expect(decisions.map(({ requestedCost, actualCost }) => ({ requestedCost, actualCost }))).toEqual([
    { requestedCost: 12, actualCost: 12 },
  ]);
});
