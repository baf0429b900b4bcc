import { GraphQLError, buildSchema, parse } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { chargeOperation } from '../../src/core/charge-operation.js';
import { startSubscriptionServer, type SubscriptionServer } from '../../examples/subscriptions/server.js';

describe('chargeOperation', () => {
  const schema = buildSchema(`${costDirectivesTypeDefs}
    type Item { id: ID! }
    type Query { items(first: Int = 5): [Item!]! @listSize(slicingArguments: ["first"]) }`);
  const policy = { capacity: 20, refillPerSecond: 1 };
  const document = parse('query Q($n: Int) { items(first: $n) { id } }');

  it('prices and charges, and refuses with a GraphQLError the client can read', async () => {
    const store = new MemoryBucketStore();
    const charged = await chargeOperation({ schema, document, variables: { n: 10 }, key: 'ann', policy, store });
    expect(charged).toMatchObject({ charged: 12, bucket: { allowed: true, remaining: 8 } });

    const refused = await chargeOperation({ schema, document, variables: { n: 10 }, key: 'ann', policy, store }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(GraphQLError);
    expect((refused as GraphQLError).extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 4 });
    expect((await store.peek('ann', policy)).remaining).toBeLessThan(9);

    const tooBig = await chargeOperation({ schema, document, variables: { n: 50 }, key: 'bob', policy, store }).catch(
      (error: unknown) => error,
    );
    expect((tooBig as GraphQLError).extensions.code).toBe('COST_ESTIMATED_TOO_EXPENSIVE');
    const badInput = await chargeOperation({
      schema,
      document,
      variables: { n: 'x' },
      key: 'bob',
      policy,
      store,
    }).catch((error: unknown) => error);
    expect((badInput as GraphQLError).extensions.code).toBe('BAD_USER_INPUT');
  });

  it('settles against the result: a shorter list refunded, a longer one taken, once', async () => {
    const store = new MemoryBucketStore();
    const wide = { capacity: 100, refillPerSecond: 0 };
    const short = await chargeOperation({ schema, document, variables: { n: 10 }, key: 'cat', policy: wide, store });
    const items = (n: number) => ({ items: Array.from({ length: n }, (_, id) => ({ id: String(id) })) });
    expect(await short.settle({ data: items(3) })).toMatchObject({ requestedQueryCost: 12, actualQueryCost: 5 });
    await short.settle({ data: items(0) });
    expect((await store.peek('cat', wide)).remaining).toBe(95);
    const long = await chargeOperation({ schema, document, variables: { n: 2 }, key: 'cat', policy: wide, store });
    expect(await long.settle({ data: items(9) })).toMatchObject({ requestedQueryCost: 4, actualQueryCost: 11 });
    expect((await store.peek('cat', wide)).remaining).toBe(84);
  });

  it('goes through the deny cache, the circuit breaker and onStoreError', async () => {
    const memory = new MemoryBucketStore();
    let calls = 0;
    let failing = false;
    const store: BucketStore = {
      consume: (...args) => {
        calls += 1;
        return failing ? Promise.reject(new Error('down')) : memory.consume(...args);
      },
      refund: (...args) => memory.refund(...args),
      peek: (...args) => memory.peek(...args),
    };
    const charge = (extra: Partial<Parameters<typeof chargeOperation>[0]> = {}) =>
      chargeOperation({ schema, document, variables: { n: 10 }, key: 'dan', policy, store, ...extra });
    await charge();
    const refused = await charge().catch((error: GraphQLError) => error.extensions.code);
    expect(refused).toBe('RATE_LIMITED');
    expect(calls).toBe(2);
    // The deny cache answers the next refusal without a store call.
    expect(await charge().catch((error: GraphQLError) => error.extensions.code)).toBe('RATE_LIMITED');
    expect(calls).toBe(2);

    failing = true;
    const deny = { onStoreError: 'deny' as const, key: 'erin' };
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await charge(deny).catch((error: GraphQLError) => error.extensions.code)).toBe('BUDGET_UNAVAILABLE');
    }
    // Three failures opened the breaker: no more store calls meanwhile.
    const before = calls;
    expect(await charge(deny).catch((error: GraphQLError) => error.extensions.code)).toBe('BUDGET_UNAVAILABLE');
    expect(calls).toBe(before);
    // The default, 'local', charges an in-process bucket meanwhile.
    const local = await charge({ key: 'fay' });
    expect(local).toMatchObject({ charged: 12, bucket: { remaining: 8 } });
  });

  it('refuses an unknown option by name', async () => {
    const store = new MemoryBucketStore();
    await expect(chargeOperation({ schema, document, key: 'x', policy, store, timeout: 5 } as never)).rejects.toThrow(
      /unknown option `timeout`\. Did you mean `timeoutMs`\?/,
    );
  });
});

/** Subscriptions over a real graphql-ws server (the example's, with budgetedSubscribe) and client. */
describe('subscriptions over graphql-ws', () => {
  let server: SubscriptionServer;
  const clients: Client[] = [];
  // Subscribe costs 7 (Subscription 1 + Tick 1 + ticks 5); so does each event.
  const policy = { capacity: 30, refillPerSecond: 0 };

  beforeAll(async () => {
    server = await startSubscriptionServer({ store: new MemoryBucketStore(), policy });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(() => server.stop());

  function client(apiKey: string): Client {
    const created = createClient({
      url: server.url,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey },
      retryAttempts: 0,
    });
    clients.push(created);
    return created;
  }

  /** Subscribes and collects every event and the error or completion. */
  function subscribe(
    from: Client,
    count: number,
  ): Promise<{ events: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }[]; error?: unknown }> {
    return new Promise((resolve) => {
      const events: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }[] = [];
      from.subscribe(
        { query: `subscription { ticks(count: ${count}) { n } }` },
        {
          next: (event) => void events.push(event as (typeof events)[number]),
          error: (error) => resolve({ events, error }),
          complete: () => resolve({ events }),
        },
      );
    });
  }

  it('charges the subscription and each event; the first event the budget cannot pay ends it with the error', async () => {
    // 30 tokens: subscribe 7 (23 left), events 1–3 at 7 each (2 left), event 4 refused: the end.
    const { events, error } = await subscribe(client('alice'), 5);
    expect(error).toBeUndefined();
    expect(events.slice(0, 3).map((event) => event.data)).toEqual([
      { ticks: { n: 1 } },
      { ticks: { n: 2 } },
      { ticks: { n: 3 } },
    ]);
    expect(events).toHaveLength(4);
    expect(events[3]?.data).toBeUndefined();
    expect(events[3]?.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
  });

  it('refuses to subscribe once the budget is spent, and the client receives the error', async () => {
    // The refusal is the operation's only result, then completion; the source never starts.
    const before = server.produced;
    const { events, error } = await subscribe(client('alice'), 1);
    expect(error).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toBeUndefined();
    expect(events[0]?.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(server.produced).toBe(before);
    // Another caller has a budget of their own: 30 − 7 to subscribe − 7 for the event; each event says so.
    expect((await subscribe(client('bob'), 1)).events).toEqual([
      {
        data: { ticks: { n: 1 } },
        extensions: {
          cost: {
            requestedQueryCost: 7,
            actualQueryCost: 7,
            throttleStatus: { maximumAvailable: 30, currentlyAvailable: 16, restoreRate: 0 },
          },
        },
      },
    ]);
  });
});
