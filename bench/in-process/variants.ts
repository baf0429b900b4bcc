import { MemoryBucketStore, RedisBucketStore } from 'graphql-budget';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { clientOptions, storeFromEnv } from '../../examples/bookstore/stores.js';
import { startApolloServer } from './apollo-server.js';
import { startYogaServer } from './yoga-server.js';
import type { Guard, InProcessServer, InProcessVariant } from './variant.js';

/**
 * A server guarded by rate-limiter-flexible's `RateLimiterRedis` on its own ioredis client, with
 * the options of the example's (auto-pipelining, no offline queue, no retries).
 */
async function startRateLimited(
  redisUrl: string,
  start: (guard: Guard) => Promise<InProcessServer>,
): Promise<InProcessServer> {
  const client = new Redis(redisUrl, { ...clientOptions, lazyConnect: true });
  await client.connect();
  // Points no run can spend: every call is an allowed consume that writes.
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: 'bench-rlf-peer',
    points: 2_000_000_000,
    duration: 3600,
  });
  const server = await start({ kind: 'rate-limiter-flexible', limiter });
  return { request: server.request, stop: () => server.stop().finally(() => client.disconnect()) };
}

/**
 * The servers the in-process section runs side by side, in one process, interleaved round by
 * round: each framework's bare server, its plugin variants and the peers wired as their users wire
 * them (bench/in-process/peers.ts) (Apollo Server through `executeHTTPGraphQLRequest`, GraphQL Yoga through `yoga.fetch`).
 * Every guarded variant is compared with its framework's bare server, and the plugin's and
 * graphql-armor's added CPU with graphql-query-complexity's on the same framework. The section and
 * the goals read the list.
 */
export const IN_PROCESS_VARIANTS: readonly InProcessVariant[] = [
  {
    id: 'apollo-bare',
    label: 'Apollo Server, bare',
    plugin: false,
    redis: false,
    start: () => startApolloServer({ kind: 'bare' }),
  },
  {
    id: 'apollo-memory',
    label: 'Apollo Server + plugin + MemoryBucketStore',
    baseline: 'apollo-bare',
    reference: 'apollo-query-complexity',
    plugin: true,
    redis: false,
    start: () => startApolloServer({ kind: 'budget', store: new MemoryBucketStore() }),
  },
  {
    id: 'apollo-redis',
    label: 'Apollo Server + plugin + RedisBucketStore',
    baseline: 'apollo-bare',
    reference: 'apollo-query-complexity',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      // The example's client (docs/operations.md, "Adding the plugin"): auto-pipelining, no offline queue.
      const selected = storeFromEnv({ REDIS_URL: redisUrl });
      if (!(await selected.ready())) throw new Error(`store not ready: ${selected.description}`);
      const server = await startApolloServer({ kind: 'budget', store: selected.store });
      return { request: server.request, stop: () => server.stop().finally(() => selected.close()) };
    },
  },
  {
    id: 'apollo-redis-unpipelined',
    label: 'Apollo Server + plugin + RedisBucketStore, ioredis without auto-pipelining',
    baseline: 'apollo-bare',
    reference: 'apollo-query-complexity',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      // The example's client options less auto-pipelining: the store's own batching alone.
      const client = new Redis(redisUrl, { ...clientOptions, enableAutoPipelining: false, lazyConnect: true });
      await client.connect();
      const server = await startApolloServer({ kind: 'budget', store: new RedisBucketStore(client) });
      return { request: server.request, stop: () => server.stop().finally(() => client.disconnect()) };
    },
  },
  {
    id: 'apollo-query-complexity',
    label: 'Apollo Server + graphql-query-complexity',
    baseline: 'apollo-bare',
    plugin: false,
    redis: false,
    start: () => startApolloServer({ kind: 'graphql-query-complexity' }),
  },
  {
    id: 'apollo-armor-cost-limit',
    label: 'Apollo Server + graphql-armor cost limit',
    baseline: 'apollo-bare',
    reference: 'apollo-query-complexity',
    plugin: false,
    redis: false,
    start: () => startApolloServer({ kind: 'graphql-armor-cost-limit' }),
  },
  {
    id: 'apollo-rate-limiter-flexible',
    label: 'Apollo Server + rate-limiter-flexible (RateLimiterRedis)',
    baseline: 'apollo-bare',
    reference: 'apollo-query-complexity',
    plugin: false,
    redis: true,
    start: ({ redisUrl }) => startRateLimited(redisUrl, startApolloServer),
  },
  {
    id: 'yoga-bare',
    label: 'GraphQL Yoga, bare',
    plugin: false,
    redis: false,
    start: () => startYogaServer({ kind: 'bare' }),
  },
  {
    id: 'yoga-memory',
    label: 'GraphQL Yoga + plugin + MemoryBucketStore',
    baseline: 'yoga-bare',
    reference: 'yoga-query-complexity',
    plugin: true,
    redis: false,
    start: () => startYogaServer({ kind: 'budget', store: new MemoryBucketStore() }),
  },
  {
    id: 'yoga-redis',
    label: 'GraphQL Yoga + plugin + RedisBucketStore',
    baseline: 'yoga-bare',
    reference: 'yoga-query-complexity',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      const selected = storeFromEnv({ REDIS_URL: redisUrl });
      if (!(await selected.ready())) throw new Error(`store not ready: ${selected.description}`);
      const server = await startYogaServer({ kind: 'budget', store: selected.store });
      return { request: server.request, stop: () => server.stop().finally(() => selected.close()) };
    },
  },
  {
    id: 'yoga-query-complexity',
    label: 'GraphQL Yoga + graphql-query-complexity',
    baseline: 'yoga-bare',
    plugin: false,
    redis: false,
    start: () => startYogaServer({ kind: 'graphql-query-complexity' }),
  },
  {
    id: 'yoga-armor-cost-limit',
    label: 'GraphQL Yoga + graphql-armor cost limit',
    baseline: 'yoga-bare',
    reference: 'yoga-query-complexity',
    plugin: false,
    redis: false,
    start: () => startYogaServer({ kind: 'graphql-armor-cost-limit' }),
  },
  {
    id: 'yoga-rate-limiter-flexible',
    label: 'GraphQL Yoga + rate-limiter-flexible (RateLimiterRedis)',
    baseline: 'yoga-bare',
    reference: 'yoga-query-complexity',
    plugin: false,
    redis: true,
    start: ({ redisUrl }) => startRateLimited(redisUrl, startYogaServer),
  },
];
