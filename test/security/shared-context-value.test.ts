/**
 * Attack: run two operations at once on one graphql-ws socket whose server keeps one context
 * value per connection (`context: (ctx) => (ctx.extra.memo ??= { caller })`), one of them with an
 * error that hides a list, so that one operation's state is taken for the other's.
 *
 *   {"id":"1","type":"subscribe","payload":{"query":"{ slowHeavy(ms: 300) }"}}
 *   {"id":"2","type":"subscribe","payload":{"query":"{ many(n: 500) { id heavy boom(at: 499) } }"}}   (30 ms later)
 *
 * An execution meter kept per context value confused the two executions and charged 113 tokens
 * where each operation's own price made 114; a context value that refuses a property (a Proxy)
 * failed the operation after its charge.
 *
 * Guarantee: each operation is settled against its own result, whatever context value it shares:
 * the one no error touched is charged exactly what its response shows, the one whose list an error
 * hides at least its estimate, and neither pays for the other. The budget writes nothing to the
 * context value but the `rateLimit` field's reading, and runs where it cannot.
 */
import { buildSchema, type ExecutionArgs, type GraphQLObjectType } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGraphqlWsServer } from '../support/graphql-ws-server.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { graphqlWsBudget } from '../../src/graphql-ws/graphql-ws-budget.js';

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Thing { id: ID! heavy: Int @cost(weight: "5") boom(at: Int!): String! }
  type Query { slowHeavy(ms: Int!): Int @cost(weight: "50") many(n: Int!): [Thing!] }
`);
/** What the resolvers did: object-field calls, objects returned, `heavy` calls, `slowHeavy` calls. */
const work = { lists: 0, things: 0, heavy: 0, slow: 0 };
const fields = (name: string) => (schema.getType(name) as GraphQLObjectType).getFields();
fields('Query').slowHeavy!.resolve = async (_: unknown, { ms }: { ms: number }) => {
  work.slow += 1;
  await new Promise((resolve) => setTimeout(resolve, ms));
  return 1;
};
fields('Query').many!.resolve = (_: unknown, { n }: { n: number }) => {
  work.lists += 1;
  work.things += n;
  return Array.from({ length: n }, (_, index) => ({ id: String(index), index }));
};
fields('Thing').heavy!.resolve = () => {
  work.heavy += 1;
  return 1;
};
fields('Thing').boom!.resolve = ({ index }: { index: number }, { at }: { at: number }) => {
  if (index === at) throw new Error('boom');
  return 'ok';
};
/** `{ slowHeavy }` as its response shows it: the operation 1, slowHeavy 50. */
const SLOW_PRICE = 1 + 50;
/** `{ many … }`'s estimate: the operation 1, many 1, 10 Things (defaultListSize) at 1 and their heavy at 5. */
const HIDDEN_ESTIMATE = 2 + 10 * 6;

type Kind = 'connection' | 'read-only';
const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ url, close } = await startGraphqlWsServer({
    schema,
    context: (ctx) => {
      const { caller, kind } = ctx.connectionParams as { caller: string; kind: Kind };
      if (kind === 'read-only') return new Proxy({ caller }, { defineProperty: () => false });
      // One context value per connection, shared by every operation on it.
      const extra = ctx.extra as { memo?: { caller: string } };
      extra.memo ??= { caller };
      return extra.memo;
    },
    ...graphqlWsBudget({
      store,
      policy,
      identify: ({ contextValue }: ExecutionArgs) => (contextValue as { caller: string }).caller,
    }),
  }));
});
afterAll(() => close());

function connect(caller: string, kind: Kind = 'connection') {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, connectionParams: { caller, kind } });
  const run = (query: string) =>
    new Promise<{ data?: unknown; errors?: { message: string }[] }>((resolve, reject) => {
      let last: unknown;
      client.subscribe(
        { query },
        { next: (value) => (last = value), error: reject, complete: () => resolve(last as never) },
      );
    });
  return { run, dispose: () => client.dispose() };
}

const taken = async (caller: string) => policy.capacity - (await store.peek(caller, policy)).remaining;
/** The tokens taken from `caller` once the settlement and any late charge are done. */
async function settledTaken(caller: string, atLeast: number): Promise<number> {
  for (let attempt = 0; attempt < 50 && (await taken(caller)) < atLeast; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return taken(caller);
}
const reset = () => Object.assign(work, { lists: 0, things: 0, heavy: 0, slow: 0 });

const SLOW = '{ slowHeavy(ms: 300) }';
const HIDDEN = '{ many(n: 500) { id heavy boom(at: 499) } }';

it('charges two operations running at once on one context value each its own price', async () => {
  const socket = connect('mallory');
  try {
    reset();
    const slow = socket.run(SLOW);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const hidden = await socket.run(HIDDEN);
    expect(hidden.data).toEqual({ many: null });
    expect(await slow).toMatchObject({ data: { slowHeavy: 1 } });
    expect(work).toMatchObject({ things: 500, heavy: 500, slow: 1 });
    expect(await settledTaken('mallory', SLOW_PRICE + HIDDEN_ESTIMATE)).toBe(SLOW_PRICE + HIDDEN_ESTIMATE);
  } finally {
    await socket.dispose();
  }
});

it('charges each of two runs of one operation at once on one context value its own estimate', async () => {
  const socket = connect('trudy');
  try {
    reset();
    const [first, second] = await Promise.all([socket.run(HIDDEN), socket.run(HIDDEN)]);
    expect([first.data, second.data]).toEqual([{ many: null }, { many: null }]);
    expect(await settledTaken('trudy', 2 * HIDDEN_ESTIMATE)).toBe(2 * HIDDEN_ESTIMATE);
  } finally {
    await socket.dispose();
  }
});

it('runs and charges an operation whose context value takes no property', async () => {
  const socket = connect('eve', 'read-only');
  try {
    reset();
    const hidden = await socket.run(HIDDEN);
    expect(hidden.errors?.map((error) => error.message)).toEqual(['boom']);
    expect(hidden.data).toEqual({ many: null });
    expect(await settledTaken('eve', HIDDEN_ESTIMATE)).toBe(HIDDEN_ESTIMATE);
  } finally {
    await socket.dispose();
  }
});
