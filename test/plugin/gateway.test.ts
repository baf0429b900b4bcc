import { composeServices } from '@apollo/composition';
import { ApolloGateway } from '@apollo/gateway';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { serve, subgraphSchema, type RunningServer } from './federation-servers.js';

// An Apollo Gateway in front of two subgraphs, the plugin on the gateway. The gateway's API schema
// carries no directives; the weights and list sizes come from the composed supergraph SDL.

const link = '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize"])';
const productsTypeDefs = `
  extend schema ${link}
  type Query {
    products: [Product] @listSize(assumedSize: 3)
    top(first: Int): [Product] @listSize(slicingArguments: ["first"])
  }
  type Product @key(fields: "id") { id: ID!, weight: Int @cost(weight: 5) }
`;
const reviewsTypeDefs = `
  extend schema ${link}
  type Product @key(fields: "id") { id: ID!, reviews(first: Int): [Review] @listSize(slicingArguments: ["first"]) }
  type Review @cost(weight: 2) { stars: Int }
`;
const productsOf = (count: number) => Array.from({ length: count }, (_, index) => ({ id: String(index) }));

describe('the plugin on an Apollo Gateway prices with the supergraph weights', () => {
  let products: RunningServer;
  let reviews: RunningServer;
  let gateway: RunningServer;

  beforeAll(async () => {
    products = await serve({
      schema: subgraphSchema(productsTypeDefs, {
        Query: { products: () => productsOf(3), top: (_: unknown, { first }: { first: number }) => productsOf(first) },
        Product: { weight: () => 1 },
      }),
    });
    reviews = await serve({
      schema: subgraphSchema(reviewsTypeDefs, {
        Product: {
          reviews: (_: unknown, { first }: { first: number }) => Array.from({ length: first }, () => ({ stars: 5 })),
        },
      }),
    });
    const composed = composeServices([
      { name: 'products', typeDefs: parse(productsTypeDefs), url: products.url },
      { name: 'reviews', typeDefs: parse(reviewsTypeDefs), url: reviews.url },
    ]);
    if (composed.errors !== undefined) throw composed.errors[0];
    const plugin = queryBudgetPlugin({
      identify: () => 'client',
      store: new MemoryBucketStore(),
      policy: { capacity: 100_000, refillPerSecond: 0 },
    });
    gateway = await serve({ gateway: new ApolloGateway({ supergraphSdl: composed.supergraphSdl }) }, [plugin]);
  });
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([products?.stop(), reviews?.stop()]);
  });

  it('reads weights and assumed sizes', async () => {
    const reply = await gateway.post('{ products { weight } }');
    expect(reply.body.errors).toBeUndefined();
    // Query 1 + 3 Products (assumedSize) = typeCost 4; products 1 + 3 × weight 5 = fieldCost 16.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 20, actualQueryCost: 20 });
  });

  it('reads slicing arguments and type weights across subgraphs', async () => {
    const reply = await gateway.post('query ($n: Int) { top(first: $n) { weight reviews(first: 4) { stars } } }', {
      n: 2,
    });
    expect(reply.body.errors).toBeUndefined();
    // typeCost: Query 1 + 2 Products × (1 + 4 Reviews × weight 2) = 1 + 2 × 9 = 19.
    // fieldCost: top 1 + 2 × (weight 5 + reviews 1) = 13.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 32, actualQueryCost: 32 });
  });

  it('enforces requireOneSlicingArgument before anything is fetched', async () => {
    const reply = await gateway.post('{ top { weight } }');
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_QUERY_PARSE_FAILURE');
    expect(reply.body.data).toBeUndefined();
  });
});
