/**
 * Attack: on a graphql-ws connection whose server keeps one context value per connection, send an
 * operation that settles while its resolvers still run (the first item's `boom` fails at 30 ms and
 * nulls the list; 200 children are still loading), then, 60 ms later, another operation.
 *
 *   { items(n: 200) { id boom child(ms: 150) { heavy child(ms: 10) { heavy } } } }
 *   { __schema { queryType { name } } }                                             (60 ms later)
 *
 * An execution meter kept per context value gave the settled operation's place up to the newer
 * one, which then counted the late work: the wrong tenant paid it where `identify` reads a variable
 * (a cheap operation's tenant was charged 1,203 for its 3). And where the server hands graphql-ws
 * one parsed document per query text (a document cache), a dozen tenants running one document at
 * once, each with its own `$org`, were each charged the work of all of them.
 *
 * Guarantee: one caller's operation never changes what another is charged: each operation is
 * settled against its own result, whatever runs before or after it on its context value. The one
 * whose list an error hides is charged at least its estimate (the work its resolvers go on doing
 * after the response is in no response: the price a schema gives that list is what it costs).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DocumentNode, type ExecutionArgs, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createSchema } from 'graphql-yoga';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { graphqlWsBudget } from '../../src/graphql-ws/graphql-ws-budget.js';

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Work by tenant (`$org`, or the connection's caller): the price of what the resolvers did. */
const work = new Map<string, number>();
const add = (owner: string, price: number) => work.set(owner, (work.get(owner) ?? 0) + price);
type Item = { id: number; owner: string };
const schema = createSchema<{ caller: string }>({
  typeDefs: `${costDirectivesTypeDefs}
    type Query { items(n: Int!, org: String): [Item!] later(ms: Int!): Later @cost(weight: "0") }
    "Weighs nothing: an operation's first metered call comes when its items do."
    type Later @cost(weight: "0") { items(n: Int!, org: String): [Item!] }
    type Item { id: ID! heavy: Int @cost(weight: "5") boom: String! child(ms: Int!): Item }
  `,
  resolvers: {
    Query: {
      items: (_: unknown, { n, org }: { n: number; org?: string }, { caller }: { caller: string }) => {
        const owner = org ?? caller;
        // The operation 1, items 1, each Item 1.
        add(owner, 2 + n);
        return Array.from({ length: n }, (_, id) => ({ id, owner }));
      },
      later: async (_: unknown, { ms }: { ms: number }) => {
        await after(ms);
        return {};
      },
    },
    Later: {
      items: (_: unknown, { n, org }: { n: number; org?: string }, { caller }: { caller: string }) => {
        const owner = org ?? caller;
        add(owner, 2 + n);
        return Array.from({ length: n }, (_, id) => ({ id, owner }));
      },
    },
    Item: {
      heavy: ({ owner }: Item) => {
        add(owner, 5);
        return 1;
      },
      boom: async ({ id }: Item) => {
        await after(30);
        if (id === 0) throw new Error('boom');
        return 'ok';
      },
      child: async ({ id, owner }: Item, { ms }: { ms: number }) => {
        await after(ms);
        // child 1, its Item 1.
        add(owner, 2);
        return { id: id + 1000, owner };
      },
    },
  },
});

const store = new MemoryBucketStore();
const policy = { capacity: 1_000_000, refillPerSecond: 0 };
const urls: Record<'caller' | 'tenant' | 'cached', string> = { caller: '', tenant: '', cached: '' };
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  urls.caller = await start(({ contextValue }) => (contextValue as { caller: string }).caller);
  const tenant = ({ variableValues }: ExecutionArgs) => `org:${String((variableValues as { org?: string }).org)}`;
  urls.tenant = await start(tenant);
  urls.cached = await start(tenant, new Map());
});
afterAll(() => Promise.all(closers.map((close) => close())));

/** A server; with `documents`, graphql-ws runs one parsed document per query text. */
async function start(
  identify: (args: ExecutionArgs) => string,
  documents?: Map<string, DocumentNode>,
): Promise<string> {
  const http = createServer();
  const sockets = new WebSocketServer({ server: http });
  // One context value per connection, shared by every operation on it.
  const contextOf = (ctx: { extra: unknown; connectionParams?: unknown }) => {
    const extra = ctx.extra as { memo?: { caller: string } };
    extra.memo ??= { caller: (ctx.connectionParams as { caller: string }).caller };
    return extra.memo;
  };
  const disposable = useServer(
    {
      schema,
      context: contextOf,
      ...(documents === undefined
        ? {}
        : {
            onSubscribe: (ctx, _id, payload) => {
              const document = documents.get(payload.query) ?? parse(payload.query);
              documents.set(payload.query, document);
              return { schema, document, variableValues: payload.variables, contextValue: contextOf(ctx) };
            },
          }),
      ...graphqlWsBudget({ store, policy, identify }),
    },
    sockets,
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

function connect(server: keyof typeof urls, caller: string) {
  const client = createClient({
    url: urls[server],
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    // Not lazy: the connection, and its context value, stays open between operations.
    lazy: false,
    connectionParams: { caller },
  });
  const run = (query: string, variables?: Record<string, unknown>) =>
    new Promise<{ data?: unknown }>((resolve, reject) => {
      let last: unknown;
      client.subscribe(
        { query, variables },
        { next: (value) => (last = value), error: reject, complete: () => resolve(last as never) },
      );
    });
  return { run, dispose: () => client.dispose() };
}

const taken = async (bucket: string) => policy.capacity - (await store.peek(bucket, policy)).remaining;

const LATE = '{ items(n: 200) { id boom child(ms: 150) { heavy child(ms: 10) { heavy } } } }';

/** The estimate of `LATE`: the operation 1, items 1, 10 Items (defaultListSize), each 1 + child 1 + Item 1 + heavy 5 + child 1 + Item 1 + heavy 5. */
const LATE_ESTIMATE = 2 + 10 * 15;

it('charges an operation whose list an error hides its estimate, and nothing of it to the free introspection after it', async () => {
  const socket = connect('caller', 'alice');
  try {
    for (let round = 1; round <= 3; round++) {
      const [late, introspection] = await Promise.all([
        socket.run(LATE),
        after(60).then(() => socket.run('{ __schema { queryType { name } } }')),
      ]);
      expect(late.data).toEqual({ items: null });
      expect(introspection.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      await after(400);
      // 202 + 200 children (2 + heavy 5) + 200 grandchildren (2 + heavy 5) per round: hidden by the error.
      expect(work.get('alice')).toBe(round * 3002);
      expect(await taken('alice')).toBe(round * LATE_ESTIMATE);
    }
  } finally {
    await socket.dispose();
  }
});

it("charges a tenant's late work to that tenant, never to the tenant of the next operation", async () => {
  const LATE_ORG =
    'query L($org: String!) { items(n: 100, org: $org) { id boom child(ms: 150) { heavy child(ms: 10) { heavy } } } }';
  const CHEAP_ORG = 'query C($org: String!) { items(n: 1, org: $org) { id } }';
  const socket = connect('tenant', 'shared');
  try {
    // Operations before, on the same connection.
    await socket.run(CHEAP_ORG, { org: 'earlier' });
    for (let round = 1; round <= 3; round++) {
      // Many operations meanwhile, on the same context value.
      await Promise.all([
        socket.run(LATE_ORG, { org: 'late' }),
        after(60).then(async () => {
          for (let cheap = 0; cheap < 20; cheap++) await socket.run(CHEAP_ORG, { org: 'cheap' });
        }),
      ]);
      await after(400);
      // The hidden one its estimate per round; each cheap one exactly its own 3 (the operation 1, items 1, 1 Item).
      expect(work.get('late')).toBe(round * 1502);
      expect(await taken('org:late')).toBe(round * LATE_ESTIMATE);
      expect(await taken('org:cheap')).toBe(round * 20 * 3);
    }
  } finally {
    await socket.dispose();
  }
});

it("charges each tenant running one cached document at once its own work, never the others'", async () => {
  const QUERY = 'query F($org: String!, $ms: Int!) { later(ms: $ms) { items(n: 2, org: $org) { id heavy } } }';
  const socket = connect('cached', 'many');
  try {
    const tenants = Array.from({ length: 12 }, (_, index) => `t${index}`);
    await Promise.all(tenants.map((org, index) => socket.run(QUERY, { org, ms: 5 + 3 * index })));
    // Each run's result came back, so its resolvers are done: wait for the slowest machine's last settlement.
    for (let waited = 0; waited < 2000 && tenants.some((org) => work.get(org) === undefined); waited += 20) {
      await after(20);
    }
    await after(50);
    for (const org of tenants) {
      // The operation 1, items 1, 2 Items at 1 and their heavy at 5.
      expect(work.get(org)).toBe(14);
      expect(await taken(`org:${org}`)).toBe(14);
    }
  } finally {
    await socket.dispose();
  }
});
