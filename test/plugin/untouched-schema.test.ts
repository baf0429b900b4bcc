/**
 * The budget never changes what users own: after Apollo Server and GraphQL Yoga start with it and
 * serve operations (priced, refunded, refused, with errors), every field of the schema keeps the
 * `resolve` property it had, a plain writable and configurable value (a field without a resolver
 * still has none); no type or field gains a property or symbol; the user may redefine a resolver
 * with `Object.defineProperty` and the next operation runs it; and a context value gains at most one
 * property, a non-enumerable symbol (the `rateLimit` field's reading).
 *
 * Apollo Server's own cache control wraps every resolver of the schema for its hints (as would any
 * plugin with a `willResolveField` hook): it is switched off here, so that any change is the
 * budget's.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, describe, expect, it } from 'vitest';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { rateLimitResolvers, rateLimitTypeDefs } from '../../src/core/rate-limit-field.js';
import { useQueryBudget } from '../../src/envelop/use-query-budget.js';
import { listen } from '../support/listen.js';

const typeDefs = `${costDirectivesTypeDefs}
  type Book @cost(weight: "2") { title: String! similar(first: Int = 2): [Book!]! @listSize(slicingArguments: ["first"]) failing: String! }
  type Query { books(first: Int!): [Book!]! @listSize(slicingArguments: ["first"]) plain: String }
  ${rateLimitTypeDefs}`;
const titles = ['a', 'b', 'c', 'd'];
const resolvers = {
  Query: {
    books: (_: unknown, { first }: { first: number }) => titles.slice(0, first).map((title) => ({ title })),
    ...rateLimitResolvers.Query,
  },
  Book: {
    similar: (_: unknown, { first }: { first: number }) => titles.slice(0, first + 1).map((title) => ({ title })),
    failing: () => {
      throw new Error('failing');
    },
  },
};

type Descriptors = Map<string, string>;

/** Every own property of every field and object type of the schema, described. */
function describeSchema(schema: GraphQLSchema): Descriptors {
  const described: Descriptors = new Map();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    described.set(type.name, ownKeys(type));
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
      const descriptor = Object.getOwnPropertyDescriptor(field, 'resolve');
      described.set(
        `${type.name}.${field.name}`,
        `${ownKeys(field)} resolve=${descriptor === undefined ? 'none' : JSON.stringify({ ...descriptor, value: typeof descriptor.value, get: typeof descriptor.get })}`,
      );
    }
  }
  return described;
}
const ownKeys = (value: object) => Reflect.ownKeys(value).map(String).sort().join(',');

const OPERATIONS = [
  '{ books(first: 2) { title similar { title } } }', // a list one longer than priced: charged its excess
  '{ books(first: 3) { title failing } }', // an error
  '{ books(first: 1) { title } plain rateLimit { remaining } }', // the rateLimit reading on the context
  '{ books(first: 100000) { title } }', // refused: maxListSize
];

describe.each(['apollo', 'yoga'] as const)('on %s with the budget', (server) => {
  const schema = makeExecutableSchema({ typeDefs, resolvers });
  const before = describeSchema(schema);
  const contexts: object[] = [];
  let stop: () => Promise<void> = async () => {};
  afterAll(() => stop());

  async function start(): Promise<string> {
    const store = new MemoryBucketStore();
    const identify = () => 'caller';
    if (server === 'apollo') {
      const apollo = new ApolloServer<{ seen: boolean }>({
        schema,
        plugins: [queryBudgetPlugin({ store, identify }), ApolloServerPluginCacheControlDisabled()],
      });
      const { url } = await startStandaloneServer(apollo, {
        listen: { port: 0 },
        context: async () => {
          const context = { seen: true };
          contexts.push(context);
          return context;
        },
      });
      stop = () => apollo.stop();
      return url;
    }
    const yoga = createYoga({
      schema,
      logging: false,
      context: (initial) => {
        contexts.push(initial);
        return {};
      },
      plugins: [useQueryBudget({ store, identify })],
    });
    const listening = await listen(yoga);
    stop = listening.stop;
    return listening.url;
  }

  const post = async (url: string, query: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: unknown; errors?: unknown[] };
  };

  it("leaves every field's resolver and every type as they were, and lets the user redefine one", async () => {
    const url = await start();
    for (const query of OPERATIONS) await post(url, query);
    expect(describeSchema(schema)).toEqual(before);
    expect(Object.getOwnPropertyDescriptor(schema.getQueryType()?.getFields().plain, 'resolve')?.value).toBe(undefined);

    const books = schema.getQueryType()?.getFields().books as GraphQLField<unknown, unknown>;
    Object.defineProperty(books, 'resolve', {
      value: () => [{ title: 'redefined' }],
      writable: true,
      configurable: true,
    });
    expect((await post(url, '{ books(first: 1) { title } }')).data).toEqual({ books: [{ title: 'redefined' }] });
  });

  it('puts at most one non-enumerable symbol on a context value', () => {
    expect(contexts.length).toBeGreaterThan(0);
    for (const context of contexts) {
      const added = Reflect.ownKeys(context).filter(
        (key) => typeof key === 'symbol' && key.description?.startsWith('graphql-budget'),
      );
      expect(added.length).toBeLessThanOrEqual(1);
      for (const key of added) expect(Object.getOwnPropertyDescriptor(context, key)?.enumerable).toBe(false);
    }
  });
});
