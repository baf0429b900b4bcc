/**
 * Attack on the server's setup: run the resolvers where the meter cannot see them.
 *
 *   an Envelop plugin whose execute runs with a copy of the context value ({ ...context, loaders }),
 *   or with Object.create(context);
 *   resolvers replaced in place after the server started (a hot reload:
 *   addResolversToSchema({ schema, resolvers, updateResolversInPlace: true }))
 *
 *   { many(n: 200) { id heavy child { id } } }        (no error touches the response)
 *
 * The meter keeps its state on the context value the budget saw, and counts the calls of the
 * resolvers it wrapped. A copied context, or a resolver put in the wrapper's place, was counted by
 * no meter; with no error in the response the meter's count was trusted as the whole charge: 1
 * token for work worth 1,602, or 802.
 *
 * Then: a resolver put in place with `Object.defineProperty` instead of an assignment, and a
 * context value that inherits from the budget's (`Object.create`) beside an error that hides a
 * list longer than priced, still escaped the meter: 52 tokens for 253, 7 for 52.
 *
 * Guarantee: a charge below the estimate is never taken from the meter alone: the response is
 * walked and the charge is at least what it shows. A resolver assigned to an instrumented field
 * is instrumented in its turn, and one defined over it is refused. An execution whose context
 * value inherits from the one the budget saw is metered. (One run with a plain copy of the context
 * value is outside the model: docs/security.md.)
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
  'meters an execution whose context value inherits from the one the budget saw, an error hiding its list',
  async () => {
    heavy = 0;
    const reply = await server.post('{ many(n: 50) { id heavy boom(at: "49") } }', { user: 'proto-hidden' });
    expect(reply.body.data).toEqual({ many: null });
    expect(heavy).toBe(50);
    // The operation 1, many 1, 50 Things at 1 and their heavy at 5.
    expect(await taken('proto-hidden')).toBeGreaterThanOrEqual(2 + 50 * 6);
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

it('refuses a resolver defined over an instrumented one, rather than running it unmetered', async () => {
  if (served === undefined) throw new Error('the server handed no schema to its plugins');
  const field = (served.getType('Thing') as GraphQLObjectType).getFields().heavy!;
  expect(() => Object.defineProperty(field, 'resolve', { value: () => 3 })).toThrow(TypeError);
  heavy = 0;
  expect((await server.post(QUERY, { user: 'defined' })).status).toBe(200);
  expect(heavy).toBe(200);
  expect(await taken('defined')).toBe(PRICE);
});
