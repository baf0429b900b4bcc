import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices } from '@apollo/composition';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { serve, subgraphSchema, type RunningServer } from '../plugin/federation-servers.js';

// A Hive Gateway (its runtime, GraphQL Yoga underneath) in front of two subgraphs, useQueryBudget on
// the gateway: its unified schema carries the supergraph's @cost and @listSize, and the prices are
// those of the same supergraph on an Apollo Gateway (test/plugin/gateway.test.ts).

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

interface Reply {
  status: number;
  body: { data?: unknown; errors?: { extensions?: { code?: string } }[]; extensions?: { cost?: unknown } };
}

describe('useQueryBudget on a Hive Gateway prices with the supergraph weights', () => {
  let products: RunningServer;
  let reviews: RunningServer;
  let url: string;
  let stop: () => Promise<void>;
  const store = new MemoryBucketStore();
  const policy = { capacity: 100, refillPerSecond: 0 };

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
    const gateway = createGatewayRuntime({
      supergraph: composed.supergraphSdl,
      logging: false,
      plugins: () => [useQueryBudget({ identify: () => 'client', store, policy })],
    });
    const http = createServer(gateway);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    stop = async () => {
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
      await gateway.dispose();
    };
  });
  afterAll(async () => {
    await stop?.();
    await Promise.all([products?.stop(), reviews?.stop()]);
  });

  const post = async (query: string, variables?: Record<string, unknown>): Promise<Reply> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as Reply['body'] };
  };

  it('reads weights and assumed sizes', async () => {
    const reply = await post('{ products { weight } }');
    expect(reply.body.errors).toBeUndefined();
    // Query 1 + 3 Products (assumedSize) = typeCost 4; products 1 + 3 × weight 5 = fieldCost 16.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 20, actualQueryCost: 20 });
  });

  it('reads slicing arguments and type weights across subgraphs', async () => {
    const reply = await post('query ($n: Int) { top(first: $n) { weight reviews(first: 4) { stars } } }', { n: 2 });
    expect(reply.body.errors).toBeUndefined();
    // typeCost: Query 1 + 2 Products × (1 + 4 Reviews × weight 2) = 19; fieldCost: top 1 + 2 × (5 + 1) = 13.
    expect(reply.body.extensions?.cost).toMatchObject({ requestedQueryCost: 32, actualQueryCost: 32 });
  });

  it('refuses before anything is fetched: a missing slicing argument, then a spent budget', async () => {
    const missing = await post('{ top { weight } }');
    expect(missing.status).toBe(400);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('COST_QUERY_PARSE_FAILURE');
    // 100 − 20 − 32 = 48 left: one more of 32 fits, the next is refused.
    expect((await post('query { top(first: 2) { weight reviews(first: 4) { stars } } }')).status).toBe(200);
    const refused = await post('query { top(first: 2) { weight reviews(first: 4) { stars } } }');
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.body.data).toBeUndefined();
  });
});
