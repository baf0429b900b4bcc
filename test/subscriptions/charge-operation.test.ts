import { GraphQLError, buildSchema, parse } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { chargeOperation } from '../../src/plugin/charge-operation.js';
import { startSubscriptionServer, type SubscriptionServer } from '../../examples/subscriptions/server.js';

describe('chargeOperation', () => {
  const schema = buildSchema(`${costDirectivesTypeDefs}
    type Item { id: ID! }
    type Query { items(first: Int = 5): [Item!]! @listSize(slicingArguments: ["first"]) }`);
  const policy = { capacity: 20, refillPerSecond: 1 };

  it('prices and charges, and refuses with a GraphQLError the client can read', async () => {
    const store = new MemoryBucketStore();
    const document = parse('query Q($n: Int) { items(first: $n) { id } }');
    const charged = await chargeOperation({ schema, document, variables: { n: 10 }, key: 'ann', policy, store });
    expect(charged).toMatchObject({ allowed: true, charged: 12, remaining: 8 });

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
    // Another caller has a budget of their own.
    expect((await subscribe(client('bob'), 1)).events).toEqual([{ data: { ticks: { n: 1 } } }]);
  });
});
