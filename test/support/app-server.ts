/**
 * Test fixture: a small Apollo Server 5 with the budget plugin, meant to run in its own process
 * (`node --import tsx test/support/app-server.ts`). Prints `listening <port>` on stdout once it
 * accepts requests, and stops cleanly on SIGTERM.
 *
 * Configured by environment variables:
 *   REDIS_URL            redis://127.0.0.1:PORT — a single Redis node, or
 *   REDIS_CLUSTER_NODES  host:port,host:port,... — Redis Cluster seed nodes
 *                        (neither: the plugin's default in-process MemoryBucketStore)
 *   REDIS_CLIENT         ioredis | node-redis                     default ioredis
 *   KEY_PREFIX           bucket key prefix                        default 'gb:'
 *   CAPACITY             bucket capacity (tokens)                 default 100
 *   REFILL_PER_SECOND    refill (tokens per second)               default 0
 *   ON_STORE_ERROR       allow | deny | local                     default allow
 *   STORE_TIMEOUT_MS     deadline of each store call (ms)         default 50
 *   BREAKER_COOLDOWN_MS  circuit breaker cool-down (ms)           default 500
 *   MODE                 enforce | measure (anything else: enforce) default enforce
 *   PORT                 0 picks a free port                      default 0
 *   BARE                 1: no budget plugin at all (a baseline for benchmarks)
 *
 * Schema (test/support/items-schema.ts): `items(first: Int = 10, returned: Int)` is a list sliced by
 * `first`, so `first` sets a request's cost; `returned` makes the resolver return fewer items than
 * asked, to exercise refunds; `slowItems(ms:)` waits before answering.
 *
 * Identity: the `x-test-user` request header. THIS IS A TEST FIXTURE ONLY: a real server must never
 * take the caller's identity from a header the client controls (see docs/operations.md, "Choosing identify").
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import type { RedisBucketClient } from '../../src/bucket/redis-client.js';
import { RedisBucketStore } from '../../src/bucket/redis-store.js';
import type { BucketStore } from '../../src/bucket/types.js';
import { queryBudgetPlugin } from '../../src/apollo/query-budget-plugin.js';
import type { StoreErrorPolicy } from '../../src/core/outcomes.js';
import { itemsResolvers, itemsTypeDefs } from './items-schema.js';
import { NODE_REDIS_LIMITER_OPTIONS } from './redis-clients.js';

interface TestContext {
  user: string | undefined;
}

const env = process.env;
const number = (name: string, fallback: number): number => (env[name] === undefined ? fallback : Number(env[name]));

/**
 * ioredis settings for a limiter: a command is either answered promptly or fails, it is never
 * queued while disconnected and never resent after a reconnect (a late consume would charge a
 * request that was already decided). Reconnect attempts are frequent (≤ 200 ms apart) so limiting
 * resumes within about a second of Redis returning. No `commandTimeout`: the store's own deadline
 * (`tuning.storeTimeoutMs`) bounds every call. Auto-pipelining sends the commands of concurrent requests in
 * one socket write.
 */
const redisOptions = {
  enableAutoPipelining: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 1000,
  retryStrategy: (attempt: number) => Math.min(attempt * 50, 200),
} as const;

/** A connected client for the store, and how to let go of it. */
interface Connected {
  client: RedisBucketClient;
  close(): void;
}

/**
 * node-redis set up for a limiter (docs/operations.md): no offline queue, quick reconnects;
 * node-redis never resends a command whose reply was lost with its connection.
 */
async function connectNodeRedis(): Promise<Connected | undefined> {
  if (env.REDIS_CLUSTER_NODES) {
    const cluster = createCluster({
      rootNodes: env.REDIS_CLUSTER_NODES.split(',').map((node) => ({ url: `redis://${node}` })),
      defaults: NODE_REDIS_LIMITER_OPTIONS,
    });
    cluster.on('error', () => {});
    await cluster.connect();
    return { client: cluster, close: () => cluster.destroy() };
  }
  if (env.REDIS_URL) {
    const client = createClient({ url: env.REDIS_URL, ...NODE_REDIS_LIMITER_OPTIONS });
    client.on('error', () => {});
    await client.connect();
    return { client, close: () => client.destroy() };
  }
  return undefined;
}

async function connectRedis(): Promise<Connected | undefined> {
  if (env.REDIS_CLIENT === 'node-redis') return connectNodeRedis();
  if (env.REDIS_CLUSTER_NODES) {
    const nodes = env.REDIS_CLUSTER_NODES.split(',').map((node) => {
      const [host, port] = node.split(':');
      return { host: host ?? '127.0.0.1', port: Number(port) };
    });
    const cluster = new Cluster(nodes, {
      enableAutoPipelining: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: (attempt: number) => Math.min(attempt * 50, 200),
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      redisOptions,
    });
    cluster.on('error', () => {});
    await new Promise<void>((resolve) => cluster.once('ready', () => resolve()));
    return { client: cluster, close: () => cluster.disconnect() };
  }
  if (env.REDIS_URL) {
    const redis = new Redis(env.REDIS_URL, redisOptions);
    redis.on('error', () => {});
    await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
    return { client: redis, close: () => redis.disconnect() };
  }
  return undefined;
}

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`unhandledRejection ${reason instanceof Error ? reason.stack : String(reason)}\n`);
  process.exit(70);
});

const connected = await connectRedis();
const store: BucketStore | undefined = connected
  ? new RedisBucketStore(connected.client, { prefix: env.KEY_PREFIX ?? 'gb:' })
  : undefined;

const server = new ApolloServer<TestContext>({
  typeDefs: itemsTypeDefs,
  resolvers: itemsResolvers,
  allowBatchedHttpRequests: true,
  includeStacktraceInErrorResponses: false,
  // A document's size is bounded before graphql-js validates it (docs/operations.md, "Hostile documents").
  parseOptions: { maxTokens: number('MAX_TOKENS', 10_000) },
  plugins:
    env.BARE === '1'
      ? []
      : [
          queryBudgetPlugin<TestContext>({
            identify: ({ contextValue }) => contextValue.user ?? 'anonymous',
            policy: { capacity: number('CAPACITY', 100), refillPerSecond: number('REFILL_PER_SECOND', 0) },
            ...(store ? { store } : {}),
            // Vite sets MODE=test in the test runner, which children inherit: only 'measure' switches.
            mode: env.MODE === 'measure' ? 'measure' : 'enforce',
            onStoreError: (env.ON_STORE_ERROR ?? 'allow') as StoreErrorPolicy,
            tuning: {
              storeTimeoutMs: number('STORE_TIMEOUT_MS', 50),
              circuitBreaker: { cooldownMs: number('BREAKER_COOLDOWN_MS', 500) },
            },
          }),
        ],
});

const { url } = await startStandaloneServer(server, {
  listen: { port: number('PORT', 0), host: '127.0.0.1' },
  context: async ({ req }) => {
    const header = req.headers['x-test-user'];
    return { user: typeof header === 'string' ? header : undefined };
  },
});
process.stdout.write(`listening ${new URL(url).port}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await server.stop();
    connected?.close();
    process.exit(0);
  })();
});
