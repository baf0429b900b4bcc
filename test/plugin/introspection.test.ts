import { getIntrospectionQuery } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { costOf, serversStoppedAfterEach, startBudgetServer, type BudgetServer } from './budget-server.js';

/** Schema tools against the README install server (capacity 100), outside production and in it. */

const typeDefs = `${costDirectivesTypeDefs}
  type Query { books(first: Int = 10): [Book!]! @listSize(slicingArguments: ["first"]) }
  type Book {
    title: String!
    similar(first: Int = 3): [Book!]! @cost(weight: "5") @listSize(slicingArguments: ["first"])
  }`;
const books = ['The Silent Harbour', 'The Glass Atlas'].map((title) => ({ title }));
const schema = {
  typeDefs,
  resolvers: {
    Query: { books: (_: unknown, { first }: { first: number }) => books.slice(0, first) },
    Book: { similar: (book: { title: string }) => books.filter((other) => other !== book) },
  },
};
const policy = { capacity: 100, refillPerSecond: 5 };

const servers = serversStoppedAfterEach();
const savedEnv = process.env.NODE_ENV;
afterEach(() => {
  process.env.NODE_ENV = savedEnv;
});

/** The README server, with NODE_ENV as given when the plugin is built (then set back to `test`). */
async function readmeServer(nodeEnv: string | undefined): Promise<BudgetServer> {
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
  // Introspection enabled on the server whatever NODE_ENV says (Apollo turns it off in production).
  const server = await startBudgetServer({ store: new MemoryBucketStore(), policy }, { schema, introspection: true });
  process.env.NODE_ENV = 'test';
  servers.push(server);
  return server;
}

describe('the standard introspection query (Apollo Sandbox, GraphiQL, graphql-codegen)', () => {
  it('loads the schema with NODE_ENV unset, and costs nothing', async () => {
    const server = await readmeServer(undefined);
    const reply = await server.post(getIntrospectionQuery(), { user: 'tool' });
    expect(reply.status).toBe(200);
    expect((reply.body.data as { __schema: { types: unknown[] } }).__schema.types.length).toBeGreaterThan(10);
    expect(costOf(reply)).toMatchObject({ requestedQueryCost: 0, actualQueryCost: 0 });
    // Even for a caller whose budget is spent: 92 priced (16 after the refund), then 92 more do not fit.
    const page = '{ books(first: 10) { title similar(first: 3) { title } } }';
    expect((await server.post(page, { user: 'tool' })).status).toBe(200);
    expect((await server.post(page, { user: 'tool' })).status).toBe(429);
    expect((await server.post(getIntrospectionQuery(), { user: 'tool' })).status).toBe(200);
  });

  it("is priced in production by the schema's real sizes: 520, over a budget of 100", async () => {
    const server = await readmeServer('production');
    const reply = await server.post(getIntrospectionQuery(), { user: 'tool' });
    expect(reply.status).toBe(400);
    expect(reply.body.errors?.[0]?.extensions).toMatchObject({
      code: 'COST_ESTIMATED_TOO_EXPENSIVE',
      estimatedCost: 520,
      maxCost: 100,
    });
  });

  it('reads NODE_ENV when the plugin is built, not when a request comes', async () => {
    const server = await readmeServer('production');
    process.env.NODE_ENV = 'development';
    expect((await server.post(getIntrospectionQuery(), { user: 'tool' })).status).toBe(400);
  });
});

describe('introspection where an attacker can use it', () => {
  it('charges 40 aliased __schema selections in production at least 40 tokens', async () => {
    const server = await readmeServer('production');
    const aliases = Array.from({ length: 40 }, (_, i) => `s${i}: __schema { queryType { name } }`).join(' ');
    const reply = await server.post(`{ ${aliases} }`, { user: 'mallory' });
    const requested =
      reply.status === 200
        ? costOf(reply).requestedQueryCost
        : Number(reply.body.errors?.[0]?.extensions?.estimatedCost);
    // Each: __Schema 1 + __Type 1, and __schema 1 + queryType 1.
    expect(requested).toBe(1 + 40 * 4);
  });

  it('prices introspection beside other fields outside production too', async () => {
    const server = await readmeServer(undefined);
    const reply = await server.post('{ books(first: 1) { title } __schema { types { name } } }', { user: 'mallory' });
    expect(reply.status).toBe(200);
    expect(costOf(reply).requestedQueryCost).toBeGreaterThan(3 + 10);
    expect(costOf(reply).actualQueryCost).toBe(costOf(reply).requestedQueryCost);
  });
});
