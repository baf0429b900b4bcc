/**
 * Attack on the server's setup: run the resolvers where the budget cannot see them.
 *
 *   an Envelop plugin whose execute runs with a copy of the context value ({ ...context, loaders }),
 *   or with Object.create(context);
 *   resolvers replaced in place after the server started (a hot reload:
 *   addResolversToSchema({ schema, resolvers, updateResolversInPlace: true })), or defined over
 *   the schema's own with Object.defineProperty
 *
 *   { many(n: 200) { id heavy child { id } } }        (no error touches the response)
 *
 * An execution meter that kept its state on the context value and counted the calls of the
 * resolvers it wrapped saw none of these, and was trusted as the whole charge: 1 token for work
 * worth 1,602, or 802; one that refused redefinitions broke the user's own code.
 *
 * Guarantee: the charge is the price of what the response shows, however the resolvers were put
 * in place or whatever context value they ran with; where an error hides a list, at least its
 * estimate. The schema is never changed, so the user may change it as they like.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { serverKind, startBudgetServer, type BudgetServer, type TestContext } from '../plugin/budget-server.js';

const typeDefs = `${costDirectivesTypeDefs}
type Thing { id: ID! heavy: Int @cost(weight: "5") child: Thing boom(at: ID!): String! }
type Query { many(n: Int!): [Thing!] }
`;
let heavy = 0;
const resolvers = {
  Query: { many: (_: unknown, { n }: { n: number }) => Array.from({ length: n }, (_, id) => ({ id: String(id) })) },
  Thing: {
    heavy: () => {
      heavy += 1;
      return 1;
    },
    child: ({ id }: { id: string }) => ({ id: `${id}-child` }),
    boom: ({ id }: { id: string }, { at }: { at: string }) => {
      if (id === at) throw new Error('boom');
      return 'ok';
    },
  },
};
// The operation 1, many 1, 200 Things at 1 and their heavy at 5, 200 child calls at 1 and their Things at 1.
const PRICE = 2 + 200 * (1 + 5 + 1 + 1);

/** The schema the server executes, as it hands it to plugins. */
let served: GraphQLSchema | undefined;
const capture: ApolloServerPlugin<TestContext> = {
  async serverWillStart() {
    return {
      schemaDidLoadOrUpdate({ apiSchema }) {
        served = apiSchema;
      },
    };
  },
};
/** On GraphQL Yoga: the schema, and every execution run with a copy of the context value. */
const copies: Plugin<TestContext> = {
  onSchemaChange({ schema }) {
    served = schema;
  },
  onExecute({ args, executeFn, setExecuteFn }) {
    const user = args.contextValue.user ?? '';
    if (!user.startsWith('spread') && !user.startsWith('proto')) return;
    const copy = user.startsWith('proto') ? Object.create(args.contextValue) : { ...args.contextValue };
    setExecuteFn((executeArgs) => executeFn({ ...executeArgs, contextValue: copy }));
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
let server: BudgetServer;
beforeAll(async () => {
  server = await startBudgetServer(
    { store, policy },
    serverKind() === 'yoga'
      ? { schema: { typeDefs, resolvers }, extraEnvelopPlugins: [copies] }
      : { schema: { typeDefs, resolvers }, extraPlugins: [capture] },
  );
});
afterAll(() => server.stop());

const taken = async (user: string) => policy.capacity - (await store.peek(user, policy)).remaining;
const QUERY = '{ many(n: 200) { id heavy child { id } } }';

it.runIf(serverKind() === 'yoga')(
  'charges the work of an execution that runs with a copy of the context value',
  async () => {
    for (const user of ['spread', 'proto']) {
      heavy = 0;
      const reply = await server.post(QUERY, { user });
      expect(reply.status).toBe(200);
      expect(heavy).toBe(200);
      expect(await taken(user)).toBe(PRICE);
    }
  },
);

it.runIf(serverKind() === 'yoga')(
  'charges an execution whose context value inherits from the one the budget saw at least its estimate, an error hiding its list',
  async () => {
    heavy = 0;
    const reply = await server.post('{ many(n: 50) { id heavy boom(at: "49") } }', { user: 'proto-hidden' });
    expect(reply.body.data).toEqual({ many: null });
    expect(heavy).toBe(50);
    // The estimate: the operation 1, many 1, 10 Things (defaultListSize) at 1 and their heavy at 5.
    expect(await taken('proto-hidden')).toBe(2 + 10 * 6);
  },
);

it('charges the work of resolvers replaced in place after the server started', async () => {
  // Only `spread` and `proto` run with a copy: this one runs with the context value the budget saw.
  expect((await server.post(QUERY, { user: 'before' })).status).toBe(200);
  expect(await taken('before')).toBe(PRICE);
  // A hot reload: new resolver functions in the fields of the schema being served.
  if (served === undefined) throw new Error('the server handed no schema to its plugins');
  const thing = served.getType('Thing') as GraphQLObjectType;
  thing.getFields().heavy!.resolve = () => {
    heavy += 1;
    return 2;
  };
  (served.getType('Query') as GraphQLObjectType).getFields().many!.resolve = (_: unknown, args: { n: number }) =>
    Array.from({ length: args.n }, (_, id) => ({ id: `new-${id}` }));
  heavy = 0;
  const reply = await server.post(QUERY, { user: 'after' });
  expect(reply.status).toBe(200);
  expect(heavy).toBe(200);
  expect(await taken('after')).toBe(PRICE);
});

it('charges the work of a resolver defined over the one the schema had', async () => {
  if (served === undefined) throw new Error('the server handed no schema to its plugins');
  const field = (served.getType('Thing') as GraphQLObjectType).getFields().heavy!;
  Object.defineProperty(field, 'resolve', {
    value: () => {
      heavy += 1;
      return 3;
    },
    writable: true,
    configurable: true,
  });
  heavy = 0;
  expect((await server.post(QUERY, { user: 'defined' })).status).toBe(200);
  expect(heavy).toBe(200);
  expect(await taken('defined')).toBe(PRICE);
});
