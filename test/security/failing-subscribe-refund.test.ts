/**
 * Attack: subscribe to a field whose subscribe resolver does the expensive work and then throws.
 *
 *   subscription { picky(limit: 100) { n } }      (picky weighs 50; its resolver throws above 5)
 *
 * The resolver ran, but no event stream came back, and a subscription that gives the charge back
 * whenever its source does not start made it free: five subscribes on a 60-token budget ran the
 * resolver five times for 0 tokens.
 *
 * Guarantee: a subscription is charged when it starts, and the charge stays even when its source
 * fails to start: the subscribe resolver ran.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError, buildSchema } from 'graphql';
import { createClient } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';
import { costDirectivesTypeDefs } from '../../src/cost/directives.js';
import { budgetedSubscribe } from '../../src/graphql-ws/graphql-ws-budget.js';

const schema = buildSchema(`${costDirectivesTypeDefs}
  type Query { hello: String }
  type Tick { n: Int! }
  type Subscription { picky(limit: Int!): Tick! @cost(weight: "50") }
`);
let resolverRuns = 0;
const roots = {
  subscription: {
    async *picky({ limit }: { limit: number }) {
      resolverRuns += 1;
      if (limit > 5) throw new GraphQLError('too picky');
      yield { picky: { n: 1 } };
    },
  },
};
// An async generator throws on its first next(), so the failure must come before it: a plain function.
const rootValue = {
  picky: (args: { limit: number }) => {
    resolverRuns += 1;
    if (args.limit > 5) throw new GraphQLError('too picky');
    return roots.subscription.picky(args);
  },
};

const store = new MemoryBucketStore();
const policy = { capacity: 60, refillPerSecond: 0 };
const httpServer = createServer();
const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' });
let url = '';
let dispose: () => Promise<void>;

beforeAll(async () => {
  const cleanup = useServer(
    {
      schema,
      roots: { subscription: rootValue },
      subscribe: budgetedSubscribe({ store, policy, identify: () => 'mallory' }),
    },
    wsServer,
  );
  dispose = () => Promise.resolve(cleanup.dispose());
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  url = `ws://127.0.0.1:${(httpServer.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  await dispose();
  wsServer.close();
  await new Promise((resolve) => httpServer.close(resolve));
});

it("keeps the subscription's charge when its source fails to start", async () => {
  const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
  const codes: unknown[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise<void>((resolve) => {
      client.subscribe(
        { query: 'subscription { picky(limit: 100) { n } }' },
        {
          next: (result) => void codes.push(result.errors?.[0]?.extensions?.code ?? result.errors?.[0]?.message),
          error: () => resolve(),
          complete: () => resolve(),
        },
      );
    });
  }
  await client.dispose();
  // Each subscribe costs 52 (Subscription 1 + Tick 1, picky 50): the first ran, the next were refused.
  expect(resolverRuns).toBe(1);
  expect(codes).toEqual(['too picky', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
  expect((await store.peek('mallory', policy)).remaining).toBe(8);
});
