import { ApolloServer } from '@apollo/server';
import type { GatewayInterface, GatewaySchemaLoadOrUpdateCallback } from '@apollo/server-gateway-interface';
import { buildSchema, execute, parse, type GraphQLSchema } from 'graphql';
import { afterEach, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';

/**
 * A gateway's supergraph can change while the server runs. An update whose cost directives are
 * invalid cannot stop the server (Apollo serves it regardless), and pricing it with the previous
 * schema's table would make every new field free: it is priced with default weights and logged.
 */

const V1 = `${costDirectivesTypeDefs}
type Query { report: Int @cost(weight: "40") }`;
const V2_INVALID = `${costDirectivesTypeDefs}
type Item { id: ID! }
type Query {
  report: Int @cost(weight: "40")
  items(count: Int): [Item!]! @listSize(slicingArguments: ["first"])
}`;

/** A gateway serving one schema at a time, whose updates the test triggers. */
class TestGateway implements GatewayInterface {
  #schema: GraphQLSchema;
  #listeners: GatewaySchemaLoadOrUpdateCallback[] = [];
  constructor(private sdl: string) {
    this.#schema = buildSchema(sdl);
  }
  async load() {
    return {
      executor: async (requestContext: { document: import('graphql').DocumentNode }) =>
        execute({
          schema: this.#schema,
          document: requestContext.document,
          rootValue: { report: 1, items: [{ id: '1' }] },
        }),
    };
  }
  onSchemaLoadOrUpdate(callback: GatewaySchemaLoadOrUpdateCallback) {
    this.#listeners.push(callback);
    callback({ apiSchema: this.#schema, coreSupergraphSdl: this.sdl });
    return () => undefined;
  }
  update(sdl: string): void {
    this.sdl = sdl;
    this.#schema = buildSchema(sdl);
    for (const listener of this.#listeners) listener({ apiSchema: this.#schema, coreSupergraphSdl: sdl });
  }
  async stop() {}
}

const logs: string[] = [];
let server: ApolloServer | undefined;
afterEach(async () => {
  await server?.stop();
});

it('prices an update with invalid cost directives with default weights, never at 0, and says so', async () => {
  const gateway = new TestGateway(V1);
  server = new ApolloServer({
    gateway,
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: (message) => void logs.push(String(message)) },
    plugins: [queryBudgetPlugin({ identify: () => 'x', store: new MemoryBucketStore() })],
  });
  await server.start();
  const costOf = async (query: string): Promise<unknown> => {
    const response = await server?.executeOperation({ query: parse(query) });
    return response?.body.kind === 'single' ? response.body.singleResult.extensions?.cost : undefined;
  };
  expect(await costOf('{ report }')).toMatchObject({ requestedQueryCost: 41 });

  gateway.update(V2_INVALID);
  expect(logs.some((line) => /default weights/.test(line) && /Query\.items/.test(line))).toBe(true);
  // Query 1 + 10 Items (defaultListSize) + the items field 1; report's weight is a default now too.
  expect(await costOf('{ items { id } }')).toMatchObject({ requestedQueryCost: 12 });
  expect(await costOf('{ report }')).toMatchObject({ requestedQueryCost: 1 });
});
