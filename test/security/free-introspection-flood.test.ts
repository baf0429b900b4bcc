/**
 * Attack: flood a server that runs outside `NODE_ENV=production` (a plain `node server.js`) with
 * nested introspection, alone in its operation.
 *
 *   { __schema { types { name fields { name args { name } type { name fields { name type { name } } } } } } }
 *
 * `introspection: 'free-when-alone'` is the default there, so schema tools work whatever the caller's
 * budget: an operation of nothing but introspection was charged nothing, however nested. On a
 * schema of 40 types of 12 fields, that operation is priced far above the caller's capacity beside
 * a real field; alone it was answered twenty times in a row (0.4 MB and tens of ms of CPU each),
 * for 0 tokens.
 *
 * Guarantee: what is free is bounded: each caller's free introspection passes a local limit
 * (`tuning.freeIntrospectionLimit`, 10 at once, refilling 1 per second, per process), and an operation
 * beyond it is priced like any other (here: refused as too expensive, nothing run).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const types = Array.from(
  { length: 40 },
  (_, type) =>
    `type T${type} { ${Array.from({ length: 12 }, (_, field) => `f${field}: T${(type + field + 1) % 40}`).join(' ')} }`,
).join('\n');
const typeDefs = `${costDirectivesTypeDefs}\n${types}\ntype Query { t: T0 }`;
const resolvers = { Query: { t: () => ({}) } };

const NESTED =
  '{ __schema { types { name fields { name args { name } type { name fields { name type { name } } } } } } }';

const store = new MemoryBucketStore();
const policy = { capacity: 100, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  // Defaults: outside production (vitest runs with NODE_ENV=test), introspection alone is free.
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it("answers a caller's first introspections for free, then prices them like any operation", async () => {
  const statuses: number[] = [];
  for (let request = 0; request < 20; request++) statuses.push((await server.post(NESTED, { user: 'mallory' })).status);
  // The limit's 10 at once (at most one more refilled meanwhile), then 400: too expensive for any budget.
  expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(10);
  expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(12);
  expect(statuses.slice(-5)).toEqual([400, 400, 400, 400, 400]);
  // Free means not charged to the budget: the budget is untouched.
  expect((await store.peek('mallory', policy)).remaining).toBe(100);
  // Another caller has a limit of their own.
  expect((await server.post(NESTED, { user: 'honest' })).status).toBe(200);
});
