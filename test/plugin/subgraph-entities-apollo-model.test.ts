import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { serve, subgraphSchema, type RunningServer } from './federation-servers.js';

// A subgraph behind a router, with costModel: 'apollo': the router's entity fetch
// `_entities(representations: $r) { ... on Product { weight } }` is priced by the router's formula,
// the `_entities` list sized by the representations sent (the router's own plan estimates that
// number before it has them).

const typeDefs = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost"])
  type Query { top: Product }
  type Product @key(fields: "id") { id: ID!, weight: Int @cost(weight: 5) }
`;
const resolvers = {
  Query: { top: () => ({ id: '0' }) },
  Product: { __resolveReference: ({ id }: { id: string }) => ({ id }), weight: () => 1 },
};
const representations = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ __typename: 'Product', id: String(index) }));

describe("a subgraph with costModel: 'apollo' prices the router's entity fetches", () => {
  let subgraph: RunningServer;
  beforeAll(async () => {
    const plugin = queryBudgetPlugin({
      identify: () => 'router',
      store: new MemoryBucketStore(),
      policy: { capacity: 100_000, refillPerSecond: 0 },
      costModel: 'apollo',
    });
    subgraph = await serve({ schema: subgraphSchema(typeDefs, resolvers) }, [plugin]);
  });
  afterAll(() => subgraph.stop());

  it('sizes _entities by the 50 representations sent', async () => {
    const reply = await subgraph.post(
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { weight } } }',
      { r: representations(50) },
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data?._entities).toHaveLength(50);
    // _entities 50 × (_Entity 1 + weight's own 5) = 300 (IBM: 302, with the root and the call).
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 300, actualQueryCost: 300 });
  });
});
