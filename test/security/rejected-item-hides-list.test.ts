/**
 * Attack: a list of promises one of which rejects (DataLoader style), to hide the others.
 *
 *   { everything { id } }
 *
 * `everything: [Item!]` is priced at 10 items. Its resolver returns 200 promises; the last one
 * rejects, which nulls the list. The other 199 items were produced all the same, but a field hook
 * that hears of the list as a whole (Apollo Server's `willResolveField`, told only of the
 * rejection) counts none of them: the response walk priced the nulled list at its estimate and 12
 * tokens were taken for work worth 201.
 *
 * Guarantee: each item of a list is counted as it settles, whatever its siblings do.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! }
type Query { everything: [Item!], nested: [[Item!]] }
`;

let produced = 0;
const items = () =>
  Array.from({ length: 200 }, (_, index) =>
    index === 199
      ? Promise.reject(new Error('not found'))
      : Promise.resolve().then(() => {
          produced += 1;
          return { id: String(index) };
        }),
  );
const resolvers = {
  Query: {
    everything: items,
    nested: () => [Promise.resolve(items())],
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 1000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

it('charges the items that resolved in a list that one rejected item nulled', async () => {
  produced = 0;
  const reply = await server.post('{ everything { id } }', { user: 'mallory' });
  expect(reply.body.data).toEqual({ everything: null });
  expect(produced).toBe(199);
  // Query 1 + everything 1 + the 199 items that resolved.
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 201 });
  expect((await store.peek('mallory', policy)).remaining).toBe(1000 - 201);
});

it('charges them under a list of promised lists too', async () => {
  produced = 0;
  const reply = await server.post('{ nested { id } }', { user: 'nested' });
  expect(reply.body.data).toEqual({ nested: [null] });
  expect(produced).toBe(199);
  // Query 1 + nested 1 + the 199 items (priced at 10 × 10).
  expect(costOf(reply)).toMatchObject({ requestedQueryCost: 102, actualQueryCost: 201 });
  expect((await store.peek('nested', policy)).remaining).toBe(1000 - 201);
});
