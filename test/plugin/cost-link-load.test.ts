import { ApolloServer } from '@apollo/server';
import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('a schema whose cost link cannot be resolved', () => {
  it('fails server.start() with a message naming the link', async () => {
    const server = new ApolloServer({
      typeDefs: `
        directive @link(url: String, as: String, import: [String]) repeatable on SCHEMA
        directive @cost(weight: Int!) on FIELD_DEFINITION
        extend schema @link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@cost", "@listSize"])
        type Query { a: Int @cost(weight: 2) }
      `,
      logger: silent,
      plugins: [queryBudgetPlugin({ identify: () => 'x', store: new MemoryBucketStore() })],
    });
    await expect(server.start()).rejects.toThrow(
      `@link(url: "https://specs.apollo.dev/cost/v0.1", import: ["@cost", "@listSize"]): names the cost spec's @listSize @listSize, but the schema defines no @listSize.`,
    );
  });
});
