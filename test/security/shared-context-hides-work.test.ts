/**
 * Attack: run two operations at once on one graphql-ws socket whose server keeps one context
 * value per connection (`context: (ctx) => (ctx.extra.memo ??= { caller })`).
 *
 *   {"id":"1","type":"subscribe","payload":{"query":"{ slowHeavy(ms: 300) }"}}
 *   {"id":"2","type":"subscribe","payload":{"query":"{ many(n: 500) { id heavy boom(at: 499) } }"}}   (30 ms later)
 *
 * The second execution registered its meter with the context value the first was still running
 * with, so both meters were marked shared and ignored. The list's last item fails a non-null
 * field, which nulls the list: the response walk priced it at its estimate (62), and the work the
 * error hid (500 items, each with a `heavy` of weight 5) went uncharged: 113 tokens taken for work
 * worth 3,053. A context value that refuses a property (a Proxy) failed the operation after its
 * charge, which was kept for work never done.
 *
 * Guarantee: each execution's work is metered as its own whatever context value it shares; tokens
 * taken are at least the work the resolvers did. A context value the library cannot write to is
 * metered all the same.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, type ExecutionArgs, type GraphQLObjectType } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
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
/** The work done, priced by the schema: each operation 1, `many` 1, each Thing 1, `heavy` 5, `slowHeavy` 50. */
const workPrice = (operations: number) => operations + work.lists + work.things + 5 * work.heavy + 50 * work.slow;

type Kind = 'connection' | 'read-only';
const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const http = createServer();
  const wsServer = new WebSocketServer({ server: http });
  const disposable = useServer(
    {
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
    },
    wsServer,
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  close = async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
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

it('charges two operations running at once on one context value the work each did', async () => {
  const socket = connect('mallory');
  try {
    reset();
    const slow = socket.run(SLOW);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const hidden = await socket.run(HIDDEN);
    expect(hidden.data).toEqual({ many: null });
    await slow;
    const done = workPrice(2);
    // slowHeavy 1 + 50; many 1 + 500 Things + 500 heavy at 5.
    expect(done).toBe(3053);
    expect(await settledTaken('mallory', done)).toBeGreaterThanOrEqual(done);
  } finally {
    await socket.dispose();
  }
});

it('charges each operation its own work when the same operation runs twice at once on one context value', async () => {
  const socket = connect('trudy');
  try {
    reset();
    const [first, second] = await Promise.all([socket.run(HIDDEN), socket.run(HIDDEN)]);
    expect([first.data, second.data]).toEqual([{ many: null }, { many: null }]);
    const done = workPrice(2);
    expect(done).toBe(2 * 3002);
    expect(await settledTaken('trudy', done)).toBeGreaterThanOrEqual(done);
  } finally {
    await socket.dispose();
  }
});

it('meters an operation whose context value takes no property, and charges it its work', async () => {
  const socket = connect('eve', 'read-only');
  try {
    reset();
    const hidden = await socket.run(HIDDEN);
    expect(hidden.errors?.map((error) => error.message)).toEqual(['boom']);
    expect(hidden.data).toEqual({ many: null });
    const done = workPrice(1);
    expect(done).toBe(3002);
    expect(await settledTaken('eve', done)).toBe(done);
  } finally {
    await socket.dispose();
  }
});
