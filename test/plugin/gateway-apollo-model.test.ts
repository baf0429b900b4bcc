import { composeServices } from '@apollo/composition';
import { ApolloGateway } from '@apollo/gateway';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { serve, subgraphSchema, type RunningServer } from './federation-servers.js';

// An Apollo Gateway over two composed subgraphs, the plugin on the gateway with costModel: 'apollo'
// and defaultListSize 10 (the router's list_size): every operation is charged Apollo Router's
// estimate of it over the same supergraph, worked out by hand below from the router's rules (the
// root weighs 0; a field costs count × (its own @cost, else its type's, else 1 for an object) +
// its selection + its arguments; a field with @join__field(requires:) also pays for the selection
// it requires).

const link =
  '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize", "@external", "@requires"])';
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
  type Product @key(fields: "id") {
    id: ID!
    weight: Int @external
    shippingEstimate: Int @requires(fields: "weight") @cost(weight: 3)
    reviews(first: Int): [Review] @listSize(slicingArguments: ["first"])
  }
  type Review @cost(weight: 2) { stars: Int }
`;
const productsOf = (count: number) => Array.from({ length: count }, (_, index) => ({ id: String(index), weight: 1 }));

describe("the plugin on an Apollo Gateway with costModel: 'apollo'", () => {
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
          shippingEstimate: ({ weight }: { weight: number }) => weight * 10,
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
      costModel: 'apollo',
      defaultListSize: 10,
    });
    gateway = await serve({ gateway: new ApolloGateway({ supergraphSdl: composed.supergraphSdl }) }, [plugin]);
  });
  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([products?.stop(), reviews?.stop()]);
  });

  it('reads weights and assumed sizes from the supergraph', async () => {
    const reply = await gateway.post('{ products { weight } }');
    expect(reply.body.errors).toBeUndefined();
    // products 3 × (Product 1 + weight's own 5) = 18 (IBM: 20). Three came back: 18.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18, actualQueryCost: 18 });
  });

  it('prices slicing arguments and type weights across subgraphs', async () => {
    const reply = await gateway.post('query ($n: Int) { top(first: $n) { weight reviews(first: 4) { stars } } }', {
      n: 2,
    });
    expect(reply.body.errors).toBeUndefined();
    // top 2 × (Product 1 + weight 5 + reviews 4 × (Review 2 + stars 0)) = 2 × 14 = 28 (IBM: 32).
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 28, actualQueryCost: 28 });
  });

  it('adds what a @requires field requires to the estimate, and charges what came back', async () => {
    const reply = await gateway.post('{ top(first: 2) { shippingEstimate } }');
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data).toEqual({ top: [{ shippingEstimate: 10 }, { shippingEstimate: 10 }] });
    // Estimate: top 2 × (Product 1 + shippingEstimate (own 3 + the required weight, own 5)) = 18.
    // Actual (the router's actual does not count requirements): 2 × (1 + 3) = 8.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 18, actualQueryCost: 8 });
  });

  it('enforces requireOneSlicingArgument before anything is fetched', async () => {
    const reply = await gateway.post('{ top { weight } }');
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions?.code).toBe('COST_QUERY_PARSE_FAILURE');
  });
});
