/**
 * Attack: hide a list longer than its price under a null an error makes, so that its work never
 * shows in a response.
 *
 *   { everything { id check } }      (`everything` priced at 10 items, 50 returned, the last `check` fails)
 *   { promised { id } }              (200 promised items, the last one rejects)
 *   { a: slowEverything { id } b: failing }       (data: null before the 50 items are produced)
 *   subscription { feed { items { id check } } }  (each event's items nulled the same way)
 *
 * The response shows nothing of the items, so a settlement that refunded to what the response
 * shows would charge the root alone, and one that walked the resolvers' work had to meter them.
 *
 * Guarantee (docs/security.md, "What the budget guarantees"): every list an error hides counts at
 * its priced size, and an operation an error touched is never refunded below its estimate; what a
 * hidden list held beyond its priced size is not charged. A schema owner closes that by giving
 * every list a size its resolver is asked for (a slicing argument, as `bounded` here): then the
 * priced size is what the resolver returns, hidden or not; `strictListSizes` refuses a schema with
 * a list nothing bounds.
 */
import { GraphQLError, buildSchema, parse, type ExecutionResult, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { budgetedSubscribe } from '../../src/graphql-ws/graphql-ws-budget.js';
import { costOf, serverKind, startBudgetServer, type BudgetServer } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Item { id: ID! check: String! }
type Query {
  everything: [Item!]!
  promised: [Item!]
  slowEverything: [Item!]!
  failing: String!
  bounded(first: Int!): [Item!]! @listSize(slicingArguments: ["first"])
}
`;

let produced = 0;
const items = (length: number) => {
  produced += length;
  return Array.from({ length }, (_, index) => ({ id: String(index), last: index === length - 1 }));
};
const resolvers = {
  Item: {
    check: (item: { last: boolean }) => {
      if (item.last) throw new GraphQLError('check failed');
      return 'ok';
    },
  },
  Query: {
    everything: () => items(50),
    promised: () =>
      items(200).map((item) => (item.last ? Promise.reject(new Error('not found')) : Promise.resolve(item))),
    slowEverything: () => new Promise((resolve) => setTimeout(() => resolve(items(50)), 50)),
    failing: () => {
      throw new GraphQLError('failed');
    },
    bounded: (_: unknown, { first }: { first: number }) => items(first),
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 1000, refillPerSecond: 0 };
const taken = async (user: string) => policy.capacity - (await store.peek(user, policy)).remaining;
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer({ store, policy }, { schema: { typeDefs, resolvers } });
});
afterAll(() => server.stop());

describe('a list an error hides counts at its priced size', () => {
  it.each([
    // The operation 1, the list 1, 10 Items (defaultListSize).
    ['an item fails a non-null field', 'nulled', '{ everything { id check } }', null],
    ['an item promise rejects', 'rejected', '{ promised { id } }', { promised: null }],
    ['a sibling nulls the root first', 'raced', '{ a: slowEverything { id } b: failing }', null],
  ])('when %s: its estimate, never less', async (_, user, query, data) => {
    produced = 0;
    const reply = await server.post(query, { user });
    expect(reply.body.data).toEqual(data);
    expect(costOf(reply)).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 12 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produced).toBeGreaterThanOrEqual(50);
    expect(await taken(user)).toBe(12);
  });

  it('when the list is sized by what its resolver is asked for, hidden or not: the work done', async () => {
    produced = 0;
    const reply = await server.post('{ bounded(first: 50) { id check } }', { user: 'bounded' });
    expect(reply.body.data).toBeNull();
    expect(produced).toBe(50);
    // The operation 1, bounded 1, its 50 Items: all that was done.
    expect(await taken('bounded')).toBe(52);
  });

  it('and strictListSizes refuses the schema whose lists nothing bounds, naming each', async () => {
    await expect(
      startBudgetServer({ store, policy, strictListSizes: true }, { schema: { typeDefs, resolvers } }),
    ).rejects.toThrow(
      /Query\.everything: a list whose size nothing bounds[\s\S]*Query\.promised[\s\S]*Query\.slowEverything/,
    );
  });
});

// A subscription over graphql-ws runs on neither server: once, in the apollo project.
describe.skipIf(serverKind() === 'yoga')('a subscription event whose items an error hides', () => {
  it('is charged its estimate per event, never less', async () => {
    const schema = buildSchema(`${costDirectivesTypeDefs}
      type Query { hello: String }
      type Item { id: ID! check: String! }
      type Batch { items: [Item!]! }
      type Subscription { feed: Batch! }
    `);
    (schema.getType('Item') as GraphQLObjectType).getFields().check!.resolve = resolvers.Item.check;
    const rootValue = {
      async *feed() {
        for (let event = 0; event < 3; event++) yield { feed: { items: items(50) } };
      },
    };
    const events: ExecutionResult[] = [];
    const subscribe = budgetedSubscribe({ store, policy, identify: () => 'subscriber' });
    produced = 0;
    const result = await subscribe({
      schema,
      document: parse('subscription { feed { items { id check } } }'),
      rootValue,
      contextValue: {},
    });
    for await (const event of result as AsyncIterable<ExecutionResult>) events.push(event);
    expect(events.map((event) => event.data)).toEqual([null, null, null]);
    expect(produced).toBe(150);
    // Each: Subscription 1, feed 1 and items 1, Batch 1, and 10 Items.
    expect(events[0]?.extensions?.cost).toMatchObject({ requestedQueryCost: 14, actualQueryCost: 14 });
    // 14 to subscribe, then 14 per event.
    expect(await taken('subscriber')).toBe(4 * 14);
  });
});
