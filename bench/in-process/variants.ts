import { MemoryBucketStore, RedisBucketStore } from 'graphql-budget';
import { Redis } from 'ioredis';
import { storeFromEnv } from '../../examples/bookstore/stores.js';
import { startApolloServer } from './apollo-server.js';
import { startYogaServer } from './yoga-server.js';
import type { InProcessServer, InProcessVariant } from './variant.js';

/**
 * The servers the in-process section runs side by side, in one process, interleaved round by
 * round: each framework's bare server and its plugin variants (Apollo Server through
 * `executeHTTPGraphQLRequest`, GraphQL Yoga through `yoga.fetch`). The section and the goals read
 * the list.
 */
export const IN_PROCESS_VARIANTS: readonly InProcessVariant[] = [
  {
    id: 'apollo-bare',
    label: 'Apollo Server, bare',
    plugin: false,
    redis: false,
    start: () => startApolloServer(undefined),
  },
  {
    id: 'apollo-memory',
    label: 'Apollo Server + plugin + MemoryBucketStore',
    baseline: 'apollo-bare',
    plugin: true,
    redis: false,
    start: () => startApolloServer(new MemoryBucketStore()),
  },
  {
    id: 'apollo-redis',
    label: 'Apollo Server + plugin + RedisBucketStore',
    baseline: 'apollo-bare',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      // The example's client (docs/operations.md, "Adding the plugin"): auto-pipelining, no offline queue.
      const selected = storeFromEnv({ REDIS_URL: redisUrl });
      if (!(await selected.ready())) throw new Error(`store not ready: ${selected.description}`);
      const server = await startApolloServer(selected.store);
      return { request: server.request, stop: () => server.stop().finally(() => selected.close()) };
    },
  },
  {
    id: 'apollo-redis-unpipelined',
    label: 'Apollo Server + plugin + RedisBucketStore, ioredis without auto-pipelining',
    baseline: 'apollo-bare',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      // The example's client options less auto-pipelining: the store's own batching alone.
      const client = new Redis(redisUrl, {
        enableAutoPipelining: false,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        lazyConnect: true,
      });
      await client.connect();
      const server = await startApolloServer(new RedisBucketStore(client));
      return { request: server.request, stop: () => server.stop().finally(() => client.disconnect()) };
    },
  },
  {
    id: 'yoga-bare',
    label: 'GraphQL Yoga, bare',
    plugin: false,
    redis: false,
    start: () => startYogaServer(undefined),
  },
  {
    id: 'yoga-memory',
    label: 'GraphQL Yoga + plugin + MemoryBucketStore',
    baseline: 'yoga-bare',
    plugin: true,
    redis: false,
    start: () => startYogaServer(new MemoryBucketStore()),
  },
  {
    id: 'yoga-redis',
    label: 'GraphQL Yoga + plugin + RedisBucketStore',
    baseline: 'yoga-bare',
    plugin: true,
    redis: true,
    start: async ({ redisUrl }): Promise<InProcessServer> => {
      const selected = storeFromEnv({ REDIS_URL: redisUrl });
      if (!(await selected.ready())) throw new Error(`store not ready: ${selected.description}`);
      const server = await startYogaServer(selected.store);
      return { request: server.request, stop: () => server.stop().finally(() => selected.close()) };
    },
  },
];
