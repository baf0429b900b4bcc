/**
 * The Redis clients `RedisBucketStore` takes, described here by what the store calls, so that the
 * published types import neither `ioredis` nor `redis` (both optional peers): a project that uses
 * only `MemoryBucketStore`, or only one of the two clients, compiles without the others, and each
 * client fits as it is, without a cast.
 */

/**
 * An ioredis `Redis` or `Cluster` (ioredis 6), or anything shaped like one.
 *
 * Besides the members below, the store calls the commands it defines: after
 * `defineCommand(name, { numberOfKeys: n, lua })` the client has a method `name(...keys, ...args)`
 * (n keys) that runs the script with `EVALSHA`, falling back to `EVAL` when Redis answers
 * `NOSCRIPT` (ioredis does exactly this), and resolves with the script's reply; after
 * `defineCommand(name, { lua })` (no `numberOfKeys`), `name(n, ...keys, ...args)` does the same.
 * On a single node the store defines one command of the second kind; on a Cluster one of the first
 * kind per number of keys it sends, which the client sends to the node serving the first key's
 * slot (the store only sends keys of one slot together).
 */
export interface IoredisBucketClient {
  /** Registers a Lua script as a command of the client (ioredis `defineCommand`). */
  defineCommand(name: string, definition: { numberOfKeys?: number; lua: string }): void;
  /** Redis `TIME`: `[seconds, microseconds]`, as numbers or numeric strings. */
  time(): Promise<readonly unknown[]>;
  /** `true` for a Redis Cluster client, `false` for a single node. */
  readonly isCluster: boolean;
  /**
   * The scripts `defineCommand` registered, by name (ioredis `scriptsSet`): the store runs its own
   * with `execute`, as ioredis does for a command that is not auto-pipelined.
   */
  readonly scriptsSet?: object;
  /**
   * Cluster only: for each of the 16384 hash slots, the `host:port` of its master first (then its
   * replicas), as last learnt from the cluster; read to name a bucket's partition.
   */
  readonly slots?: readonly (readonly string[] | undefined)[];
}

/**
 * A node-redis client: `createClient()` from `redis` 5 or later (RESP2 or RESP3, any type
 * mapping). The store sends its commands with `sendCommand` (`EVALSHA`, then `EVAL` when Redis
 * answers `NOSCRIPT`; `TIME`), so the client's `keyPrefix` does not apply to bucket keys (the
 * store's own `prefix` does). The client must be connected (`await client.connect()`) and needs an
 * `'error'` listener, as every node-redis client does.
 */
export interface NodeRedisBucketClient {
  /** Sends one command, `args[0]` its name (node-redis `sendCommand`). */
  sendCommand(args: string[], options?: { typeMapping?: object }): Promise<unknown>;
  /** Whether the connection is up and ready for commands. */
  readonly isReady: boolean;
}

/**
 * A node-redis cluster: `createCluster()` from `redis` 5 or later (6 or later to follow a failover:
 * node-redis 5 keeps sending a dead master's slots to it). The store routes each script call by
 * its first key (the client follows `MOVED` and `ASK`), and reads the master serving a slot from
 * `slots` to name a bucket's partition.
 */
export interface NodeRedisClusterBucketClient {
  /** Sends one command to the node serving `firstKey`'s slot (node-redis cluster `sendCommand`). */
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: { typeMapping?: object },
  ): Promise<unknown>;
  /** For each of the 16384 hash slots, its shard as last learnt from the cluster (empty before `connect`). */
  readonly slots: readonly ({ readonly master: { readonly address: string } } | undefined)[];
}

/** Any client `RedisBucketStore` takes: ioredis `Redis` or `Cluster`, node-redis client or cluster. */
export type RedisBucketClient = IoredisBucketClient | NodeRedisBucketClient | NodeRedisClusterBucketClient;

/** The clients `RedisBucketStore` takes, as `redisClientKind` names them. */
export type RedisClientKind = 'ioredis' | 'ioredis Cluster' | 'node-redis' | 'node-redis cluster';

/**
 * Which supported client `value` is, told apart by shape (neither package is imported): ioredis by
 * `defineCommand` and `isCluster`; a node-redis cluster by its slot map and per-node clients; a
 * node-redis client by `sendCommand` and `isReady` (a node-redis Sentinel, which has those too but
 * sends commands differently, is not one). `undefined` for anything else.
 */
export function redisClientKind(value: unknown): RedisClientKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const client = value as Record<string, unknown>;
  if (typeof client.defineCommand === 'function') return client.isCluster === true ? 'ioredis Cluster' : 'ioredis';
  if (typeof client.sendCommand !== 'function') return undefined;
  if (Array.isArray(client.slots) && typeof client.nodeClient === 'function') return 'node-redis cluster';
  if (typeof client.isReady === 'boolean' && typeof client.getMasterNode !== 'function') return 'node-redis';
  return undefined;
}
