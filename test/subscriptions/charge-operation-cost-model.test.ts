import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { chargeOperation } from '../../src/core/charge-operation.js';

describe("chargeOperation with analyzer: { costModel: 'apollo' }", () => {
  const schema = buildSchema(`${costDirectivesTypeDefs}
    type Item { id: ID! }
    type Query { items(first: Int = 5): [Item!]! @listSize(slicingArguments: ["first"]) }
    type Subscription { ticks(count: Int!): [Item!]! @listSize(slicingArguments: ["count"]) }`);
  const policy = { capacity: 100, refillPerSecond: 0 };

  it("charges the router's number", async () => {
    const store = new MemoryBucketStore();
    const document = parse('query Q($n: Int) { items(first: $n) { id } }');
    // 10 × Item 1 = 10 (IBM: Query 1 + 10 Items + the items call 1 = 12).
    const apollo = { costModel: 'apollo' } as const;
    const charged = await chargeOperation({
      schema,
      document,
      variables: { n: 10 },
      key: 'ann',
      policy,
      store,
      analyzer: apollo,
    });
    expect(charged).toMatchObject({ charged: 10, bucket: { allowed: true, remaining: 90 } });
    const ibm = await chargeOperation({ schema, document, variables: { n: 10 }, key: 'bob', policy, store });
    expect(ibm).toMatchObject({ charged: 12, bucket: { remaining: 88 } });
    // A subscription: ticks 3 × Item 1 = 3 (IBM: Subscription 1 + 3 + 1 = 5).
    const subscription = parse('subscription { ticks(count: 3) { id } }');
    expect(
      await chargeOperation({ schema, document: subscription, key: 'ann', policy, store, analyzer: apollo }),
    ).toMatchObject({ charged: 3, bucket: { remaining: 87 } });
  });
});
