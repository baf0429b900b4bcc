/**
 * The Redis clients `RedisBucketStore` takes, made the same way for every suite that runs once per
 * client: `describe.each(CLIENTS)` and `connectClient(name, port)` (or `connectCluster`) give the
 * store under test its client; what the test reads back from Redis goes through a connection of
 * its own (`redisCommand`, or an ioredis admin client), never through the client under test.
 * Each client's package is loaded when first used, so that a worker process loads only its own.
 */
import type { ClusterOptions, RedisOptions } from 'ioredis';
import type { RedisBucketClient } from '../../src/bucket/redis-client.js';

/** The clients every parameterised suite runs with. */
export const CLIENTS = ['ioredis', 'node-redis'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** A connected client of one kind. */
export interface TestClient {
  readonly name: ClientName;
  /** What the store under test is given. */
  readonly client: RedisBucketClient;
  /** Sends one command through this client (e.g. `PING`, to see that its connection is free again). */
  command(...args: string[]): Promise<unknown>;
  /** Closes the connection(s) at once, without waiting for replies. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /**
   * The settings docs/operations.md recommends for a limiter (fail fast while disconnected, never
   * resend, reconnect within 200 ms); otherwise the client's defaults.
   * @default false
   */
  limiter?: boolean;
  /** ioredis: `enableAutoPipelining`. node-redis always writes the commands of one turn together. */
  autoPipelining?: boolean;
  /** node-redis: the protocol version. @default the client's (RESP3 in redis 6, RESP2 in 5) */
  resp?: 2 | 3;
  /** node-redis: map every string reply to a Buffer, as a user's `withTypeMapping` could. */
  buffers?: boolean;
  /** Connect lazily (ioredis `lazyConnect`; node-redis: `connect()` is not awaited). */
  lazy?: boolean;
}

/** ioredis options for a limiter, as docs/operations.md shows them. */
export const IOREDIS_LIMITER_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 1000,
  retryStrategy: (attempt: number) => Math.min(attempt * 50, 200),
};

/** node-redis options for a limiter, as docs/operations.md shows them. */
export const NODE_REDIS_LIMITER_OPTIONS = {
  disableOfflineQueue: true,
  socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(retries * 50, 200) },
};

/** A client of `name` on the single node at `port` of 127.0.0.1, ready for commands. */
export async function connectClient(name: ClientName, port: number, options: ConnectOptions = {}): Promise<TestClient> {
  if (name === 'ioredis') {
    const { Redis } = await import('ioredis');
    const client = new Redis({
      host: '127.0.0.1',
      port,
      ...(options.limiter ? IOREDIS_LIMITER_OPTIONS : {}),
      enableAutoPipelining: options.autoPipelining ?? false,
      lazyConnect: options.lazy ?? false,
    });
    client.on('error', () => undefined);
    if (!options.lazy) await new Promise((resolve) => client.once('ready', resolve));
    return {
      name,
      client,
      command: (command, ...args) => client.call(command, ...args),
      close: async () => client.disconnect(),
    };
  }
  const { createClient } = await import('redis');
  const base = createClient({
    url: `redis://127.0.0.1:${port}`,
    ...(options.limiter ? NODE_REDIS_LIMITER_OPTIONS : {}),
    ...(options.resp ? { RESP: options.resp } : {}),
  });
  base.on('error', () => undefined);
  const connecting = base.connect();
  if (!options.lazy) await connecting;
  else connecting.catch(() => undefined);
  const client = options.buffers ? base.withTypeMapping({ [RESP_BLOB_STRING]: Buffer }) : base;
  return {
    name,
    client,
    command: (...args) => base.sendCommand(args),
    close: async () => base.destroy(),
  };
}

/** node-redis' code for a bulk string reply (`RESP_TYPES.BLOB_STRING`). */
const RESP_BLOB_STRING = 36;

/** A cluster client of `name` over `startupNodes`, connected (its slot map known). */
export async function connectCluster(
  name: ClientName,
  startupNodes: readonly { host: string; port: number }[],
  options: ConnectOptions = {},
): Promise<TestClient> {
  if (name === 'ioredis') {
    const { Cluster } = await import('ioredis');
    const clusterOptions: ClusterOptions = {
      enableAutoPipelining: options.autoPipelining ?? false,
      ...(options.limiter
        ? {
            enableOfflineQueue: false,
            clusterRetryStrategy: (attempt: number) => Math.min(attempt * 50, 200),
            redisOptions: IOREDIS_LIMITER_OPTIONS,
          }
        : {}),
    };
    const cluster = new Cluster([...startupNodes], clusterOptions);
    cluster.on('error', () => undefined);
    await new Promise((resolve) => cluster.once('ready', resolve));
    return {
      name,
      client: cluster,
      command: (command, ...args) => cluster.call(command, ...args),
      close: async () => cluster.disconnect(),
    };
  }
  const { createCluster } = await import('redis');
  const cluster = createCluster({
    rootNodes: startupNodes.map((node) => ({ url: `redis://${node.host}:${node.port}` })),
    ...(options.limiter ? { defaults: NODE_REDIS_LIMITER_OPTIONS } : {}),
  });
  cluster.on('error', () => undefined);
  await cluster.connect();
  return {
    name,
    client: cluster,
    command: (...args) => cluster.sendCommand(undefined, false, args),
    close: async () => cluster.destroy(),
  };
}
