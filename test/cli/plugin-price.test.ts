import { readFileSync } from 'node:fs';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import {
  buildSchema,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  parse,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { apiSchema } from '../../src/cli/api-schema.js';
import { pluginPrice, type PricingOptions } from '../../src/cli/plugin-price.js';
import { CostAnalysisError } from '../../src/cost/errors.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { readmeQuery, readmeTypeDefs } from './readme-example.js';
import { serve as serveWithPlugins } from '../plugin/federation-servers.js';
import { composeSupergraph } from './supergraph.js';

// pluginPrice is what `graphql-budget price` reports: it must be what a real Apollo Server with the
// plugin reports as extensions.cost.requestedQueryCost, for the same schema, operations and options.

const root = new URL('../../', import.meta.url);
const bookstoreTypeDefs = readFileSync(new URL('examples/bookstore/schema.graphql', root), 'utf8');

interface Case {
  query: string;
  variables?: Record<string, unknown>;
}

/** Values of the right shape for any field: two items per list (or `first`, if fewer), the first enum value. */
const anyValue: GraphQLFieldResolver<unknown, unknown> = (_source, args, _context, info) =>
  fakeValue(info.returnType, info.schema, args);

function fakeValue(type: GraphQLOutputType, schema: GraphQLSchema, args: Record<string, unknown>): unknown {
  if (isNonNullType(type)) return fakeValue(type.ofType, schema, args);
  if (isListType(type)) {
    const count = typeof args.first === 'number' ? Math.min(args.first, 2) : 2;
    return Array.from({ length: count }, () => fakeValue(type.ofType, schema, {}));
  }
  if (isAbstractType(type)) return { __typename: schema.getPossibleTypes(type)[0]?.name };
  if (isObjectType(type)) return {};
  if (isEnumType(type)) return type.getValues()[0]?.value;
  return { Int: 1, Float: 1.5, Boolean: true }[type.name] ?? 'x';
}

const plugin = (options: PricingOptions) =>
  queryBudgetPlugin({
    identify: () => 'ci',
    store: new MemoryBucketStore(),
    policy: { capacity: 1e9, refillPerSecond: 0 },
    ...options,
  });

/** The requestedQueryCost (or the error code) a server reports for each case, in order. */
async function served(url: string, cases: readonly Case[]): Promise<(number | string)[]> {
  const answers: (number | string)[] = [];
  for (const { query, variables } of cases) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as {
      errors?: { extensions?: { code?: string } }[];
      extensions?: { cost?: { requestedQueryCost: number } };
    };
    // A refused operation (HTTP 400) reports its error's code; the cost is then 0.
    const refused = response.status === 400 ? body.errors?.[0]?.extensions?.code : undefined;
    answers.push(refused ?? body.extensions?.cost?.requestedQueryCost ?? 'no answer');
  }
  return answers;
}

/** What pluginPrice says for each case: the cost, or the code of the error the plugin answers with. */
function priced(
  schema: GraphQLSchema,
  supergraphSdl: string | undefined,
  options: PricingOptions,
  cases: readonly Case[],
) {
  return cases.map(({ query, variables }) => {
    try {
      return pluginPrice(schema, supergraphSdl, options, { document: parse(query), variables }).cost;
    } catch (error) {
      if (error instanceof CostAnalysisError) return error.code;
      throw error;
    }
  });
}

const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function serve(typeDefs: string, options: PricingOptions): Promise<string> {
  const server = new ApolloServer({
    typeDefs: [costDirectivesTypeDefs, typeDefs],
    fieldResolver: anyValue,
    plugins: [plugin(options)],
  });
  servers.push(server);
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return url;
}

describe('pluginPrice equals the requestedQueryCost of an Apollo Server with the plugin', () => {
  it("prices the README's example operation 18", async () => {
    const url = await serve(readmeTypeDefs, {});
    const schema = buildSchema(costDirectivesTypeDefs + readmeTypeDefs);
    const cases = [{ query: readmeQuery }];
    expect(await served(url, cases)).toEqual([18]);
    expect(priced(schema, undefined, {}, cases)).toEqual([18]);
  });

  const bookstoreCases: Case[] = [
    { query: '{ books(first: 20) { edges { node { title author { name } reviews(last: 5) { body } } } } }' },
    { query: 'query ($id: ID!) { book(id: $id) { recommendations(first: 4) { title } } }', variables: { id: 'b1' } },
    { query: '{ search(text: "a") { ... on Book { title } ... on Author { books { title } } } }' },
    { query: 'mutation { addReview(bookId: "b1", rating: 5, body: "!") { id book { title } } }' },
    { query: '{ authors { name } }' },
    { query: '{ books(first: 20000) { totalCount } }' },
    { query: '{ __schema { types { name fields { name } } } }' },
  ];
  for (const options of [
    {},
    { costModel: 'apollo', defaultListSize: 3 },
    { maxListSize: 50_000 },
  ] as PricingOptions[]) {
    it(`prices the bookstore's operations alike with ${JSON.stringify(options)}`, async () => {
      const url = await serve(bookstoreTypeDefs, options);
      const schema = buildSchema(costDirectivesTypeDefs + bookstoreTypeDefs);
      const expected = await served(url, bookstoreCases);
      expect(expected).toContain('COST_QUERY_PARSE_FAILURE'); // `authors` without first or last
      // 20,000 items are refused under the plugin's maxListSize, priced above it (the query, the connection, books).
      expect(expected.at(-2)).toBe(options.maxListSize === undefined ? 'COST_LIST_SIZE_OUT_OF_RANGE' : 3);
      expect(priced(schema, undefined, options, bookstoreCases)).toEqual(expected);
    });
  }
});

describe('pluginPrice on an operation of nothing but introspection', () => {
  // Apollo Server refuses __schema in production (introspection off), so `{ __typename }` is the case there.
  const cases: Case[] = [
    { query: '{ __typename }' },
    { query: '{ __schema { types { name } } }' },
    { query: '{ __typename bestsellers { title } }' },
  ];
  const schema = buildSchema(costDirectivesTypeDefs + bookstoreTypeDefs);

  it('is free outside production, as the plugin makes it by default, and priced in production', async () => {
    const free = await served(await serve(bookstoreTypeDefs, {}), cases);
    expect(free.slice(0, 2)).toEqual([0, 0]);
    expect(free[2]).toBeGreaterThan(0);
    expect(priced(schema, undefined, {}, cases)).toEqual(free);
    vi.stubEnv('NODE_ENV', 'production');
    try {
      const [typename, , mixed] = cases as [Case, Case, Case];
      const charged = await served(await serve(bookstoreTypeDefs, {}), [typename, mixed]);
      expect(charged[0]).toBe(1); // the query root object
      expect(priced(schema, undefined, {}, [typename, mixed])).toEqual(charged);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('pluginPrice on a supergraph equals the plugin on an Apollo Gateway', () => {
  const { supergraphSdl } = composeSupergraph();
  let url: string;
  beforeAll(async () => {
    const gateway = await serveWithPlugins({ gateway: new ApolloGateway({ supergraphSdl }) }, [plugin({})]);
    servers.push(gateway);
    url = gateway.url;
  });

  it('reads the weights from the supergraph, priced on its API schema', async () => {
    // The subgraphs are not running: the price is set before the gateway fetches anything.
    const cases: Case[] = [
      { query: '{ products { name price reviews { stars } related(first: 2) { name } } }' },
      { query: '{ search(text: "x") { ... on Product { price } ... on Brand { name } } }' },
      { query: 'mutation { restock(id: "1", amount: 3) { price } }' },
    ];
    const expected = await served(url, cases);
    expect(expected.every((cost) => typeof cost === 'number')).toBe(true);
    expect(priced(apiSchema(parse(supergraphSdl)), supergraphSdl, {}, cases)).toEqual(expected);
    // Without the supergraph's weights, the same API schema prices otherwise.
    expect(priced(apiSchema(parse(supergraphSdl)), undefined, {}, cases)).not.toEqual(expected);
  });
});
