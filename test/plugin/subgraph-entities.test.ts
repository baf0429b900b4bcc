import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { serve, subgraphSchema, type RunningServer } from './federation-servers.js';

// A router resolving 50 Products in this subgraph sends one `_entities` call with 50
// representations. Priced at defaultListSize (10), 50 entities cost what 10 do: anyone who can
// reach the subgraph gets five times the work per token. The list size of `_entities` is the
// number of representations sent.

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

describe('a subgraph prices _entities by the representations sent', () => {
  let subgraph: RunningServer;
  beforeAll(async () => {
    const plugin = queryBudgetPlugin({
      identify: () => 'router',
      store: new MemoryBucketStore(),
      policy: { capacity: 100_000, refillPerSecond: 0 },
    });
    subgraph = await serve({ schema: subgraphSchema(typeDefs, resolvers) }, [plugin]);
  });
  afterAll(() => subgraph.stop());

  it('50 representations in a variable, as a router sends them', async () => {
    const reply = await subgraph.post(
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Product { weight } } }',
      { r: representations(50) },
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data?._entities).toHaveLength(50);
    // Query 1 + 50 Products = typeCost 51; _entities 1 + 50 × weight 5 = fieldCost 251.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 302, actualQueryCost: 302 });
  });

  it('representations written in the document', async () => {
    const literal = representations(3)
      .map(({ id }) => `{ __typename: "Product", id: "${id}" }`)
      .join(', ');
    const reply = await subgraph.post(`{ _entities(representations: [${literal}]) { ... on Product { weight } } }`);
    // Query 1 + 3 Products = 4; _entities 1 + 3 × 5 = 16.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 20, actualQueryCost: 20 });
  });
});
