import { ApolloServer } from '@apollo/server';
import { describe, expect, it } from 'vitest';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('schema load', () => {
  it('fails server.start() with the cost engine message naming Type.field when annotations are invalid', async () => {
    const server = new ApolloServer({
      typeDefs: `${costDirectivesTypeDefs}
        type Item { id: ID! }
        type Query { items(count: String): [Item!]! @listSize(slicingArguments: ["first"]) }
      `,
      logger: silent,
      plugins: [queryBudgetPlugin({ identify: () => 'x', store: new MemoryBucketStore() })],
    });
    await expect(server.start()).rejects.toThrow(/Query\.items/);
  });

  it('prices operations against the schema Apollo loaded', async () => {
    const server = new ApolloServer({
      typeDefs: `${costDirectivesTypeDefs}
        type Query { heavy: Int @cost(weight: "40") }
      `,
      resolvers: { Query: { heavy: () => 1 } },
      logger: silent,
      plugins: [
        queryBudgetPlugin({
          identify: () => 'x',
          store: new MemoryBucketStore(),
          policy: { capacity: 100, refillPerSecond: 0 },
        }),
      ],
    });
    await server.start();
    const response = await server.executeOperation({ query: '{ heavy }' });
    expect(response.body.kind === 'single' && response.body.singleResult.extensions?.cost).toEqual({
      requestedQueryCost: 41,
      actualQueryCost: 41,
      throttleStatus: { maximumAvailable: 100, currentlyAvailable: 59, restoreRate: 0 },
    });
    await server.stop();
  });
});
