/**
 * Attack: make each subscription event's work invisible to its settlement.
 *
 *   subscription { feed { items { id check } } }
 *
 * `items` has no `@listSize`, so each event is priced at 10 items. Each event delivers 50, and
 * `check` (a `String!`) fails on the last one: the error nulls the item, the list, the batch and
 * the event's `data`. An event's settlement that prices a nulled result at its estimate charged 14
 * tokens per event for work worth 54: with `budgetedSubscribe` there was no field hook to see the
 * 50 items.
 *
 * Guarantee: each event is metered like any operation; where an error hides work, the event is
 * charged at least what its resolvers were seen doing.
 */
import { GraphQLError, type GraphQLObjectType, buildSchema, parse, type ExecutionResult } from 'graphql';
import { expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { budgetedSubscribe } from '../../src/graphql-ws/graphql-ws-budget.js';

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Query { hello: String }
  type Item { id: ID! check: String! }
  type Batch { items: [Item!]! }
  type Subscription { feed: Batch! }
`);
let produced = 0;
(schema.getType('Item') as GraphQLObjectType).getFields().check!.resolve = (item: { id: string }) => {
  if (item.id === '49') throw new GraphQLError('check failed');
  return 'ok';
};
const rootValue = {
  async *feed() {
    for (let event = 0; event < 3; event++) {
      produced += 50;
      yield { feed: { items: Array.from({ length: 50 }, (_, id) => ({ id: String(id) })) } };
    }
  },
};

it("charges each event's hidden items at what its resolvers returned", async () => {
  const store = new MemoryBucketStore();
  const policy = { capacity: 1000, refillPerSecond: 0 };
  const subscribe = budgetedSubscribe({ store, policy, identify: () => 'mallory' });
  const result = await subscribe({
    schema,
    document: parse('subscription { feed { items { id check } } }'),
    rootValue,
    contextValue: {},
  });
  const events: ExecutionResult[] = [];
  for await (const event of result as AsyncIterable<ExecutionResult>) events.push(event);
  expect(events.map((event) => event.data)).toEqual([null, null, null]);
  expect(produced).toBe(150);
  // Each: Subscription 1, the fields feed 1 and items 1, Batch 1, and 10 Items priced; 50 returned.
  expect(events[0]?.extensions?.cost).toMatchObject({ requestedQueryCost: 14, actualQueryCost: 54 });
  // 14 to subscribe, then 54 per event.
  expect((await store.peek('mallory', policy)).remaining).toBe(1000 - 14 - 3 * 54);
});
