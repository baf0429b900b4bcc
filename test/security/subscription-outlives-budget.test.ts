/**
 * Attack: subscribe once, and let the server go on producing events the budget no longer pays for.
 *
 *   subscription { ticks(count: 3000, intervalMs: 0) { n } }      (30 tokens; 7 per event)
 *
 * Charging each event in graphql-ws's `onNext` happens after the event was produced and resolved,
 * and a refused event is only replaced by the error: the stream goes on. One 7-token subscribe made
 * the server produce and resolve 3,000 events in 4 s; 8 were paid, 2,992 went out as RATE_LIMITED.
 *
 * Guarantee: once an event cannot be paid, the subscription ends: the source iterator is returned,
 * so no further events are produced or resolved, and the client gets the RATE_LIMITED error, then
 * completion (`budgetedSubscribe`, charging each event before it is resolved).
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startSubscriptionServer, type SubscriptionServer } from '../../examples/subscriptions/server.js';
import { MemoryBucketStore } from '../../src/bucket/memory-store.js';

const policy = { capacity: 30, refillPerSecond: 0 };
const store = new MemoryBucketStore();
let server: SubscriptionServer;
let client: Client;

beforeAll(async () => {
  server = await startSubscriptionServer({ store, policy });
  client = createClient({
    url: server.url,
    webSocketImpl: WebSocket,
    connectionParams: { apiKey: 'mallory' },
    retryAttempts: 0,
  });
});
afterAll(async () => {
  await client.dispose();
  await server.stop();
});

it('ends the subscription at the first event the budget cannot pay', async () => {
  const events: { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] }[] = [];
  const ended = await new Promise<'complete' | 'error'>((resolve) => {
    client.subscribe(
      { query: 'subscription { ticks(count: 3000, intervalMs: 0) { n } }' },
      {
        next: (event) => void events.push(event as (typeof events)[number]),
        error: () => resolve('error'),
        complete: () => resolve('complete'),
      },
    );
  });
  // 30 tokens: the subscription 7 (23 left), three events at 7 (2 left), the fourth refused.
  expect(ended).toBe('complete');
  expect(events.map((event) => event.data ?? event.errors?.[0]?.extensions?.code)).toEqual([
    { ticks: { n: 1 } },
    { ticks: { n: 2 } },
    { ticks: { n: 3 } },
    'RATE_LIMITED',
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The fourth event was produced (that is how it was found unpaid); nothing after it.
  expect(server.produced).toBe(4);
  expect((await store.peek('key:mallory', policy)).remaining).toBe(2);
});
