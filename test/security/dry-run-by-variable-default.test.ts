/**
 * Attack (on the caller's behalf): ask for a dry run through a variable's default.
 *
 *   query ($d: Boolean = true) { rateLimit(dryRun: $d) { cost remaining } items(first: 100) { id } }
 *
 * Execution reads `dryRun` as true (the variable's default), so the caller asked to see the price
 * without paying. A dry-run check that reads the raw request variables, which hold no `d`, saw
 * false: every field ran and the caller was charged 102.
 *
 * Guarantee: a dry run is detected from the coerced variable values, exactly as execution reads the
 * argument (defaults applied, `@skip`/`@include` honoured): it takes no tokens and runs nothing but
 * its `rateLimit` fields.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../src/core/rate-limit-field.js';
import { itemsResolvers, itemsTypeDefs } from '../support/items-schema.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

let itemRuns = 0;
const schema = {
  typeDefs: `${itemsTypeDefs}\n${rateLimitTypeDefs}`,
  resolvers: {
    Query: {
      ...itemsResolvers.Query,
      items: (source: unknown, args: { first: number; returned?: number | null }) => {
        itemRuns += 1;
        return itemsResolvers.Query.items(source, args);
      },
      ...rateLimitResolvers.Query,
    },
  },
};

let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store: new MemoryBucketStore(), policy: { capacity: 200, refillPerSecond: 0 } },
    { schema },
  );
});
afterAll(() => server.stop());

it.each([
  [
    'a variable default',
    'query ($d: Boolean = true) { rateLimit(dryRun: $d) { cost remaining } items(first: 100) { id } }',
    {},
  ],
  [
    'a variable',
    'query ($d: Boolean!) { rateLimit(dryRun: $d) { cost remaining } items(first: 100) { id } }',
    { d: true },
  ],
  [
    'a fragment under @include',
    'query ($on: Boolean = true) { ...Probe @include(if: $on) items(first: 100) { id } } fragment Probe on Query { rateLimit(dryRun: true) { cost remaining } }',
    {},
  ],
])('treats a dry run asked for through %s as a dry run', async (name, query, variables) => {
  const before = itemRuns;
  const reply = await server.post(query, { user: `caller-${name}`, variables });
  expect(reply.status).toBe(200);
  expect(itemRuns).toBe(before);
  expect(reply.body.data).toEqual({ rateLimit: { cost: 102, remaining: 200 } });
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 102, actualQueryCost: 0 });
});

it('runs and charges an operation whose dry run is skipped', async () => {
  const before = itemRuns;
  const reply = await server.post(
    'query ($d: Boolean = true) { rateLimit(dryRun: true) @skip(if: $d) { cost } items(first: 3) { id } }',
    { user: 'skipper' },
  );
  expect(reply.status).toBe(200);
  expect(itemRuns).toBe(before + 1);
  expect(costOf(reply).actualQueryCost).toBe(5);
});
